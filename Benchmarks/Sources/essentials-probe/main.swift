// The FoundationEssentials probe: the same output as foundation-probe with the lighter import (no ICU):
// an ISO 8601 date, and a match by Swift's own Regex.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation  // macOS: the system Foundation, with no lighter part to pick
#endif

let text = Date(timeIntervalSince1970: 0).formatted(.iso8601)
print(text, text.prefixMatch(of: /[0-9]{4}-[0-9]{2}-[0-9]{2}/) == nil ? 0 : 1)
