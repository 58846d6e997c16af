import Foundation

/// A syntax check of request bodies against RFC 8259, run before decoding.
///
/// Foundation's decoder accepts a trailing comma, keeps the first of two equal keys and says only
/// "not valid JSON"; a payment backend deserves to hear what is wrong and where. The check also
/// refuses control characters in strings (a NUL would cut a request id short in SQLite), naming
/// the field they are in. Decoding into types stays Foundation's.
public struct StrictJSON {
    /// What the check saw of the top-level value, so the body need not be parsed again to tell
    /// what it is.
    public struct TopLevel: Sendable, Equatable {
        /// The top-level object has a `message` or an `action` key: a push payload (MQTT's one
        /// topic carries both kinds).
        public var holdsMessageOrAction = false
    }

    /// What is wrong with a body, and where: the field when inside one, else line and column.
    public struct SyntaxError: Error, Equatable {
        public var field: String?
        public var message: String
    }

    private let bytes: [UInt8]
    private var index = 0
    /// The keys from the top down to the value being read (`message.data.text`, `items[2]`).
    private var path: [String] = []
    private var topLevel = TopLevel()

    /// Checks `bytes` is exactly one JSON value, with no duplicate keys and no control characters;
    /// returns what it saw of the top-level object.
    @discardableResult
    public static func check(_ bytes: [UInt8]) throws(SyntaxError) -> TopLevel {
        guard String(bytes: bytes, encoding: .utf8) != nil else {
            throw SyntaxError(field: nil, message: "the body is not UTF-8 text; send JSON encoded as UTF-8")
        }
        var parser = StrictJSON(bytes: bytes)
        parser.skipWhitespace()
        guard parser.index < bytes.count else { throw SyntaxError(field: nil, message: "the body is empty; send a JSON object") }
        try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.failure("unexpected text after the JSON object") }
        return parser.topLevel
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private var field: String? {
        path.isEmpty ? nil : path.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
    }

