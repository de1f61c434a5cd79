/// How the world refused an operation, as every public error of its operations reports it: the kind of
/// refusal (which the admin API turns into its status, in one place) and a stable code. The message is
/// the error's description.
public protocol Refusal: Error, CustomStringConvertible {
    var kind: RefusalKind { get }
    /// What the admin API's `error` member says: `bad_request`, `not_found` or `conflict` unless the
    /// error names itself more closely (`persona_exists`).
    var code: String { get }
}

/// What kind of refusal an operation met.
public enum RefusalKind: Sendable {
    /// The request itself is wrong (a bad value, a rule broken).
    case invalid
    /// Something it names does not exist.
    case notFound
    /// It conflicts with the world as it is (a name taken, an active key).
    case conflict
}

extension Refusal {
    public var code: String {
        switch kind {
        case .invalid: return "bad_request"
        case .notFound: return "not_found"
        case .conflict: return "conflict"
        }
    }
}

extension PersonaError: Refusal {
    public var kind: RefusalKind {
        switch base {
        case .notFound: return .notFound
        case .alreadyExists: return .conflict
        case .invalid: return .invalid
        }
    }

    public var code: String {
        switch base {
        case .notFound: return "not_found"
        case .alreadyExists: return "persona_exists"
        case .invalid: return "invalid_persona"
        }
    }
}

extension NotificationError: Refusal {
    public var kind: RefusalKind {
        switch base {
        case .unknownPersona, .unknownApp: return .notFound
        case .invalidURL, .noRelayAddress: return .invalid
        }
    }
}

extension TransferError: Refusal {
    public var kind: RefusalKind {
        switch base {
        case .unknownApp, .unknownTeam: return .notFound
        case .sameTeam, .tooMany: return .conflict
        }
    }
}

extension EmailSourceError: Refusal {
    public var kind: RefusalKind {
        switch base {
        case .unknownTeam, .notRegistered: return .notFound
        case .invalid: return .invalid
        }
    }
}

extension KeyRing.Failure: Refusal {
    public var kind: RefusalKind {
        if case .unknownKey = base { return .notFound }
        return .conflict
    }

    public var code: String { kind == .notFound ? "not_found" : "key_conflict" }
}

extension FaultSpecError: Refusal {
    public var kind: RefusalKind { .invalid }
}

extension TimeRange.Failure: Refusal {
    public var kind: RefusalKind { .invalid }
}

extension ScenarioError: Refusal {
    public var kind: RefusalKind { .invalid }
}
