/// The names the HTTPS listener answers as, and the only ones its local certificate authority may
/// vouch for.
public enum AppleHostNames {
    /// Apple's Sign in with Apple host: endpoints, discovery, keys.
    public static let identity = "appleid.apple.com"
    /// Apple's CDN host: the JS SDK and button images.
    public static let cdn = "appleid.cdn-apple.com"
    /// The names in the server certificate and the CA's permitted DNS names: both Apple hosts and `localhost`.
    public static let dnsNames = [identity, cdn, "localhost"]
    /// The CA's permitted IP ranges (address then mask): 127.0.0.0/8 and ::1/128, so it cannot vouch
    /// for any other address.
    static let permittedIPRanges: [[UInt8]] = [
        [127, 0, 0, 0, 255, 0, 0, 0],
        [UInt8](repeating: 0, count: 15) + [1] + [UInt8](repeating: 255, count: 16),
    ]
}
