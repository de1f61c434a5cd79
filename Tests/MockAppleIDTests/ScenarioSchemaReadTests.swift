import Foundation
import MockAppleID
import Testing

/// Every key the scenario reference lists (and the loader therefore allows) is read: given a value no key takes,
/// the load fails at that key. A key allowed but forgotten by the reader would load silently and fail here.
@Suite("scenario keys are read")
struct ScenarioSchemaReadTests {
    /// A scenario with every section present, as JSON objects, for one key at a time to be spoilt.
    static func document() -> [String: Any] {
        [
            "name": "every-section",
            "settings": [String: Any](), "claims": [String: Any](), "clock": [String: Any](), "notifications": [String: Any](),
            "relay": [String: Any](), "errors": [String: Any](), "faults": [Any](),
            "signingKeys": [["kid": "k1", "file": "Keys/signing-mRS1a8XkPq.pem"]],
            "teams": [["id": "MOCKTEAM01", "keys": [["kid": "MOCKKEY001", "file": "Keys/AuthKey_MOCKKEY001.p8"]],
                       "apps": [["primaryAppID": "com.example.app",
                                 "servicesIDs": [["id": "com.example.web", "returnURLs": ["https://app.example.com/callback"]]]]]]],
            "personas": [["id": "jane", "email": "jane@example.com"]],
            "autoApprove": ["persona": "jane"],
            "timeline": [["do": "exchangeCode", "secret": [String: Any]()], ["do": "advanceClock", "seconds": 1, "expect": [String: Any]()]],
        ]
    }

    /// Where a section's keys live in ``document()``: a path of object keys and list indexes.
    static func location(of section: String) -> [Any] {
        switch section {
        case "top": []
        case "signingKeys[]": ["signingKeys", 0]
        case "teams[]": ["teams", 0]
        case "teams[].keys[]": ["teams", 0, "keys", 0]
        case "teams[].apps[]": ["teams", 0, "apps", 0]
        case "teams[].apps[].servicesIDs[]": ["teams", 0, "apps", 0, "servicesIDs", 0]
        case "personas[]": ["personas", 0]
        case "timeline[].secret": ["timeline", 0, "secret"]
        case "timeline[].expect": ["timeline", 1, "expect"]
        default: [section]
        }
    }

    /// `value` with `key` set to `new` at `path`, and a key that excludes it (a key's `pem` excludes its `file`) removed.
    static func setting(_ key: String, to new: Any, at path: ArraySlice<Any>, in value: Any) -> Any {
        guard let step = path.first else {
            var object = value as? [String: Any] ?? [:]
            object[key] = new
            if key == "pem" { object["file"] = nil }
            return object
        }
        if let index = step as? Int, var list = value as? [Any] {
            list[index] = setting(key, to: new, at: path.dropFirst(), in: list[index])
            return list
        }
        var object = value as? [String: Any] ?? [:]
        let name = step as? String ?? ""
        object[name] = setting(key, to: new, at: path.dropFirst(), in: object[name] as Any)
        return object
    }

    @Test("the document with every section loads as it is")
    func wholeDocumentLoads() throws {
        let data = try JSONSerialization.data(withJSONObject: Self.document())
        _ = try ScenarioLoader.load(yaml: String(decoding: data, as: UTF8.self), file: "every.json",
                                    resources: DirectoryResources(baseDirectory: Fixtures.repositoryRoot))
    }

    @Test("each listed key, given a list of lists, fails the load at that key")
    func everyKeyIsRead() throws {
        #expect(ScenarioSchema.fields.count > 80)
        for field in ScenarioSchema.fields {
            let spoilt = Self.setting(field.key, to: [[1]], at: Self.location(of: field.section)[...], in: Self.document())
            let data = try JSONSerialization.data(withJSONObject: spoilt)
            do {
                _ = try ScenarioLoader.load(yaml: String(decoding: data, as: UTF8.self), file: "spoilt.json",
                                            resources: DirectoryResources(baseDirectory: Fixtures.repositoryRoot))
                Issue.record("\(field.section) \(field.key): a list of lists loaded, so the key is never read")
            } catch {
                #expect(error.keyPath.contains(field.key), "\(field.section) \(field.key): \(error)")
            }
        }
    }
}
