/// One button image, as its query parameters describe it (with every default filled in): the key the
/// rendered images are cached by.
struct ButtonSpec: Hashable, Sendable {
    /// Which of the three image endpoints draws it.
    enum Layout: Hashable, Sendable {
        /// `/appleid/button`: the logo and the label centred together.
        case centered
        /// `/appleid/button/left`: the logo and the label from the left edge.
        case leftAligned(labelPosition: Int, logoPosition: Int, logoSize: LogoSize)
        /// `/appleid/button/logo`: the logo alone in a square.
        case logoOnly
    }

    /// The endpoint a request named: `/appleid/button`, `/left` or `/logo`.
    enum Endpoint: Sendable { case centered, leftAligned, logoOnly }

    enum LogoSize: String, Hashable, Sendable { case small, medium, large }
    enum Color: String, Hashable, Sendable { case black, white }

    var layout: Layout
    /// In points; the image is `scale` pixels per point.
    var width: Int
    var height: Int
    var color: Color
    var border: Bool
    /// The corners' radius as a percentage of the height (50: a pill or a circle).
    var borderRadius: Int
    var scale: Int
    var type: ButtonType
    var locale: String

    /// The image's size in pixels.
    var pixelWidth: Int { width * scale }
    var pixelHeight: Int { height * scale }

    /// Reads the query of `/appleid/button`, `/left` or `/logo`. Returns nil for an unknown, repeated or
    /// out-of-range parameter (Apple answers 404 to any of them); the hyphenated names are `/left`'s
    /// own, the others take underscores.
    init?(_ endpoint: Endpoint, query: [(name: String, value: String)]) {
        guard query.count <= 16 else { return nil }
        var names = Set<String>()
        for (name, _) in query { guard names.insert(name).inserted else { return nil } }
        let values = Dictionary(uniqueKeysWithValues: query.map { ($0.name, $0.value) })
        var known: Set<String> = ["color", "border", "border_radius", "scale"]
        switch endpoint {
        case .logoOnly: known.insert("size")
        case .centered: known.formUnion(["width", "height", "type", "locale"])
        case .leftAligned: known.formUnion(["width", "height", "type", "locale", "label-position", "logo-position", "logo-size"])
        }
        guard names.isSubset(of: known) else { return nil }

        /// The parameter's value, `fallback` when it is absent, nil when it is not a number in `range`.
        func number(_ name: String, _ range: ClosedRange<Int>, default fallback: Int) -> Int? {
            guard let text = values[name] else { return fallback }
            // Digits only, and few of them, before any conversion.
            guard (1...4).contains(text.utf8.count), text.utf8.allSatisfy({ (48...57).contains($0) }),
                  let value = Int(text), range.contains(value) else { return nil }
            return value
        }
        func choice<T: RawRepresentable>(_ name: String, default fallback: T) -> T? where T.RawValue == String {
            guard let text = values[name] else { return fallback }
            return T(rawValue: text)
        }
        guard let color: Color = choice("color", default: .black),
              let borderRadius = number("border_radius", 0...50, default: 15),
              let scale = number("scale", 1...6, default: 1) else { return nil }
        let border: Bool
        switch values["border"] {
        case nil, "false": border = false
        case "true": border = true
        default: return nil
        }
        self.color = color
        self.border = border
        self.borderRadius = borderRadius
        self.scale = scale
        switch endpoint {
        case .logoOnly:
            guard let size = number("size", 30...64, default: 30) else { return nil }
            (width, height, type, locale) = (size, size, .signIn, "en_US")
            self.layout = .logoOnly
        case .centered, .leftAligned:
            guard let width = number("width", 130...375, default: 140),
                  let height = number("height", 30...64, default: 30),
                  let type: ButtonType = choice("type", default: .signIn),
                  case let locale = values["locale"] ?? "en_US", ButtonMasters.locales.contains(locale) else { return nil }
            (self.width, self.height, self.type, self.locale) = (width, height, type, locale)
            if endpoint == .leftAligned {
                guard let labelPosition = number("label-position", 0...min(182, width / 2), default: 0),
                      let logoPosition = number("logo-position", 0...min(182, width / 2), default: 0),
                      let logoSize: LogoSize = choice("logo-size", default: .small) else { return nil }
                self.layout = .leftAligned(labelPosition: labelPosition, logoPosition: logoPosition, logoSize: logoSize)
            } else {
                self.layout = .centered
            }
        }
    }
}
