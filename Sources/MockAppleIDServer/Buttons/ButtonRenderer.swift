/// Draws a button image: a rounded rectangle (with a border when asked), and the logo and label
/// scaled from their masters, anti-aliased, as straight RGBA pixels.
///
/// The proportions follow Apple's published buttons: the label is 43 % of the button's height, the
/// logo a little taller than a capital letter and standing on the label's baseline, both centred
/// (or placed from the left edge by `/left`'s positions), and a label too long for the button is made
/// smaller until it fits.
enum ButtonRenderer {
    /// The label's font size as a share of the button's height.
    static let labelShare = 0.43
    /// The logo's height as a share of the label's font size.
    static let logoShare = 0.95
    /// The space between logo and label, and the least margin left and right, in font sizes.
    static let gapShare = 0.3
    static let marginShare = 0.6
    /// The logo's height as a share of the button's height, by `/left`'s `logo-size`.
    static func logoHeightShare(_ size: ButtonSpec.LogoSize) -> Double {
        switch size {
        case .small: labelShare * logoShare
        case .medium: 0.48
        case .large: 0.56
        }
    }
    /// The logo's height as a share of `/logo`'s square.
    static let logoOnlyShare = 0.5

    /// The image's pixels, row by row, four bytes (red, green, blue, alpha) each.
    static func pixels(_ spec: ButtonSpec) -> [UInt8] {
        let width = spec.pixelWidth, height = spec.pixelHeight
        var ink = CoverageCanvas(width: width, height: height)
        drawContent(spec, into: &ink)
        let scale = Double(spec.scale)
        let shape = RoundedRectangle(width: Double(width), height: Double(height),
                                     radius: Double(spec.borderRadius) / 100 * Double(height))
        let inner = spec.border ? shape.inset(by: scale) : nil
        let (fill, foreground): (UInt8, UInt8) = spec.color == .black ? (0, 255) : (255, 0)
        // Black on either button: on a black one the border does not show, as on Apple's.
        let border: UInt8 = 0
        var out = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let px = Double(x) + 0.5, py = Double(y) + 0.5
                let alpha = shape.coverage(px, py)
                guard alpha > 0 else { continue }
                // Within the shape: the border's share, then the ink over it; alpha is the shape's.
                let borderShare = inner.map { alpha - min(alpha, $0.coverage(px, py)) } ?? 0
                var value = Double(fill) + (Double(border) - Double(fill)) * (borderShare / alpha)
                value += (Double(foreground) - value) * Double(ink[x, y])
                let level = UInt8((value).rounded().clamped(to: 0...255))
                let index = (y * width + x) * 4
                out[index] = level
                out[index + 1] = level
                out[index + 2] = level
                out[index + 3] = UInt8((alpha * 255).rounded().clamped(to: 0...255))
            }
        }
        return out
    }

    /// Draws the logo and, but for `/logo`, the label.
    private static func drawContent(_ spec: ButtonSpec, into ink: inout CoverageCanvas) {
        let width = Double(spec.pixelWidth), height = Double(spec.pixelHeight)
        let logo = ButtonMasters.logo
        if case .logoOnly = spec.layout {
            let logoScale = height * logoOnlyShare / Double(logo.height)
            ink.draw(logo, x: (width - Double(logo.width) * logoScale) / 2, y: (height - Double(logo.height) * logoScale) / 2,
                     scale: logoScale)
            return
        }
        let label = ButtonMasters.label(spec.type, locale: spec.locale)
        var fontSize = height * labelShare
        var logoHeight: Double
        let logoX: Double
        let labelX: Double
        switch spec.layout {
        case .logoOnly, .centered:  // `.logoOnly` returned above
            logoHeight = fontSize * logoShare
            let natural = Double(logo.width) * logoHeight / Double(logo.height) + fontSize * gapShare
                + Double(label.width) * fontSize / Double(ButtonMasters.labelSize)
            let room = width - 2 * fontSize * marginShare
            if natural > room, room > 0 {
                fontSize *= room / natural
                logoHeight *= room / natural
            }
            let logoWidth = Double(logo.width) * logoHeight / Double(logo.height)
            let groupWidth = logoWidth + fontSize * gapShare + Double(label.width) * fontSize / Double(ButtonMasters.labelSize)
            logoX = (width - groupWidth) / 2
            labelX = logoX + logoWidth + fontSize * gapShare
        case let .leftAligned(labelPosition, logoPosition, logoSize):
            logoHeight = height * logoHeightShare(logoSize)
            logoX = Double(logoPosition * spec.scale)
            let afterLogo = logoX + Double(logo.width) * logoHeight / Double(logo.height) + fontSize * gapShare
            labelX = max(Double(labelPosition * spec.scale), afterLogo)
            let room = width - labelX - fontSize * marginShare
            let labelWidth = Double(label.width) * fontSize / Double(ButtonMasters.labelSize)
            if labelWidth > room, room > 0 { fontSize *= room / labelWidth }
        }
        let labelScale = fontSize / Double(ButtonMasters.labelSize)
        let baseline = height / 2 + ButtonMasters.capHeight * fontSize / 2
        ink.draw(label, x: labelX, y: baseline - Double(label.baseline) * labelScale, scale: labelScale)
        let logoScale = logoHeight / Double(logo.height)
        let logoTop: Double
        if case .leftAligned = spec.layout {
            logoTop = (height - logoHeight) / 2
        } else {
            logoTop = baseline + 0.03 * fontSize - logoHeight
        }
        ink.draw(logo, x: logoX, y: logoTop, scale: logoScale)
    }
}

/// A rectangle with rounded corners at the origin, and how much of a pixel centred at a point it covers.
struct RoundedRectangle {
    let width: Double
    let height: Double
    let radius: Double
    var originX = 0.0
    var originY = 0.0

    init(width: Double, height: Double, radius: Double) {
        self.width = width
        self.height = height
        self.radius = min(radius, width / 2, height / 2)
    }

    /// The same shape `amount` pixels smaller on every side.
    func inset(by amount: Double) -> RoundedRectangle {
        var inner = RoundedRectangle(width: max(0, width - 2 * amount), height: max(0, height - 2 * amount),
                                     radius: max(0, radius - amount))
        inner.originX = originX + amount
        inner.originY = originY + amount
        return inner
    }

    /// The share of a one-pixel square centred at (`x`, `y`) inside the shape, from the signed distance
    /// to its edge.
    func coverage(_ x: Double, _ y: Double) -> Double {
        guard width > 0, height > 0 else { return 0 }
        let halfWidth = width / 2, halfHeight = height / 2
        let dx = abs(x - originX - halfWidth) - (halfWidth - radius)
        let dy = abs(y - originY - halfHeight) - (halfHeight - radius)
        let outside = (max(dx, 0) * max(dx, 0) + max(dy, 0) * max(dy, 0)).squareRoot()
        let distance = outside + min(max(dx, dy), 0) - radius
        return (0.5 - distance).clamped(to: 0...1)
    }
}

extension Double {
    /// The value within `range`; not a number counts as the range's lower bound.
    func clamped(to range: ClosedRange<Double>) -> Double {
        guard !isNaN else { return range.lowerBound }
        return Swift.min(Swift.max(self, range.lowerBound), range.upperBound)
    }
}
