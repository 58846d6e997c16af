import HeraldCore
import Testing

@Suite struct ControlCharacterTests {
    @Test func aBellIsNamedWithItsPosition() throws {
        let found = try #require(ControlCharacter.first(in: "bell\u{7}"))
        #expect(found.position == 5)
        #expect("\(found)" == "the text contains a control character (U+0007 BEL) at position 5; remove it")
    }

    @Test(arguments: [
        ("\u{1B}[31mred", "U+001B ESC", 1), ("a\u{0}b", "U+0000 NUL", 2), ("del\u{7F}", "U+007F DEL", 4),
        ("next\u{85}line", "U+0085 NEL", 5), ("é\u{8}", "U+0008 BS", 2), ("👍🏽 ok\u{C}", "U+000C FF", 5),
    ])
    func eachIsNamedWhereAPersonCountsIt(text: String, name: String, position: Int) throws {
        let found = try #require(ControlCharacter.first(in: text))
        #expect("\(found)".contains("(\(name)) at position \(position);"), "\(found)")
    }

    @Test func tabsAndLineBreaksAreText() {
        #expect(ControlCharacter.first(in: "one\ntwo\r\n\tthree, 二") == nil)
        #expect(ControlCharacter.first(in: "zero\u{200B}width") == nil, "a format character is not a control character")
    }
}