    private func failure(_ message: String) -> SyntaxError {
        var line = 1, column = 1
        for byte in bytes[..<min(index, bytes.count)] {
            if byte == UInt8(ascii: "\n") { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
        }
        let found = index < bytes.count ? "" : " (the body ends there)"
        return SyntaxError(field: field, message: "not valid JSON at line \(line), column \(column)\(found): \(message)")
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private mutating func value(depth: Int) throws(SyntaxError) {
        guard depth < 32 else { throw failure("nested more than 32 deep") }
        skipWhitespace()
        guard index < bytes.count else { throw failure("a value is missing") }
        switch bytes[index] {
        case UInt8(ascii: "{"): try object(depth: depth)
        case UInt8(ascii: "["): try array(depth: depth)
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        default: throw failure("a value must be a string in double quotes, a number, an object, a list, true, false or null")
        }
    }

    private mutating func object(depth: Int) throws(SyntaxError) {
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return }
        var seen: Set<String> = []
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw failure(seen.isEmpty ? "a key in double quotes must come here" : "a key in double quotes must follow the comma (no trailing comma)")
            }
            let key = try string()
            if depth == 0 && (key == "message" || key == "action") { topLevel.holdsMessageOrAction = true }
            guard seen.insert(key).inserted else {
                path.append(key)
                throw failure("the key \"\(key)\" appears twice; send it once")
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("a colon must follow the key \"\(key)\"") }
            index += 1
            path.append(key)
            try value(depth: depth + 1)
            path.removeLast()
            skipWhitespace()
            guard index < bytes.count else { throw failure("the object is not closed with }") }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return }
            guard bytes[index] == UInt8(ascii: ",") else { throw failure("a comma or } must follow the value of \"\(key)\"") }
            index += 1
        }
    }

    private mutating func array(depth: Int) throws(SyntaxError) {
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return }
        var position = 0
        while true {
            path.append("[\(position)]")
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") { throw failure("a value must follow the comma (no trailing comma)") }
            try value(depth: depth + 1)
            path.removeLast()
            skipWhitespace()
            guard index < bytes.count else { throw failure("the list is not closed with ]") }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return }
            guard bytes[index] == UInt8(ascii: ",") else { throw failure("a comma or ] must follow a list item") }
            index += 1
            position += 1
        }
    }

    /// Reads a string, checking its escapes; returns it decoded (for keys).
    private mutating func string() throws(SyntaxError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                return String(scalars)
            case UInt8(ascii: "\\"):
                scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                raw = []
                scalars.append(try escape())
            case 0..<0x20, 0x7F:
                throw failure("a control character (byte \(byte)) inside a string; leave it out")
            case 0xC2 where index + 1 < bytes.count && (0x80...0x9F).contains(bytes[index + 1]):
                throw failure("a control character (U+00\(String(bytes[index + 1], radix: 16, uppercase: true))) inside a string; leave it out")
            default:
                raw.append(byte)
                index += 1
            }
        }
        throw failure("the string is not closed with \"")
    }

    /// Reads one escape after the backslash; refuses control characters other than tab and newline.
    private mutating func escape() throws(SyntaxError) -> Unicode.Scalar {
        index += 1
        guard index < bytes.count else { throw failure("the string ends inside an escape") }
        let letter = bytes[index]
        index += 1
        switch letter {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "b"), UInt8(ascii: "f"):
            throw failure("a control character (\\\(Character(Unicode.Scalar(letter)))) inside a string; leave it out")
        case UInt8(ascii: "u"):
            var code = try hex4()
            if (0xD800..<0xDC00).contains(code) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw failure("a lone surrogate \\u\(String(code, radix: 16)); send the character as UTF-8")
                }
                index += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate; send the character as UTF-8") }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(code) else { throw failure("a lone surrogate; send the character as UTF-8") }
            if code < 0x20 && scalar != "\n" && scalar != "\t" && scalar != "\r" || (0x7F...0x9F).contains(code) {
                let name = code == 0 ? "NUL (\\u0000)" : "control character \\u\(String(format: "%04x", code))"
                throw failure("a \(name) inside a string; leave it out")
            }
            return scalar
        default:
            throw failure("\\\(Character(Unicode.Scalar(letter))) is not a JSON escape")
        }
    }

    private mutating func hex4() throws(SyntaxError) -> UInt32 {
        // Each byte checked: `UInt32(_:radix:)` alone also takes a sign (`\u+0e9`), which
        // Foundation's decoder then refuses with no word of where (FuzzIntakeJSON's property).
        let isHex = { (byte: UInt8) in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
        }
        guard index + 4 <= bytes.count, bytes[index..<index + 4].allSatisfy(isHex),
              let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else {
            throw failure("\\u must be followed by four hex digits")
        }
        index += 4
        return code
    }

    private mutating func literal(_ word: String) throws(SyntaxError) {
        let expected = Array(word.utf8)
        guard index + expected.count <= bytes.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw failure("a value must be a string in double quotes, a number, an object, a list, true, false or null")
        }
        index += expected.count
    }

    private mutating func number() throws(SyntaxError) {
        let start = index
        func digits() -> Int {
            let from = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - from
        }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let leading = index
        guard digits() > 0 else { throw failure("a number needs digits") }
        if bytes[leading] == UInt8(ascii: "0"), index - leading > 1 { index = start; throw failure("a number must not start with 0") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw failure("a number needs digits after the point") }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw failure("a number needs digits in its exponent") }
        }
        // Foundation's parser refuses a number beyond Double's range (1e999): passed here, the
        // decoder would refuse the body with no word of where (FuzzIntakeJSON's property).
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard Double(text)?.isFinite == true else {
            index = start
            throw failure("the number \(text.prefix(40)) is out of range (larger than 1.8e308)")
        }
    }
}
