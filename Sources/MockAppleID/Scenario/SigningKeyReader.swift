import Foundation

/// Key text from a scenario entry: `file:` (read through the resources) or inline `pem:`.
struct KeyMaterial {
    let resources: any ScenarioResources

    /// The text, the node it came from and the file's location (nil for inline keys).
    func read(_ map: YAMLMapping, owner: YAMLCursor) throws(ScenarioError) -> (String, YAMLCursor, String?) {
        switch (map.optional("file"), map.optional("pem")) {
        case let (file?, nil):
            let path = try file.nonEmptyString()
            do { return (try resources.text(at: path), file, resources.location(of: path)) } catch {
                throw file.error("cannot read key file \"\(path)\" (paths are relative to the scenario file)")
            }
        case let (nil, pem?):
            return (try pem.nonEmptyString(), pem, nil)
        case (.some, .some):
            throw owner.error("give either file or pem, not both")
        case (nil, nil):
            throw owner.error("a key needs file (a path) or pem (the key text)")
        }
    }
}

/// Reads a signing key entry (`kid`, `alg`, and `file`, `pem` or, in a timeline, `generate: true`).
struct SigningKeyReader {
    let resources: any ScenarioResources

    func read(_ map: YAMLMapping, generateAllowed: Bool) throws(ScenarioError) -> SigningKey {
        let kidNode = try map.required("kid")
        let kid = try kidNode.nonEmptyString()
        guard SigningKey.isValidKeyID(kid) else { throw kidNode.error("kid must be 1 to 64 letters, digits, - or _") }
        let alg = try map.optional("alg")?.oneOf(JWSAlgorithm.allCases.map { ($0.rawValue, $0) }) ?? .rs256
        if generateAllowed, let generate = map.optional("generate"), try generate.bool() {
            do {
                let pem = try KeyGenerator.generate(alg == .rs256 ? .rsa : .ec, kid: kid).pem
                return try SigningKey(kid: kid, algorithm: alg, pem: pem)
            } catch {
                throw generate.error("could not generate a key: \(error)")
            }
        }
        let (pem, source, _) = try KeyMaterial(resources: resources).read(map, owner: map.cursor)
        do { return try SigningKey(kid: kid, algorithm: alg, pem: pem) } catch {
            throw source.error("not a usable \(alg.rawValue) private key PEM: \(error)")
        }
    }
}
