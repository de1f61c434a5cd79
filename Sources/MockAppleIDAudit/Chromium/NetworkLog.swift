import Foundation
import MockAppleID

/// What Chromium's network log (the DevTools protocol's `Network` events, from chromedriver's performance log) says
/// of one step's navigation: the top frame's document requests (and, for a page's own JavaScript, its fetches), their
/// statuses, the cookies Chromium withheld from each and why, and the cookies it refused to store.
struct NetworkLog: Sendable {
    /// The resource types of a navigation's requests.
    static let documents: Set<String> = ["Document"]
    /// Those of what a page's JavaScript does with Apple's answer: it posts it, then may navigate.
    static let documentsAndFetches: Set<String> = ["Document", "Fetch", "XHR"]

    /// The top frame's requests of the kinds asked for that were answered, redirects included, in order.
    var hops: [AuditBrowser.Hop] = []
    /// The last document request when no answer came, and Chromium's error (`net::ERR_NAME_NOT_RESOLVED`); an earlier
    /// one that failed was superseded (a page that navigates twice aborts the first).
    var failed: (url: URL, error: String)?
    /// The status of the last document that was answered (a fetch's is not a page's).
    var documentStatus: Int?
    /// The cookies Chromium would not store, each with why (`sid: SameSiteNoneInsecure`).
    var refused: [String] = []

    /// The log of `events` (the DevTools messages, each with `method` and `params`) for requests of `kinds`; `cookie`
    /// turns a cookie of the DevTools protocol into the jar's, to name the cookies withheld.
    init(_ events: [JSONValue], kinds: Set<String> = documents, cookie: (JSONValue) -> BrowserCookieJar.Cookie?) {
        var frame: String?
        var documents: [(request: String, method: String, url: URL, status: Int?, isDocument: Bool)] = []
        var sentCookies: [String: [[JSONValue]]] = [:]
        var failures: [String: String] = [:]
        for event in events {
            guard let method = event["method"]?.stringValue, let parameters = event["params"],
                  let request = parameters["requestId"]?.stringValue else { continue }
            switch method {
            case "Network.requestWillBeSent":
                guard kinds.contains(parameters["type"]?.stringValue ?? ""), let url = parameters["request"]?["url"]?.stringValue.flatMap(URL.init(string:)) else { continue }
                // The top frame is the frame of the step's first request (the navigation the audit started, or the page's fetch).
                let requestFrame = parameters["frameId"]?.stringValue
                if frame == nil { frame = requestFrame }
                guard requestFrame == frame else { continue }
                if let redirected = parameters["redirectResponse"]?["status"]?.int64Value,
                   let last = documents.lastIndex(where: { $0.request == request }) {
                    documents[last].status = Int(redirected)
                }
                documents.append((request, parameters["request"]?["method"]?.stringValue ?? "GET", url, nil, parameters["type"]?.stringValue == "Document"))
            case "Network.responseReceived":
                guard let status = parameters["response"]?["status"]?.int64Value,
                      let last = documents.lastIndex(where: { $0.request == request }) else { continue }
                documents[last].status = Int(status)
            case "Network.requestWillBeSentExtraInfo":
                if case let .array(associated) = parameters["associatedCookies"] ?? .null { sentCookies[request, default: []].append(associated) }
            case "Network.responseReceivedExtraInfo":
                guard case let .array(blocked) = parameters["blockedCookies"] ?? .null else { continue }
                refused += blocked.compactMap(Self.refusal)
            case "Network.loadingFailed":
                failures[request] = parameters["errorText"]?.stringValue ?? "the request failed"
            default: continue
            }
        }
        // The k-th request of a chain (a request and its redirects) carried the k-th set of cookies sent for it.
        var sentIndex: [String: Int] = [:]
        for (position, document) in documents.enumerated() {
            let index = sentIndex[document.request, default: 0]
            sentIndex[document.request] = index + 1
            guard let status = document.status else {
                if position == documents.count - 1, let error = failures[document.request] { failed = (document.url, error) }
                continue
            }
            if document.isDocument { documentStatus = status }
            let associated = sentCookies[document.request].flatMap { index < $0.count ? $0[index] : nil } ?? []
            let withheld = associated.filter(Self.isWithheldBySameSite).compactMap { $0["cookie"].flatMap(cookie) }
            hops.append(AuditBrowser.Hop(method: document.method, url: document.url, status: status, withheld: withheld))
        }
    }

    /// Whether Chromium kept a cookie from a request for a `SameSite` rule (`SameSiteLax`, `SchemefulSameSiteStrict`…).
    private static func isWithheldBySameSite(_ associated: JSONValue) -> Bool {
        guard case let .array(reasons) = associated["blockedReasons"] ?? .null else { return false }
        return reasons.contains { $0.stringValue?.contains("SameSite") ?? false }
    }

    /// `name: reason, reason` for a cookie Chromium refused to store.
    private static func refusal(_ blocked: JSONValue) -> String? {
        guard case let .array(reasons) = blocked["blockedReasons"] ?? .null, !reasons.isEmpty else { return nil }
        let name = blocked["cookie"]?["name"]?.stringValue
            ?? blocked["cookieLine"]?.stringValue.map { String($0.prefix { $0 != "=" }) } ?? "a cookie"
        return "\(name.prefix(64)): \(reasons.compactMap(\.stringValue).joined(separator: ", "))"
    }
}
