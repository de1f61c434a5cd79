import Foundation
import MockAppleID
import Testing

@Suite("identity-token faults that leave a claim out or make sub an array")
struct IdentityTokenFaultClaimsTests {
    let builder = IdentityTokenClaims(issuer: "https://appleid.apple.com", options: ClaimOptions())
    let identity = SignedInIdentity(clientID: "com.example.web", subject: "000123.abc.0456", email: nil, realUserStatus: nil, orgID: nil)
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let grants: [IdentityTokenClaims.Grant] = [
        .authorization(code: "code", nonce: "n", authTime: Date(timeIntervalSince1970: 1_800_000_000)),
        .codeExchange(accessToken: "access", nonce: "n", authTime: Date(timeIntervalSince1970: 1_800_000_000)),
        .refresh(accessToken: "access"),
    ]

    private func names(_ claims: JSONValue) -> [String] {
        guard case let .object(members) = claims else { return [] }
        return members.map(\.0)
    }

    @Test("each omitting fault leaves out exactly its claim, in every grant's token; the others leave every claim in")
    func omitted() {
        for grant in grants {
            let honest = builder.claims(for: identity, grant: grant, now: now)
            for fault in Fault.IdentityTokenFault.allCases {
                let broken = builder.claims(for: identity, grant: grant, now: now, fault: fault)
                if let claim = fault.omittedClaim {
                    #expect(names(honest).contains(claim))
                    #expect(names(broken) == names(honest).filter { $0 != claim }, "\(fault)")
                } else if ![.noNonce, .algNone, .audienceArray].contains(fault) {
                    // no-nonce drops nonce, alg none at_hash, and an audience array adds azp; the others keep every name.
                    #expect(names(broken) == names(honest), "\(fault)")
                }
            }
        }
        #expect(Set(Fault.IdentityTokenFault.allCases.compactMap(\.omittedClaim)) == ["sub", "iss", "aud", "exp", "iat"])
    }

    @Test("subject-array makes sub the person's sub and another")
    func subjectArray() {
        let claims = builder.claims(for: identity, grant: .refresh(accessToken: "access"), now: now, fault: .subjectArray)
        #expect(claims["sub"] == .array([.string(identity.subject), .string(IdentityTokenClaims.otherSubject(than: identity.subject))]))
    }
}
