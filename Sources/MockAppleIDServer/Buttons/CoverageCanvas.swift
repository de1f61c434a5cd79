/// A grid of coverage values (0 nothing, 1 full) the size of an image, that masks are drawn into at
/// any position and scale, anti-aliased by area: each pixel takes the share of the mask's area it covers.
struct CoverageCanvas {
    let width: Int
    let height: Int
    private(set) var values: [Float]

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        values = Array(repeating: 0, count: width * height)
    }

    subscript(x: Int, y: Int) -> Float { values[y * width + x] }

    /// Draws `mask` with its top-left corner at (`x`, `y`) pixels, each of its pixels `scale` pixels wide.
    mutating func draw(_ mask: ButtonMask, x: Double, y: Double, scale: Double) {
        guard scale > 0, mask.width > 0, mask.height > 0 else { return }
        let columns = Self.spans(count: mask.width, origin: x, scale: scale, limit: width)
        let rows = Self.spans(count: mask.height, origin: y, scale: scale, limit: height)
        guard !columns.spans.isEmpty, !rows.spans.isEmpty else { return }
        // Each mask row resampled across the columns it reaches, then the rows combined.
        var resampled = [Float](repeating: 0, count: mask.height * columns.spans.count)
        for row in 0..<mask.height {
            let base = row * mask.width
            for (column, span) in columns.spans.enumerated() {
                var sum: Float = 0
                for (index, weight) in span { sum += weight * Float(mask.coverage[base + index]) }
                resampled[row * columns.spans.count + column] = sum / 255
            }
        }
        for (row, span) in rows.spans.enumerated() {
            let target = (rows.first + row) * width + columns.first
            for column in 0..<columns.spans.count {
                var sum: Float = 0
                for (index, weight) in span { sum += weight * resampled[index * columns.spans.count + column] }
                values[target + column] = min(1, values[target + column] + sum)
            }
        }
    }

    /// For the pixels a run of `count` source pixels covers when placed at `origin` and scaled by
    /// `scale` (clipped to `0..<limit`): the first pixel, and for each the source pixels it overlaps,
    /// weighted by the share of the pixel each covers.
    static func spans(count: Int, origin: Double, scale: Double, limit: Int) -> (first: Int, spans: [[(Int, Float)]]) {
        let end = origin + Double(count) * scale
        let first = max(0, Int(origin.rounded(.down)))
        let last = min(limit, Int(end.rounded(.up)))
        guard first < last else { return (first, []) }
        var spans: [[(Int, Float)]] = []
        spans.reserveCapacity(last - first)
        for pixel in first..<last {
            // The pixel's extent in source pixels.
            let from = max(0, (Double(pixel) - origin) / scale)
            let to = min(Double(count), (Double(pixel + 1) - origin) / scale)
            var span: [(Int, Float)] = []
            var index = Int(from.rounded(.down))
            while Double(index) < to, index < count {
                let overlap = min(to, Double(index + 1)) - max(from, Double(index))
                if overlap > 0 { span.append((index, Float(overlap * scale))) }
                index += 1
            }
            spans.append(span)
        }
        return (first, spans)
    }
}
