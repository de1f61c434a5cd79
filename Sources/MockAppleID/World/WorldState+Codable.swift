import Foundation

/// A snapshot (``WorldSnapshot``) of the state, section by section (see ``StateSection``): the
/// registrations, personas and keys must be there; every other section may be missing, as in a
/// snapshot taken before the section existed, and starts empty.
extension WorldState {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(directory: try container.decode(Directory.self, forKey: .directory),
                  personas: try container.decode([Persona].self, forKey: .personas),
                  keys: try container.decode(KeyRing.self, forKey: .keys))
        for section in Self.sections where ![.directory, .personas, .keys].contains(section.name) {
            try section.decodeIfPresent(container, into: &self)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        for section in Self.sections { try section.encode(self, to: &container) }
    }
}
