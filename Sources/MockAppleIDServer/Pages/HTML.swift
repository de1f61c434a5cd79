/// Minimal HTML building for the server's own pages.
enum HTML {
    /// Escapes text for element content and quoted attribute values.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    /// A complete page in the mock's plain style.
    static func page(title: String, body: String, autoSubmit: Bool = false) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title>
        <style>
        body { font-family: -apple-system, system-ui, sans-serif; max-width: 36rem; margin: 2rem auto; padding: 0 1rem; color: #1d1d1f; }
        h1 { font-size: 1.4rem; } fieldset { border: 1px solid #d2d2d7; border-radius: 8px; margin: 1rem 0; }
        label { display: block; margin: .4rem 0; } .note { color: #6e6e73; font-size: .9rem; }
        .error { border-left: 4px solid #d70015; padding-left: .8rem; } code { background: #f5f5f7; padding: 0 .2rem; }
        button { font-size: 1rem; padding: .5rem 1.2rem; margin-right: .5rem; border-radius: 8px; }
        button:focus, input:focus { outline: 3px solid #0071e3; }
        </style>
        </head>
        <body>
        \(body)
        </body>
        </html>

        """
    }

    /// Hidden inputs carrying `pairs` unchanged.
    static func hiddenInputs(_ pairs: [(String, String)]) -> String {
        pairs.map { "<input type=\"hidden\" name=\"\(escape($0.0))\" value=\"\(escape($0.1))\">" }.joined(separator: "\n")
    }
}
