// The Foundation probe: a static binary that uses what full Foundation adds over FoundationEssentials and
// what the YAML parser (Yams) calls: NSRegularExpression and DateFormatter, which bring ICU and its data.
// Beside essentials-probe, it shows what linking them costs in size and start-up.
import Foundation

let formatter = DateFormatter()
formatter.locale = Locale(identifier: "en_US_POSIX")
formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssZ"
let pattern = try NSRegularExpression(pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}")
let text = formatter.string(from: Date(timeIntervalSince1970: 0))
print(text, pattern.numberOfMatches(in: text, range: NSRange(location: 0, length: text.utf16.count)))
