import Foundation

/// The bytes of a config file as text, or why they are not: a file saved as UTF-16 or a binary
/// file given by mistake is named here, with its line, before the YAML parser sees it.
enum ConfigFileText {
    /// The text of `file`.
    /// - Throws: `ConfigError` saying why the file cannot be read as text, and what to do.
    static func read(_ file: String) throws -> String {
        func fail(_ message: String) -> ConfigError {
            ConfigError([ConfigProblem(file: file, line: nil, key: "", message: message)])
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) else {
            throw fail("no such config file; check the path, or copy Config/herald.yaml there")
        }
        guard !isDirectory.boolValue else {
            let example = (file as NSString).appendingPathComponent("herald.yaml")
            throw fail("is a folder, not a config file; give the path of the YAML file, such as \(example)")
        }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw fail("cannot read the config file; check its permissions")
        }
        return try decode(data, file: file).get()
    }

    /// The text of `data`, or the problem that stops it being read as YAML.
    static func decode(_ data: Data, file: String) -> Result<String, ConfigError> {
        let bytes = [UInt8](data)
        func problem(line: Int, _ message: String) -> Result<String, ConfigError> {
            .failure(ConfigError([ConfigProblem(file: file, line: line, key: "", message: message)]))
        }
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            return problem(line: 1, "saved as UTF-16; save it as UTF-8 (in the editor's Save As, choose the encoding UTF-8)")
        }
        // A NUL is valid UTF-8 but never appears in a text file; it is what a binary file, or
        // UTF-16 without a byte-order mark, looks like.
        if let offset = bytes.firstIndex(of: 0) {
            return problem(line: line(at: offset, in: bytes),
                           "not a text file (a NUL byte on this line); give the path of the YAML config file, or save it as UTF-8 text")
        }
        if let offset = firstInvalidUTF8(bytes) {
            return problem(line: line(at: offset, in: bytes),
                           "not a text file, or not saved as UTF-8 (a byte on this line is not UTF-8 text); save it as UTF-8")
        }
        // Windows editors write a byte-order mark. libyaml, told the text is UTF-8, skips it but
        // counts it as a column: the first key sits in column 2, and a key on line 2, in column 1,
        // ends the top-level mapping ("did not find expected <document start>").
        let withoutMark = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
        return .success(String(decoding: withoutMark, as: UTF8.self))
    }

    /// The 1-based line holding byte `offset`.
    static func line(at offset: Int, in bytes: [UInt8]) -> Int {
        bytes[..<min(offset, bytes.count)].reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
    }

    /// The offset of the first byte that does not decode as UTF-8, or nil when all do.
    private static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }
}
