import Mustache

/// The server's HTML pages, rendered from Mustache templates parsed once. `{{name}}` escapes HTML (`& < > " '`),
/// so a page's text and attribute values can only ever be text; the templates live beside each page's model.
enum PageTemplates {
    /// Every page template by name; `page` is the layout the others extend (`{{<page}}…{{/page}}`).
    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        let sources = [("page", layout), ("consent", ConsentPage.template), ("error", ErrorPage.template),
                       ("form-post", FormPostPage.template), ("web-message", WebMessagePage.template),
                       ("dashboard", DashboardPage.template),
                       ("relay-inbox", RelayInboxPage.template)]
        for (name, source) in sources {
            do { try library.register(source, named: name) } catch {
                preconditionFailure("page template \(name) does not parse: \(error)")  // a constant; the page tests render each one
            }
        }
        return library
    }()

    /// `context` (a struct whose stored properties the template names) rendered with the template `name`.
    static func render(_ context: Any, with name: String) -> String {
        guard let html = library.render(context, withTemplate: name) else { preconditionFailure("no page template \(name)") }
        return html
    }

    /// The layout: a complete page in the mock's plain style, with `title` and `body` blocks.
    static let layout = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{$title}}{{/title}}</title>
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
        {{$body}}{{/body}}
        </body>
        </html>

        """
}

/// A name and value a page carries unchanged in a hidden input.
struct HiddenField {
    let name: String
    let value: String
}
