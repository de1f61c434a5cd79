/// Who signed in to which client, with what was consented: everything an identity token says
/// about the user, independent of the grant that issues it.
public struct SignedInIdentity: Sendable, Equatable {
    /// The client the token is for (`aud`).
    public let clientID: String
    /// The team-scoped user id (`sub`).
    public let subject: String
    /// The email claim, if the email scope was granted at first consent.
    public let email: EmailClaim?
    /// `real_user_status`, for native first sign-ins only (never for web).
    public let realUserStatus: RealUserStatus?
    /// `org_id` for Managed Apple Accounts.
    public let orgID: String?
    /// `transfer_sub` for 60 days after the app moved to another team.
    public let transferSubject: String?

    public init(clientID: String, subject: String, email: EmailClaim?, realUserStatus: RealUserStatus?, orgID: String?,
                transferSubject: String? = nil) {
        self.transferSubject = transferSubject
        self.clientID = clientID
        self.subject = subject
        self.email = email
        self.realUserStatus = realUserStatus
        self.orgID = orgID
    }
}

/// The email claims of a token.
public struct EmailClaim: Sendable, Equatable {
    /// The real address or the team's relay address.
    public let address: String
    public let verified: Bool
    /// True for a relay address (then `is_private_email` is emitted; absent otherwise, as Apple does).
    public let isPrivate: Bool

    public init(address: String, verified: Bool, isPrivate: Bool) {
        self.address = address
        self.verified = verified
        self.isPrivate = isPrivate
    }
}
