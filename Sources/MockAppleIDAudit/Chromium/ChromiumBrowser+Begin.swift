import Foundation
import MockAppleID

/// How a sign-in begins in the real browser: a fresh window, the start page, the click, and the window that reaches
/// Apple's authorize endpoint; or why none did.
extension ChromiumBrowser {
    /// Opens `start` in a fresh window (no cookies; no storage of the start page's origin), clicks
    /// ``ChromiumOptions/click`` when given (else follows the page's link to Apple, if it shows one), and waits for a
    /// window (the page's own, or a popup it opened) to reach Apple's authorize endpoint; the navigation ends there.
    func begin(_ start: URL, jar: inout BrowserCookieJar) async throws(AuditFailure) -> (AuditBrowser.Navigation, Windows) {
        do {
            let (page, older) = try await freshWindow()
            let origin = AuthorizationDelivery.origin(of: start.absoluteString)
            try await driver.devTools("Storage.clearDataForOrigin", .object([("origin", .string(origin)), ("storageTypes", .string("all"))]))
            try await driver.devTools("Network.clearBrowserCookies")
            // The console's messages so far are other pages'.
            try await driver.command(.POST, "/se/log", .object([("type", .string("browser"))]))
            var navigation = await step(in: page, jar: &jar, timeout: .seconds(15)) {
                try await self.driver.command(.POST, "/url", .object([("url", .string(start.absoluteString))]))
                return []
            }
            let pageStatus = navigation.finalStatus ?? 200
            guard case .page = navigation.end else { return (navigation, Windows(page: page, authorize: page, pageStatus: pageStatus)) }
            _ = try await driver.performanceLog()
            if let click {
                try await clickToBegin(click, on: navigation, older: older)
            } else if let link = AuthorizeLink.find(in: navigation.finalBody, serverBaseURL: server) {
                try await driver.command(.POST, "/url", .object([("url", .string(link.absoluteString))]))
            } else {
                throw AuditFailure("the start URL never reached Apple's authorize endpoint at \(server.absoluteString)/auth/authorize (\(navigation.summary)); "
                                   + "is the relying party configured with this server, or does its sign-in start with a click (--click)?"
                                   + ((try? await pageReport(older: older)) ?? ""))
            }
            guard let (authorize, window) = try await windowAtAuthorize(page: page, excluding: older) else {
                throw AuditFailure("after \(click.map { "clicking \($0)" } ?? "following the start page's link"), no window reached Apple's authorize endpoint "
                                   + "within \(Self.authorizeWait.components.seconds) s (\(navigation.summary))" + ((try? await pageReport(older: older)) ?? ""))
            }
            let rest = NetworkLog(try await driver.performanceLog(of: page), cookie: DevToolsCookies.cookie)
            navigation.hops += rest.hops
            navigation.end = .authorize(authorize)
            try await readCookies(into: &jar, refused: rest.refused)
            return (navigation, Windows(page: page, authorize: window, pageStatus: pageStatus))
        } catch {
            if let failure = error as? AuditFailure { throw failure }
            throw AuditFailure("Chromium could not follow the start URL: \(error)")
        }
    }

    /// Clicks `selector` on the start page, explaining a selector that matches nothing.
    private func clickToBegin(_ selector: String, on start: AuditBrowser.Navigation, older: Set<String>) async throws(AuditFailure) {
        do {
            try await driver.command(.POST, "/timeouts", .object([("implicit", .int(5000))]))
            let element = try await driver.command(.POST, "/element", .object([("using", .string("css selector")), ("value", .string(selector))]))
            try await driver.command(.POST, "/timeouts", .object([("implicit", .int(0))]))
            guard case let .object(members) = element, let id = members.first?.1.stringValue else {
                throw ChromeDriver.CommandError(code: "no such element", message: "")
            }
            try await driver.command(.POST, "/element/\(id)/click")
        } catch let error as ChromeDriver.CommandError where error.code == "no such element" || error.code == "invalid selector" {
            let what = error.code == "invalid selector" ? "is not a CSS selector Chromium takes" : "matched nothing within 5 s"
            let report = (try? await pageReport(older: older)) ?? ""
            throw AuditFailure("--click \(selector) \(what) on \(start.hops.last?.url.absoluteString ?? "the start page")" + report)
        } catch {
            throw AuditFailure("--click \(selector) could not be clicked: \(error)")
        }
    }

