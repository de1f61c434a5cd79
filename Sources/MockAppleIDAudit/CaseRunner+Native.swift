import Foundation
import MockAppleID

extension CaseRunner {
    /// The identity token an iOS app posts to the relying party's backend, broken one way.
    func playNative(_ auditCase: AuditCase) async throws(AuditFailure) -> Outcome {
        guard let native = session.configuration.native else { return .skipped("no --native URL given: the iOS backend is not audited") }
        let bundleID = try session.bundleID(native, webClientID: learned.request.first("client_id") ?? "")
        var credential = try session.nativeCredential(native, bundleID: bundleID)
        guard let claims = TokenForgery.claims(of: credential.identityToken) else { return .skipped("Apple's side minted no readable token") }
        do {
            let forgery = TokenForgery(appleKey: apple.provider.keyRing().active)
            switch auditCase {
            case .nativeSignature: credential.identityToken = try forgery.badSignature(claims)
            case .nativeAudience:
                let other = apple.otherClient(ofTeamOf: learned.request.first("client_id") ?? "", excluding: bundleID)
                credential.identityToken = try forgery.signed(claims.setting("aud", .string(other)))
            case .nativeExpired: credential.identityToken = try forgery.signed(claims.expiredAnHourAgo)
            case .nativeNonce:
                credential.identityToken = try forgery.signed(claims.setting("nonce", .string(session.tokenNonce(native, raw: AppleIdentifiers.jwtID()))))
            case .nativeOtherTeam:
                let other = apple.clientOfAnotherTeam(than: bundleID)
                let subject = apple.subject(persona: persona, clientID: other) ?? "000000.audit.other.team"
                credential.identityToken = try forgery.signed(claims.setting("aud", .string(other)).setting("sub", .string(subject)))
            case .nativeSameTeamOtherApp:
                credential.identityToken = try forgery.signed(claims.setting("aud", .string(apple.otherApp(ofTeamOf: bundleID))))
            default: break
            }
        } catch {
            throw AuditFailure("could not forge the token: \(error)")
        }
        // Whoever forges a token has no code that Apple would redeem: a backend that checks the code refuses as well.
        credential.authorizationCode = "audit-unredeemable-code-" + AppleIdentifiers.jwtID()
        var evidence = ["bundle ID \(bundleID)"]
        if auditCase == .nativeSameTeamOtherApp { evidence.append("the token's aud: \(apple.otherApp(ofTeamOf: bundleID)), of the same team") }
        return .played(Played(observation: await session.postNative(native, credential), evidence: evidence))
    }
}

extension AppleSide {
    /// A client of a team other than `clientID`'s (a bundle ID first), for a token meant for another team's app.
    func clientOfAnotherTeam(than clientID: String) -> String {
        let directory = provider.directory
        let team = directory.client(clientID)?.teamID
        let others = directory.clients.filter { $0.teamID != team }
        return (others.first { $0.kind == .native } ?? others.first)?.id ?? "org.audit.other-team.app"
    }

    /// Another app (bundle ID) of `bundleID`'s team: one the scenario registers, or else one made up beside it.
    func otherApp(ofTeamOf bundleID: String) -> String {
        let directory = provider.directory
        let team = directory.client(bundleID)?.teamID
        return directory.clients.first { $0.teamID == team && $0.kind == .native && $0.id != bundleID }?.id ?? bundleID + ".audit-other-app"
    }

    /// The primary App ID of a group other than `clientID`'s, for a notification meant for another app.
    func otherAppGroup(than clientID: String) -> String {
        let directory = provider.directory
        let own = directory.group(named: clientID)?.primaryAppID
        return directory.groups.keys.sorted().first { $0 != own } ?? "org.audit.other.app"
    }
}
