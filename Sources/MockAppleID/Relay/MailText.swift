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
        let normalized = data.utf8.contains(13) ? data.replacingOccurrences(of: "\r\n", with: "\n") : data
        var fields: [(name: String, pieces: [Substring])] = []
        // Line by line through the header block only, finding each line's end by its bytes; the body is the
        // rest of the text as it is (a message of millions of lines is not split into them).
        var next = normalized.startIndex
        var read = 0
        var skipping = false
        while true {
            let end = normalized.utf8[next...].firstIndex(of: 10) ?? normalized.endIndex
            let line = normalized[next..<end]
            guard !line.isEmpty, read + line.utf8.count <= headerBlockLimit else { break }
            next = end < normalized.endIndex ? normalized.utf8.index(after: end) : end
            read += line.utf8.count + 1
            if line.first == " " || line.first == "\t" {
                if !skipping, !fields.isEmpty { fields[fields.count - 1].pieces.append(line) }
                continue
            }
            skipping = fields.count >= headerLimit
            guard !skipping, let colon = line.firstIndex(of: ":") else { continue }
            fields.append((String(line[..<colon]).trimmingCharacters(in: .whitespaces), [line[line.index(after: colon)...]]))
        }
        if next < normalized.endIndex, normalized.utf8[next] == 10 { next = normalized.utf8.index(after: next) }
        let headers = fields.map { field in
            MailHeader(name: field.name, value: field.pieces.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " "))
        }
        return (headers, String(normalized[next...]))
    }

    /// The bare address of a mailbox such as `Shop <news@shop.example>` or `news@shop.example`.
    static func address(in mailbox: String) -> String {
        if let open = mailbox.lastIndex(of: "<"), let close = mailbox[open...].firstIndex(of: ">") {
            return String(mailbox[mailbox.index(after: open)..<close]).trimmingCharacters(in: .whitespaces)
        }
        return mailbox.trimmingCharacters(in: .whitespaces)
    }
}