    /// The window at Apple's authorize endpoint, `page` or a popup it opened (a window not among `older`), looked for until
    /// ``authorizeWait``; it is left current.
    private func windowAtAuthorize(page: String, excluding older: Set<String>) async throws(ChromeDriver.CommandError) -> (URL, String)? {
        let deadline = ContinuousClock.now + Self.authorizeWait
        repeat {
            guard case let .array(handles) = try await driver.command(.GET, "/window/handles") else { return nil }
            for handle in handles.compactMap(\.stringValue).reversed() where !older.contains(handle) {
                try await driver.command(.POST, "/window", .object([("handle", .string(handle))]))
                if let url = try await driver.command(.GET, "/url").stringValue.flatMap(URL.init(string:)), scope.isAuthorize(url) { return (url, handle) }
            }
            do { try await Task.sleep(for: .milliseconds(100)) } catch { break }
        } while ContinuousClock.now < deadline
        _ = try? await driver.command(.POST, "/window", .object([("handle", .string(page))]))
        return nil
    }

    /// What the page shows, for a sign-in that never reached Apple: how many windows it opened (those not among `older`),
    /// its URL and text, its console's errors and the cookies it set.
    private func pageReport(older: Set<String>) async throws(ChromeDriver.CommandError) -> String {
        var lines: [String] = []
        if case let .array(handles) = try await driver.command(.GET, "/window/handles") {
            let opened = handles.compactMap(\.stringValue).filter { !older.contains($0) }.count - 1
            lines.append(opened == 0 ? "it opened no other window" : "it opened \(opened) other window\(opened == 1 ? "" : "s")")
        }
        let url = try await driver.command(.GET, "/url").stringValue ?? ""
        let text = try await driver.execute("return document.body ? document.body.innerText : '';").stringValue ?? ""
        lines.append("page \(url): \"\(text.split(whereSeparator: \.isNewline).joined(separator: " ").prefix(300))\"")
        let errors = try await consoleErrors()
        if !errors.isEmpty { lines.append("console errors: " + errors.joined(separator: " | ")) }
        if case let .array(cookies) = try await driver.devTools("Network.getAllCookies")["cookies"] ?? .null {
            lines.append("cookies set: " + (cookies.isEmpty ? "none" : cookies.compactMap(DevToolsCookies.cookie).map(\.label).joined(separator: ", ")))
        }
        return "; " + lines.joined(separator: "; ")
    }

    /// The errors the pages' consoles logged since the sign-in began (or since the last call), each bounded.
    func consoleErrors() async throws(ChromeDriver.CommandError) -> [String] {
        guard case let .array(entries) = try await driver.command(.POST, "/se/log", .object([("type", .string("browser"))])) else { return [] }
        return entries.filter { $0["level"]?.stringValue == "SEVERE" }.compactMap { $0["message"]?.stringValue.map { String($0.prefix(300)) } }
    }

    /// A new window, made current, and the windows open before it; the oldest windows are closed beyond ``windowLimit``.
    private func freshWindow() async throws(ChromeDriver.CommandError) -> (String, older: Set<String>) {
        guard let fresh = try await driver.command(.POST, "/window/new", .object([("type", .string("tab"))]))["handle"]?.stringValue,
              case let .array(handles) = try await driver.command(.GET, "/window/handles") else {
            throw ChromeDriver.CommandError(code: "no such window", message: "Chromium opened no new window")
        }
        let older = handles.compactMap(\.stringValue).filter { $0 != fresh }
        for handle in older.dropLast(Self.windowLimit - 1) {
            try await driver.command(.POST, "/window", .object([("handle", .string(handle))]))
            try await driver.command(.DELETE, "/window")
        }
        try await driver.command(.POST, "/window", .object([("handle", .string(fresh))]))
        return (fresh, Set(older))
    }
}
