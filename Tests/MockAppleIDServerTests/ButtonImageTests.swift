import CompressNIO
import Foundation
import Hummingbird
import HummingbirdTesting
@testable import MockAppleIDServer
import NIOCore
import Testing

/// Apple's button images: every parameter checked (404 for anything Apple would refuse), PNGs of the
/// requested size, drawn from every locale's label, cached. Pixels are checked here from the renderer
/// and, decoded by Pillow, in the conformance suite.
@Suite("button images")
struct ButtonImageTests {
    @Test("every locale has its three labels and every master unpacks to its size")
    func masters() {
        #expect(ButtonMasters.locales.count == 37)
        #expect(ButtonMasters.logo.coverage.contains(255))
        for locale in ButtonMasters.locales {
            for type in ButtonType.allCases {
                let label = ButtonMasters.label(type, locale: locale)
                #expect(label.coverage.count == label.width * label.height)
                #expect(label.coverage.contains(255), "\(locale) \(type.rawValue) has no ink")
            }
        }
    }

    @Test("parameters Apple refuses answer 404", arguments: [
        "/appleid/button?width=129", "/appleid/button?width=376", "/appleid/button?height=29", "/appleid/button?height=65",
        "/appleid/button?scale=0", "/appleid/button?scale=7", "/appleid/button?border_radius=51", "/appleid/button?locale=xx_XX",
        "/appleid/button?locale=en-US", "/appleid/button?type=sign%20in", "/appleid/button?color=red", "/appleid/button?border=yes",
        "/appleid/button?width=140&width=150", "/appleid/button?width=+140", "/appleid/button?width=14000000000000000000",
        "/appleid/button?border-radius=10", "/appleid/button?label-position=10", "/appleid/button?size=30", "/appleid/button?v=2",
        "/appleid/button/left?label_position=10", "/appleid/button/left?label-position=71&width=140",
        "/appleid/button/left?logo-position=183&width=375", "/appleid/button/left?logo-size=huge",
        "/appleid/button/logo?width=140", "/appleid/button/logo?size=29", "/appleid/button/logo?size=65", "/appleid/button/logo?locale=en_US",
    ])
    func refused(uri: String) async throws {
        try await Harness.withRouter(try Harness.provider()) { client in
            try await client.execute(uri: uri, method: .get) { response in
                #expect(response.status == .notFound, "\(uri)")
            }
        }
    }

