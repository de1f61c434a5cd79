import MockAppleID

/// Where a world is kept between runs: a state file, a database. A provider's world kept in one (see
/// ``AppleIDProvider/keepState(in:)``) writes each change as a few rows and reads them all back at the next start.
public protocol WorldStore: Sendable {
    /// What to call the store in messages (a file's path).
    var name: String { get }

    /// Every row kept for `scenario`; none for a new store, which from then on belongs to `scenario`.
    /// Throws when the store belongs to another scenario or cannot be read.
    func loadRows(scenario: String) async throws(StateStoreError) -> [WorldRow]

    /// Writes `changes` in one atomic step: each row replaces the row with its section and key, and a
    /// change without a value removes it. With `replacingAll`, every other row is removed first.
    func write(_ changes: [WorldRowChange], replacingAll: Bool) async throws(StateStoreError)
}
