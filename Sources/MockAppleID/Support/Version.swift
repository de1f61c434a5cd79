/// The version of mock-appleid, as `mock-appleid --version` prints it and the audit's report names it; the
/// Python package carries the same (a test holds them equal).
public enum MockAppleIDVersion {
    public static let current = "0.1.0"
}
