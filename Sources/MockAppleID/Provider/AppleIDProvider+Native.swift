import Foundation

/// A native sign-in as an app starts it with `ASAuthorizationAppleIDProvider`: who, for which bundle
/// id, with which nonce and scopes.
public struct NativeSignInRequest: Sendable, Equatable {
    public var personaID: String
    /// A registered bundle id (the identity token's `aud`).
    public var bundleID: String
    /// The nonce the app passed (often the SHA-256 hex of a raw nonce), copied verbatim.
    public var nonce: String?
    public var scopes: [Scope]
    /// Share or hide on a first authorization (nil: the persona's default).
    public var emailChoice: EmailChoice?
    /// Overrides the persona's `real_user_status` for this sign-in.
    public var realUserStatus: RealUserStatus?

    public init(personaID: String, bundleID: String, nonce: String? = nil, scopes: [Scope] = [.name, .email],
                emailChoice: EmailChoice? = nil, realUserStatus: RealUserStatus? = nil) {
        self.personaID = personaID
        self.bundleID = bundleID
        self.nonce = nonce
        self.scopes = scopes
        self.emailChoice = emailChoice
        self.realUserStatus = realUserStatus
    }
}

/// What the app receives in `ASAuthorizationAppleIDCredential`.
public struct NativeCredential: Sendable, Equatable, Codable {
    /// The identity token (`aud` = bundle id, `c_hash`, `nonce` as given, `real_user_status` on a first authorization).
    public let identityToken: String
    /// Redeemable once within the code lifetime at `/auth/token` with `client_id` = bundle id and no `redirect_uri`.
    public let authorizationCode: String
    /// The team-scoped user id (`sub`).
    public let user: String
    /// The real or relay address, on a first authorization with the email scope only (the identity
    /// token keeps carrying it on every sign-in).
    public let email: String?
    /// The name, on a first authorization with the name scope only.
    public let fullName: PersonName?
    /// `realUserStatus` as the credential reports it (0, 1 or 2).
    public let realUserStatus: Int
    /// Whether this was the persona's first authorization to the app group.
    public let firstAuthorization: Bool
}


extension AppleIDProvider {
    /// Mints what a native app receives from a successful Sign in with Apple.
    public func nativeSignIn(_ request: NativeSignInRequest, origin: RequestOrigin = .swift) throws(AppleError) -> NativeCredential {
        try answering(.nativeSignIn, origin: origin, clientID: request.bundleID) { (now, events) throws(AppleError) in
            guard let client = directory.client(request.bundleID), client.kind == .native else {
                throw AppleError(.invalidClient, reason: "\"\(request.bundleID)\" is not a registered bundle id (a native sign-in needs one, not a Services ID)")
            }
            if let nonce = request.nonce, nonce.utf8.count > Self.nonceLimit {
                throw AppleError(.invalidRequest, reason: "nonce is longer than \(Self.nonceLimit) bytes")
            }
            let code = AppleIdentifiers.opaqueToken(prefix: "c")
            let signInRequest = SignInRequest(client: client, personaID: request.personaID, scopes: request.scopes,
                                              emailChoice: request.emailChoice, redirectURI: nil, nonce: request.nonce,
                                              challenge: nil, native: true, realUserStatus: request.realUserStatus)
            let (signIn, fault) = try world.commit(at: now) { (state, events) throws(AppleError) in
                let signIn = try state.approve(signInRequest, code: code, now: now, limits: grantLimits, events: &events)
                return (signIn, state.takeFault(.idToken, clientID: client.id, transport: false, events: &events))
            }.value(addingEventsTo: &events)
            let status = request.realUserStatus ?? signIn.persona.realUserStatus
            let identity = IdentityResolver.identity(of: signIn.persona, relayAddress: signIn.relayAddress, subject: signIn.subject,
                                                     consent: signIn.consent, client: client,
                                                     realUserStatus: signIn.isFirstConsent ? status : nil, transferSubject: signIn.transferSubject)
            let token = try signIdentityToken(identity, grant: .authorization(code: code, nonce: request.nonce, authTime: now),
                                              now: now, fault: fault?.identityTokenFault)
            let name = signIn.isFirstConsent && signIn.consent.scopes.contains(.name)
                ? PersonName(firstName: signIn.persona.firstName, lastName: signIn.persona.lastName) : nil
            return NativeCredential(identityToken: token, authorizationCode: code, user: signIn.subject,
                                    email: signIn.isFirstConsent ? identity.email?.address : nil,
                                    fullName: name, realUserStatus: signIn.isFirstConsent ? status.rawValue : RealUserStatus.unknown.rawValue,
                                    firstAuthorization: signIn.isFirstConsent)
        }
    }

    /// The longest nonce accepted.
    public static let nonceLimit = 1024
}
