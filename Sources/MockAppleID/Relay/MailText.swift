import Foundation

/// Reads the parts of an Internet message the relay shows: the header block (unfolded) and the body.
/// Nothing is decoded; the size was bounded by the SMTP listener before this sees it.
enum MailText {
    /// The most header fields kept.
    static let headerLimit = 200

    static func split(_ data: String) -> (headers: [MailHeader], body: String) {
        let normalized = data.replacingOccurrences(of: "\r\n", with: "\n")
        var headers: [MailHeader] = []
        var lines = normalized.split(separator: "\n", omittingEmptySubsequences: false)[...]
        while let line = lines.first, !line.isEmpty {
            lines = lines.dropFirst()
            if line.first == " " || line.first == "\t", let last = headers.popLast() {
                headers.append(MailHeader(name: last.name, value: last.value + " " + line.trimmingCharacters(in: .whitespaces)))
                continue
            }
            guard let colon = line.firstIndex(of: ":") else { continue }
            guard headers.count < headerLimit else { continue }
            headers.append(MailHeader(name: String(line[..<colon]).trimmingCharacters(in: .whitespaces),
                                      value: String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
        }
        return (headers, lines.dropFirst().joined(separator: "\n"))
    }

    /// The bare address of a mailbox such as `Shop <news@shop.example>` or `news@shop.example`.
    static func address(in mailbox: String) -> String {
        if let open = mailbox.lastIndex(of: "<"), let close = mailbox[open...].firstIndex(of: ">") {
            return String(mailbox[mailbox.index(after: open)..<close]).trimmingCharacters(in: .whitespaces)
        }
        return mailbox.trimmingCharacters(in: .whitespaces)
    }
}
