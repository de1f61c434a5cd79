import Foundation

/// App transfers between teams and user migration (`grant_type=client_credentials` with
/// `scope=user.migration`, then `POST /auth/usermigrationinfo` in both directions).
extension AppleIDProvider {
    /// Moves the app group of `app` (a client id or primary App ID) to team `teamID` now: its users get
    /// that team's `sub` and relay addresses, and for 60 days `transfer_sub` in their identity tokens.
    @discardableResult
    public func transferApp(_ app: String, to teamID: String) throws(TransferError) -> AppTransfer {
        let now = clock.now
        return try world.transition(at: now) { (state, events) throws(TransferError) in
            guard let groupID = state.directory.group(named: app)?.primaryAppID else { throw .unknownApp(app) }
            return try state.transferApp(groupID: groupID, to: teamID, at: now, events: &events)
        }
    }

    /// ``transferApp(_:to:)`` when the clock reaches `date` (at once if it already has); a transfer that
    /// cannot be made then is logged as a failed scheduled change.
    @discardableResult
    public func scheduleTransfer(_ app: String, to teamID: String, at date: Date) -> MockClock.WorkID {
        let label = "transfer \(app) to team \(teamID)"
        return clock.scheduleOrRunDue(at: date, label: label) { [weak self] in
            guard let self else { return }
            do throws(TransferError) { try self.transferApp(app, to: teamID) } catch {
                self.world.record(.scheduledChangeFailed(label: label, reason: error.description), at: self.clock.now)
            }
        }
    }

    /// Every transfer so far, oldest first.
    public func transfers() -> [AppTransfer] { world.read { $0.transfers } }

    /// `grant_type=client_credentials`: a team access token for user migration (`scope=user.migration`).
    func teamAccessToken(_ form: FormParameters, client: Client, now: Date, events: inout [DomainEvent]) throws(AppleError) -> JSONValue {
        guard let scope = try nonEmpty(form, "scope") else { throw AppleError(.invalidRequest, reason: "scope is missing (user.migration)") }
        guard scope == UserMigration.scope else {
            throw AppleError(.invalidScope, reason: "client_credentials takes scope user.migration, not \"\(scope)\"")
        }
        let token = AppleIdentifiers.opaqueToken(prefix: "a")
        let grant = TeamAccessToken(teamID: client.teamID, clientID: client.id, expiresAt: now.addingTimeInterval(settings.accessTokenLifetime))
        world.commit(at: now) { state, events in
            state.storeTeamToken(token, grant, now: now)
            events.append(.teamTokenIssued(teamID: client.teamID, clientID: client.id))
        }.value(addingEventsTo: &events)
        return tokenResponse(accessToken: token, refreshToken: nil, idToken: nil)
    }

    /// `POST /auth/usermigrationinfo` (`bearer`: the `Authorization: Bearer` token). The sending team
    /// sends `sub` and `target` and gets `{"transfer_sub"}`; the recipient team sends `transfer_sub` and
    /// gets `{"sub", "email"?, "is_private_email"?}`. Every refusal but a bad client secret is `invalid_request`.
    public func userMigrationInfo(_ form: FormParameters, bearer: String?, origin: RequestOrigin = .swift) throws(AppleError) -> JSONValue {
        try answering(.userMigrationInfo, origin: origin, clientID: form.first("client_id")) { (now, events) throws(AppleError) in
            let client = try authenticate(form, now: now)
            guard let bearer, !bearer.isEmpty else {
                throw AppleError(.invalidRequest, reason: "Authorization: Bearer <access token> is required (grant_type=client_credentials, scope=user.migration)")
            }
            let (sub, target, transferSub) = (try nonEmpty(form, "sub"), try nonEmpty(form, "target"), try nonEmpty(form, "transfer_sub"))
            return try world.commit(at: now) { (state, events) throws(AppleError) -> JSONValue in
                guard let token = state.teamToken(bearer, at: now) else {
                    throw AppleError(.invalidRequest, reason: "the access token is unknown or expired")
                }
                guard token.teamID == client.teamID else {
                    throw AppleError(.invalidRequest, reason: "the access token belongs to team \(token.teamID), the client \(client.id) to team \(client.teamID)")
                }
                switch (sub, target, transferSub) {
                case let (sub?, target?, nil):
                    let transfer = try state.outgoingTransferSubject(sub: sub, teamID: client.teamID, target: target, at: now,
                                                                     afterTransfer: settings.errors.userMigrationInfoAfterTransfer)
                    events.append(.userMigrated(teamID: client.teamID, direction: "transfer_sub issued for team \(target)"))
                    return .object([("transfer_sub", .string(transfer))])
                case let (nil, nil, transferSub?):
                    let user = try state.incomingUser(transferSub: transferSub, teamID: client.teamID, at: now)
                    events.append(.userMigrated(teamID: client.teamID, direction: "transfer_sub resolved"))
                    return user
                default:
                    throw AppleError(.invalidRequest, reason: "send sub and target (sending team) or transfer_sub alone (recipient team)")
                }
            }.value(addingEventsTo: &events)
        }
    }
}
