import MockAppleID
import Testing

@Suite("form encoding")
struct FormParametersTests {
    @Test("decodes + as space and percent escapes, keeps order and repeats")
    func decode() throws {
        let form = try FormParameters(urlEncoded: "a=1&b=two+words&c=%2F%26&a=2&flag")
        #expect(form.pairs == [.init("a", "1"), .init("b", "two words"), .init("c", "/&"), .init("a", "2"), .init("flag", "")])
        #expect(throws: FormParameters.Problem.duplicated("a")) { try form.single("a") }
        #expect(try form.single("b") == "two words")
        #expect(try form.single("missing") == nil)
        #expect(try form.nonEmpty("flag") == nil)
    }

    @Test("escapes in either case, raw UTF-8 kept, %00 and %25 are bytes like any other")
    func escapes() throws {
        let form = try FormParameters(urlEncoded: "x=%41%62%c3%A9&y=jos\u{E9}+%2B&z=%00%25")
        #expect(form.pairs == [.init("x", "Abé"), .init("y", "josé +"), .init("z", "\u{0}%")])
    }

    @Test("fields split at every & and the first = byte, even before a combining mark")
    func splitsOnBytes() throws {
        let form = try FormParameters(urlEncoded: "a=\u{338}1&\u{301}b=2=3&&=&c")
        #expect(form.pairs == [.init("a", "\u{338}1"), .init("\u{301}b", "2=3"), .init("", ""), .init("c", "")])
    }

    @Test("malformed percent-encoding is refused", arguments: ["a=%zz", "a=%", "a=%4", "a=%4g", "a=%e9", "%C3%28=x", "a=%C3"])
    func malformed(_ text: String) {
        #expect(throws: FormParameters.Problem.malformedEncoding) { try FormParameters(urlEncoded: text) }
    }

    @Test("encodes everything but unreserved characters")
    func encode() {
        #expect(FormParameters([.init("u", #"{"a":"é b"}"#)]).urlEncoded == "u=%7B%22a%22%3A%22%C3%A9%20b%22%7D")
    }
}