    @Test("a PNG of width × height × scale pixels, with Apple's headers, the same at the CDN prefix, and 304 when unchanged")
    func png() async throws {
        try await Harness.withRouter(try Harness.provider()) { client in
            let uri = "/appleid/button/left?width=200&height=44&scale=3&color=white&border=true&border_radius=50&locale=ja_JP&type=continue&logo-position=12&label-position=50&logo-size=large"
            let first = try await client.execute(uri: uri, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/png")
                #expect(response.headers[.cacheControl] == "public, max-age=86400")
                let png = Array(response.body.readableBytesView)
                #expect(png.prefix(8) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
                #expect(Self.size(png) == (600, 132))
                return (png, try #require(response.headers[.eTag]))
            }
            try await client.execute(uri: CDNRoutes.cdnPrefix + uri, method: .get) { response in
                #expect(Array(response.body.readableBytesView) == first.0)
            }
            try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: first.1]) { response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
            }
            try await client.execute(uri: "/appleid/button/logo?size=64&scale=2", method: .get) { response in
                #expect(Self.size(Array(response.body.readableBytesView)) == (128, 128))
            }
            try await client.execute(uri: "/appleid/button", method: .head) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/png")
            }
            try await client.execute(uri: "/appleid/button", method: .post) { response in
                #expect(response.status == .methodNotAllowed)
            }
        }
    }

    @Test("a black button: transparent rounded corners, black fill, a white anti-aliased label and logo")
    func pixels() throws {
        let spec = try #require(ButtonSpec(.centered, query: [("width", "200"), ("height", "40"), ("border_radius", "30")]))
        let pixels = ButtonRenderer.pixels(spec)
        let alpha = { (x: Int, y: Int) in pixels[(y * 200 + x) * 4 + 3] }
        let level = { (x: Int, y: Int) in pixels[(y * 200 + x) * 4] }
        #expect(alpha(0, 0) == 0 && alpha(199, 39) == 0)
        #expect(alpha(100, 0) == 255 && alpha(0, 20) == 255)
        #expect(level(2, 20) == 0)
        let row = (0..<200).map { level($0, 20) }
        #expect(row.contains(255))
        #expect(row.contains { $0 > 0 && $0 < 255 }, "no anti-aliased edge on the middle row")
        // Ink across the middle of the button, and none near its ends.
        #expect(row[20..<180].filter { $0 > 128 }.count > 20)
        #expect(row[0..<10].allSatisfy { $0 == 0 } && row[190..<200].allSatisfy { $0 == 0 })
    }

    @Test("the PNG's chunks: IHDR for 8-bit RGBA, CRCs over type and data, one IDAT that inflates to Sub-filtered rows of the image")
    func pngStructure() throws {
        let spec = try #require(ButtonSpec(.centered, query: [("width", "150"), ("scale", "2")]))
        let pixels = ButtonRenderer.pixels(spec)
        var png = try PNGEncoder.encode(rgba: pixels, width: 300, height: 60)
        let signature = png.readBytes(length: 8)
        #expect(signature == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var chunks: [(type: String, data: ByteBuffer)] = []
        while png.readableBytes >= 12 {
            let length = Int(png.readInteger(as: UInt32.self) ?? 0)
            let typeAndData = try #require(png.getSlice(at: png.readerIndex, length: 4 + length))
            let type = png.readString(length: 4) ?? ""
            let data = png.readSlice(length: length) ?? ByteBuffer()
            let crc = png.readInteger(as: UInt32.self)
            #expect(crc == CRC32.checksum(typeAndData.readableBytesView), "\(type)'s CRC")
            chunks.append((type, data))
        }
        #expect(png.readableBytes == 0)
        #expect(chunks.map(\.type) == ["IHDR", "IDAT", "IEND"])
        #expect(Array(chunks[0].data.readableBytesView) == [0, 0, 1, 44, 0, 0, 0, 60, 8, 6, 0, 0, 0])
        var deflated = chunks[1].data
        var rows = ByteBuffer()
        rows.reserveCapacity(61 * 300 * 4)
        try CompressionAlgorithm.zlib().decompressor.inflate(from: &deflated, to: &rows)
        let bytes = Array(rows.readableBytesView)
        #expect(bytes.count == 60 * (1 + 300 * 4))
        var decoded: [UInt8] = []
        for row in 0..<60 {
            let start = row * (1 + 1200)
            #expect(bytes[start] == 1, "row \(row) uses the Sub filter")
            for i in 0..<1200 { decoded.append(i < 4 ? bytes[start + 1 + i] : bytes[start + 1 + i] &+ decoded[row * 1200 + i - 4]) }
        }
        #expect(decoded == pixels)
        #expect(CRC32.checksum(Array("IEND".utf8)) == 0xAE42_6082)
    }

    @Test("/left: the logo starts at logo-position, the label at label-position; the longest label fits the narrowest button")
    func leftAligned() throws {
        let spec = try #require(ButtonSpec(.leftAligned, query: [("width", "300"), ("height", "40"), ("logo-position", "20"),
                                                                 ("label-position", "80"), ("scale", "2")]))
        let pixels = ButtonRenderer.pixels(spec)
        let inkColumns = (0..<600).filter { x in (0..<80).contains { y in pixels[(y * 600 + x) * 4] > 128 } }
        let first = try #require(inkColumns.first)
        #expect((40...44).contains(first), "the logo starts at \(first), not at 2 × 20")
        let label = try #require(inkColumns.first { $0 > 100 && !inkColumns.contains($0 - 1) })
        #expect((160...166).contains(label), "the label starts at \(label), not at 2 × 80")

        for locale in ButtonMasters.locales {
            for type in ButtonType.allCases {
                let narrow = try #require(ButtonSpec(.centered, query: [("width", "130"), ("height", "64"), ("locale", locale), ("type", type.rawValue)]))
                let drawn = ButtonRenderer.pixels(narrow)
                let columns = (0..<130).filter { x in (0..<64).contains { y in drawn[(y * 130 + x) * 4] > 128 } }
                #expect((columns.first ?? 0) >= 4 && (columns.last ?? 129) <= 125, "\(locale) \(type.rawValue) does not fit")
            }
        }
    }

    @Test("a repeated request is served from the cache; parallel first requests all get the same image")
    func cached() async throws {
        let images = ButtonImages()
        let spec = try #require(ButtonSpec(.logoOnly, query: []))
        let first = try await images.image(for: spec), second = try await images.image(for: spec)
        #expect(first.png.readableBytesView.withUnsafeBytes { $0.baseAddress } == second.png.readableBytesView.withUnsafeBytes { $0.baseAddress })
        let large = try #require(ButtonSpec(.centered, query: [("width", "375"), ("height", "64"), ("scale", "6")]))
        let parallel = try await withThrowingTaskGroup(of: ButtonImages.Image.self) { group in
            for _ in 0..<4 { group.addTask { try await images.image(for: large) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(parallel.map(\.etag)).count == 1)
    }

    /// The width and height a PNG's IHDR declares.
    static func size(_ png: [UInt8]) -> (Int, Int) {
        guard png.count > 24 else { return (0, 0) }
        let number = { (at: Int) in png[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (number(16), number(20))
    }
}
