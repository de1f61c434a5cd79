import Foundation
import Yams

/// A position in a parsed scenario document: a node with its key path, for reading typed values
/// and failing with the file, line and key path of the offending node.
struct YAMLCursor {
    let node: Node
    let path: String
    let file: String

    func error(_ message: String) -> ScenarioError {
        ScenarioError(file: file, line: node.mark?.line, column: node.mark?.column, keyPath: path, message: message)
    }

    /// This node as a mapping whose keys must all be in `allowed` (a misspelt key is an error, not ignored).
    func mapping(allowed: [String]) throws(ScenarioError) -> YAMLMapping {
        guard let mapping = node.mapping else { throw error("expected a mapping (key: value pairs)") }
        var members: [String: YAMLCursor] = [:]
        for (key, value) in mapping {
            guard let name = key.string else { throw child(key, "?").error("keys must be strings") }
            guard allowed.contains(name) else {
                throw child(key, name).error("unknown key \"\(name)\"; expected one of: \(allowed.joined(separator: ", "))")
            }
            members[name] = child(value, name)
        }
        return YAMLMapping(cursor: self, members: members)
    }

    func sequence() throws(ScenarioError) -> [YAMLCursor] {
        guard let sequence = node.sequence else { throw error("expected a list") }
        return sequence.enumerated().map { YAMLCursor(node: $1, path: "\(path)[\($0)]", file: file) }
    }

    func string() throws(ScenarioError) -> String {
        guard case let .scalar(scalar) = node else { throw error("expected a text value") }
        return scalar.string
    }

    func nonEmptyString() throws(ScenarioError) -> String {
        let value = try string()
        guard value.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) else { throw error("must not be empty") }
        return value
    }

    func bool() throws(ScenarioError) -> Bool {
        guard let value = plainBoolean else { throw error("expected true or false") }
        return value
    }

    func number() throws(ScenarioError) -> Double {
        guard let value = plainDecimal.map(Double.init) ?? (node.scalar != nil ? node.float : nil) else { throw error("expected a number") }
        return value
    }

    /// A whole number within `range`.
    func integer(in range: ClosedRange<Int>) throws(ScenarioError) -> Int {
        guard let value = plainDecimal ?? (node.scalar != nil ? node.int : nil), range.contains(value) else {
            throw error("expected a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    func stringList() throws(ScenarioError) -> [String] {
        var values: [String] = []
        for item in try sequence() { values.append(try item.nonEmptyString()) }
        return values
    }

    /// A value from a fixed set of spellings.
    func oneOf<T>(_ options: [(String, T)]) throws(ScenarioError) -> T {
        let text = try string()
        guard let match = options.first(where: { $0.0 == text }) else {
            throw error("\"\(text)\" is not one of: \(options.map(\.0).joined(separator: ", "))")
        }
        return match.1
    }

    /// This node as JSON: plain scalars that read as null, booleans or numbers become those, other
    /// scalars text; nesting deeper than 32 levels is refused.
    func jsonValue(depth: Int = 0) throws(ScenarioError) -> JSONValue {
        guard depth < 32 else { throw error("nested more than 32 levels deep") }
        switch node {
        case .scalar:
            if isNull() { return .null }
            guard node.scalar?.style == .plain else { return .string(try string()) }
            if let value = plainBoolean { return .bool(value) }
            if let value = plainDecimal ?? node.int { return .int(Int64(value)) }
            if let value = node.float, value.isFinite { return .double(value) }
            return .string(try string())
        case .sequence:
            var values: [JSONValue] = []
            for item in try sequence() { values.append(try item.jsonValue(depth: depth + 1)) }
            return .array(values)
        case let .mapping(mapping):
            var members: [(String, JSONValue)] = []
            for (key, value) in mapping {
                guard let name = key.string else { throw error("keys must be text") }
                members.append((name, try YAMLCursor(node: value, path: path.isEmpty ? name : "\(path).\(name)", file: file).jsonValue(depth: depth + 1)))
            }
            return .object(members)
        case .alias:
            throw error("YAML aliases are not supported here")
        }
    }

    /// A plain scalar of decimal digits (with a sign), read without Yams' constructors, which try every
    /// spelling YAML 1.1 allows (hexadecimal, sexagesimal, …) and cost a scenario's start; nil for any
    /// other scalar, which those constructors then read.
    private var plainDecimal: Int? {
        guard case let .scalar(scalar) = node, scalar.style == .plain else { return nil }
        return Int(scalar.string)
    }

    /// A plain scalar spelt as YAML 1.1's true or false (`true`, `yes`, `on`, … in lower, title or upper
    /// case); a quoted one is text. The document is composed without Yams' implicit typing (see
    /// ``ScenarioLoader``), so scalars are read here by their spelling.
    private var plainBoolean: Bool? {
        guard case let .scalar(scalar) = node, scalar.style == .plain else { return nil }
        switch scalar.string {
        case "true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON": return true
        case "false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF": return false
        default: return nil
        }
    }

    func isNull() -> Bool {
        guard case let .scalar(scalar) = node else { return false }
        return scalar.style == .plain && ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }

    private func child(_ node: Node, _ key: String) -> YAMLCursor {
        YAMLCursor(node: node, path: path.isEmpty ? key : "\(path).\(key)", file: file)
    }
}

/// A mapping whose keys have been checked against the allowed set.
struct YAMLMapping {
    let cursor: YAMLCursor
    let members: [String: YAMLCursor]

    func optional(_ key: String) -> YAMLCursor? { members[key] }

    func required(_ key: String) throws(ScenarioError) -> YAMLCursor {
        guard let member = members[key] else { throw cursor.error("missing required key \"\(key)\"") }
        return member
    }
}
