import Foundation
import MockAppleID

/// The audit's inputs as text, as `mock-appleid audit` and `POST /__admin/audit` take them, checked and
/// turned into an ``AuditConfiguration`` in one place.
public struct AuditRequest: Sendable, Equatable {
    /// The admin API's names for the fields, in this order; the command line's options are the same words
    /// (`signedIn` is `--signed-in`).
    public static let fields = ["start", "signedIn", "persona", "cases", "native", "nativeBody", "nativeNonceSHA256", "bundleID", "notifications",
                                "ca"]
    /// The most PEM text `ca` may hold.
    public static let caLimit = 64 * 1024

    public var start: String?
    public var signedIn: String?
    public var persona: String?
    /// Case ids and prefixes ending in `*`; nil runs every case.
    public var cases: [String]?
    public var native: String?
    public var nativeBody: String?
    public var nativeNonceSHA256: Bool
    public var bundleID: String?
    public var notifications: String?
    /// Certificate authorities to trust for a relying party served over https, in PEM (the command line's `--ca`
    /// names a file and sends its text).
    public var ca: String?

    /// Inputs as given; nil is not given.
    public init(start: String?, signedIn: String?, persona: String? = nil, cases: [String]? = nil, native: String? = nil,
                nativeBody: String? = nil, nativeNonceSHA256: Bool = false, bundleID: String? = nil, notifications: String? = nil,
                ca: String? = nil) {
        self.ca = ca
        self.start = start
        self.signedIn = signedIn
        self.persona = persona
        self.cases = cases
        self.native = native
        self.nativeBody = nativeBody
        self.nativeNonceSHA256 = nativeNonceSHA256
        self.bundleID = bundleID
        self.notifications = notifications
    }

    /// The inputs a JSON object gives under ``fields`` (other members are not read).
    public init(json: JSONValue) throws(AuditFailure) {
        func text(_ name: String) throws(AuditFailure) -> String? {
            guard let value = json[name], value != .null else { return nil }
            guard let text = value.stringValue else { throw AuditFailure("\(name) must be text") }
            return text
        }
        var cases: [String]?
        if let value = json["cases"], value != .null {
            guard case let .array(items) = value, items.allSatisfy({ $0.stringValue != nil }) else {
                throw AuditFailure("cases must be a list of case ids and prefixes ending in *")
            }
            cases = items.compactMap(\.stringValue)
        }
        var hashes = false
        if let value = json["nativeNonceSHA256"], value != .null {
            guard let flag = value.boolValue else { throw AuditFailure("nativeNonceSHA256 must be true or false") }
            hashes = flag
        }
        self.init(start: try text("start"), signedIn: try text("signedIn"), persona: try text("persona"), cases: cases,
                  native: try text("native"), nativeBody: try text("nativeBody"), nativeNonceSHA256: hashes,
                  bundleID: try text("bundleID"), notifications: try text("notifications"), ca: try text("ca"))
    }

    /// These inputs as the JSON object ``init(json:)`` reads (inputs not given are left out).
    public var json: JSONValue {
        let texts: [(String, String?)] = [("start", start), ("signedIn", signedIn), ("persona", persona), ("native", native),
                                          ("nativeBody", nativeBody), ("bundleID", bundleID), ("notifications", notifications), ("ca", ca)]
        var members = texts.compactMap { name, value in value.map { (name, JSONValue.string($0)) } }
        if let cases { members.append(("cases", .array(cases.map(JSONValue.string)))) }
        if nativeNonceSHA256 { members.append(("nativeNonceSHA256", .bool(true))) }
        return .object(members)
    }

    /// The configuration these inputs ask for; says which input is wrong when one is.
    public func configuration() throws(AuditFailure) -> AuditConfiguration {
        guard let start, let startURL = URL(string: start) else { throw AuditFailure("--start URL is required") }
        guard let signedIn, let signedInURL = URL(string: signedIn) else { throw AuditFailure("--signed-in URL is required") }
        var selected = AuditCase.allCases
        if let cases {
            let patterns = cases.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            let chosen = AuditCase.selected(by: patterns)
            guard chosen.unmatched.isEmpty else {
                throw AuditFailure("no case matches \(chosen.unmatched.joined(separator: ", ")) (mock-appleid audit --list-cases lists them)")
            }
            selected = chosen.cases
        }
        var backend: NativeBackend?
        if let native {
            guard let url = URL(string: native) else { throw AuditFailure("--native must be a URL") }
            backend = NativeBackend(url: url, bodyTemplate: nativeBody ?? NativeBackend.defaultBody, hashesNonce: nativeNonceSHA256, bundleID: bundleID)
        } else if nativeBody != nil || nativeNonceSHA256 || bundleID != nil {
            throw AuditFailure("--native-body, --native-nonce-sha256 and --bundle-id describe the iOS backend: give --native too")
        }
        var notificationsURL: URL?
        if let notifications {
            guard let url = URL(string: notifications) else { throw AuditFailure("--notifications must be a URL") }
            notificationsURL = url
        }
        if let ca, ca.utf8.count > Self.caLimit { throw AuditFailure("--ca must be at most \(Self.caLimit / 1024) KB of PEM") }
        var configuration = AuditConfiguration(startURL: startURL, signedInURL: signedInURL, persona: persona ?? "jane", cases: selected,
                                               native: backend, notificationsURL: notificationsURL)
        configuration.trustedCertificates = ca
        return configuration
    }
}
