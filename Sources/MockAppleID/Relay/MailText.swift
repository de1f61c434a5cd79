import Foundation

/// Reads the parts of an Internet message the relay shows: the header block (unfolded) and the body.
/// Nothing is decoded; the size was bounded by the SMTP listener before this sees it, and the header
/// block is read only up to ``headerBlockLimit`` (the rest of it is taken as body), in linear time.
enum MailText {
    /// The most header fields kept.
    static let headerLimit = 200
    /// The most bytes of header block read.
    static let headerBlockLimit = 64 * 1024

    static func split(_ data: String) -> (headers: [MailHeader], body: String) {
        let normalized = data.replacingOccurrences(of: "\r\n", with: "\n")
        var fields: [(name: String, pieces: [Substring])] = []
        var lines = normalized.split(separator: "\n", omittingEmptySubsequences: false)[...]
        var read = 0
        var skipping = false
        while let line = lines.first, !line.isEmpty, read + line.utf8.count <= headerBlockLimit {
            lines = lines.dropFirst()
            read += line.utf8.count + 1
            if line.first == " " || line.first == "\t" {
                if !skipping, !fields.isEmpty { fields[fields.count - 1].pieces.append(line) }
                continue
            }
            skipping = fields.count >= headerLimit
            guard !skipping, let colon = line.firstIndex(of: ":") else { continue }
            fields.append((String(line[..<colon]).trimmingCharacters(in: .whitespaces), [line[line.index(after: colon)...]]))
        }
        if lines.first?.isEmpty == true { lines = lines.dropFirst() }
        let headers = fields.map { field in
            MailHeader(name: field.name, value: field.pieces.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " "))
        }
        return (headers, lines.joined(separator: "\n"))
    }

    /// The bare address of a mailbox such as `Shop <news@shop.example>` or `news@shop.example`.
    static func address(in mailbox: String) -> String {
        if let open = mailbox.lastIndex(of: "<"), let close = mailbox[open...].firstIndex(of: ">") {
            return String(mailbox[mailbox.index(after: open)..<close]).trimmingCharacters(in: .whitespaces)
        }
        return mailbox.trimmingCharacters(in: .whitespaces)
    }
}
