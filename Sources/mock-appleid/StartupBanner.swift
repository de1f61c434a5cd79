import Foundation
import MockAppleID
import MockAppleIDServer

/// The block `serve` prints once listening: where it is, what is registered, who can sign in and
/// where the relying party's developer key is.
struct StartupBanner {
    let provider: AppleIDProvider
    let running: RunningServer
    let scenarioSource: String
    let relayForward: String?
    /// Whether the admin API requires a Bearer token (`--admin-token`).
    let adminTokenRequired: Bool
    /// The state file (`--state`), and whether the world was restored from it.
    var stateFile: (path: String, restored: Bool)?
    var sharedStore: (name: String, restored: Bool)?
    /// The oldest TLS version the HTTPS listener accepts.
    var tlsMinimumVersion = TLSProtocolVersion.default

    var text: String {
        do {
            let base = running.baseURL
            var lines = [
                "mock-appleid listening on \(base)",
                "  scenario:    \(provider.scenario.name) (\(scenarioSource))",
                "  discovery:   \(base)/.well-known/openid-configuration",
                "  issuer:      \(provider.settings.issuer)",
                // A key is given to libcrypto when it first signs (under auto, libcrypto itself is loaded then, and
                // a notice says what was found); a key it cannot use is named in a warning then.
                "  RS256 by:    \(RSASigning.choiceDescription)",
                "  admin API:   \(base)/__admin/health (\(adminTokenRequired ? "Bearer token required" : "loopback clients only"))",
            ]
            if let stateFile {
                lines.append("  state file:  \(stateFile.path) (\(stateFile.restored ? "world restored from it" : "new; the scenario's start saved in it"); every change saved before it is acknowledged)")
            }
            if let sharedStore {
                lines.append("  database:    \(sharedStore.name) (\(sharedStore.restored ? "joined the world it holds" : "new; the scenario's start saved in it"); shared with every server on it)")
            }
            if !running.tenantNames.isEmpty {
                lines.append("  tenants:     \(running.tenantNames.map { "\(base)/t/\($0)" }.joined(separator: ", "))")
            }
            lines += httpsLines()
            if !ReturnURLPolicy.isLoopback(running.host) {
                lines.append(adminTokenRequired
                    ? "  WARNING: listening on \(running.host): every host that can reach it and has the admin token controls this server"
                    : "  WARNING: listening on \(running.host): other hosts can sign in here; the admin API still answers loopback clients only (--admin-token opens it)")
            }
            if let smtpPort = running.smtpPort {
                lines.append("  SMTP relay:  \(running.host):\(smtpPort) (mail to relay addresses; inboxes at \(base)/__admin/relay/inbox)")
                if let relayForward { lines.append("  forwarding:  every relayed message to \(relayForward)") }
            }
            lines += [
                "",
                "Apps:",
            ]
            for group in provider.scenario.groups {
                lines.append("  team \(group.teamID), app group \(group.primaryAppID)")
                for bundleID in group.bundleIDs { lines.append("    client_id \(bundleID) (native)") }
                for service in group.servicesIDs {
                    lines.append("    client_id \(service.id) (web), return URLs:")
                    lines += service.returnURLs.map { "      \($0)" }
                }
            }
            lines += ["", "Developer keys (sign client_secret with ES256; iss = Team ID, kid = Key ID):"]
            for team in provider.scenario.teams {
                for key in team.developerKeys.values.sorted(by: { $0.kid < $1.kid }) {
                    lines.append("  team \(team.id) key \(key.kid): \(DeveloperKeyLocation(key).description)\(key.revoked ? " (revoked)" : "")")
                }
            }
            lines += ["", "Personas:"]
            for persona in provider.personas() {
                let email = persona.email.map { "\($0), \(persona.emailChoice == .hide ? "hides" : "shares") email" } ?? "no email"
                lines.append("  \(persona.id): \(persona.firstName) \(persona.lastName) <\(email)>\(persona.managed ? ", managed" : "")")
            }
            if let auto = provider.autoApprove() {
                lines += ["", "Auto-approve: on, as \(auto.persona)\(auto.emailChoice.map { " (\($0.rawValue) email)" } ?? "")"]
            }
            lines.append("\nPress Ctrl-C to stop.")
            return lines.joined(separator: "\n")
        }
    }

    /// The HTTPS listener's addresses and, for the local CA, how to trust it.
    private func httpsLines() -> [String] {
        guard let httpsPort = running.httpsPort else { return [] }
        let hosts = [AppleHostNames.identity, AppleHostNames.cdn, "localhost"].compactMap { running.httpsBaseURL(host: $0) }
        var lines = ["  HTTPS:       \(hosts.joined(separator: ", ")) (HTTP/2 and HTTP/1.1; endpoints advertised as https://)"]
        if tlsMinimumVersion < .default {
            lines.append("  WARNING: HTTPS accepts TLS \(tlsMinimumVersion.rawValue) and later (--tls-min-version); Apple's servers and current browsers refuse anything before TLS \(TLSProtocolVersion.default.rawValue)")
        } else if tlsMinimumVersion > .default {
            lines.append("  TLS:         \(tlsMinimumVersion.rawValue) and later only (--tls-min-version)")
        }
        if let authority = running.certificateAuthority {
            do {
                lines += try TrustInstructions(authority: authority, httpsPort: httpsPort).text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            } catch {
                lines.append("  CA:          cannot be described: \(error)")
            }
            lines.append("")
        } else {
            lines.append("  certificate: from --tls-cert (clients must trust its issuer)")
        }
        return lines
    }
}
