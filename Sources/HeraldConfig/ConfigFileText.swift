import Foundation

/// The bytes of a config file as text, or why they are not: a missing file, a symbolic link loop,
/// a folder, an unreadable or oversized file, a file saved as UTF-16 or a binary file given by
/// mistake is named here, with its line, before the YAML parser sees it.
enum ConfigFileText {
    /// The largest config file read: Config/herald.yaml is about 10 KB, and a hub with hundreds of
    /// reminders stays far below this. The cap bounds the time and memory a check or a reload can
    /// take, so a runaway file cannot stall the daemon.
    static let maxBytes = 1 << 20

    /// The text of `file`, read once through one descriptor: what is checked is what is parsed.
    /// - Throws: `ConfigError` saying why the file cannot be read as text, and what to do.
    static func read(_ file: String) throws -> String {
        let data = try readBytes(file).get()
        return try decode(data, file: file).get()
    }

    /// The bytes of `file`, at most `maxBytes` of them, or the problem that stops them being read.
    static func readBytes(_ file: String, maxBytes: Int = maxBytes) -> Result<[UInt8], ConfigError> {
        func fail(_ message: String) -> Result<[UInt8], ConfigError> {
            .failure(ConfigError([ConfigProblem(file: file, line: nil, key: "", message: message)]))
        }
        // O_NONBLOCK: opening a named pipe must not wait for a writer; the type is checked below.
        let descriptor = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return fail(openProblem(file, errno: errno)) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            return fail("cannot read the config file (\(String(cString: strerror(errno)))); check the path and its permissions")
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            break
        case S_IFDIR:
            let example = (file as NSString).appendingPathComponent("herald.yaml")
            return fail("is a folder, not a config file; give the path of the YAML file, such as \(example)")
        default:
            return fail("is not a regular file (a device, pipe or socket); give the path of the YAML config file")
        }
        // Before reading a byte: a 4 GB file is refused at once, not after it has been read.
        let size = Int(status.st_size)
        if size > maxBytes { return fail(tooLarge(size, maxBytes: maxBytes)) }
        // The file may grow between fstat and read: read one byte past the cap to notice.
        var bytes = [UInt8](repeating: 0, count: maxBytes + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(descriptor, buffer.baseAddress! + count, buffer.count - count)
            }
            if got == 0 { break }
            if got < 0 {
                if errno == EINTR { continue }
                return fail(openProblem(file, errno: errno))
            }
            count += got
        }
        if count > maxBytes { return fail(tooLarge(count, maxBytes: maxBytes)) }
        bytes.removeSubrange(count...)
        return .success(bytes)
    }

    static func tooLarge(_ size: Int, maxBytes: Int = maxBytes) -> String {
        let limit = maxBytes == 1 << 20 ? "1 MiB" : "\(maxBytes) bytes"
        let shown = size > maxBytes ? "\(size) bytes" : "more than \(maxBytes) bytes"
        return "too large (\(shown); a config file is at most \(limit)); is this the right file? Config/herald.yaml is about 10 KB"
    }

    /// What `open` failing with `code` means for a config file, and what to do.
    static func openProblem(_ file: String, errno code: Int32) -> String {
        switch code {
        case ENOENT:
            // A link whose target is gone exists itself: say where it points.
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: file) {
                return "a symbolic link to \(target), which does not exist; point it at the config file, or copy Config/herald.yaml there"
            }
            return "no such config file; check the path, or copy Config/herald.yaml there"
        case ELOOP:
            return "a symbolic link loop (a link that leads back to itself); point it at a real file"
        case EACCES, EPERM:
            return "cannot be read: permission denied; give Herald's user read access (chmod 600 and chown to that user) or use another file"
        case ENOTDIR:
            return "a part of the path is a file, not a folder; check the path"
        case ENAMETOOLONG:
            return "the path is too long; check it"
        case EISDIR:
            return "is a folder, not a config file; give the path of the YAML file"
        default:
            return "cannot read the config file (\(String(cString: strerror(code)))); check the path and its permissions"
        }
    }

    /// The text of `data`, or the problem that stops it being read as YAML.
    static func decode(_ data: Data, file: String) -> Result<String, ConfigError> {
        decode([UInt8](data), file: file)
    }

    /// The text of `bytes`, or the problem that stops it being read as YAML.
    static func decode(_ bytes: [UInt8], file: String) -> Result<String, ConfigError> {
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
        // The standard library's validation is fast; the walk below only finds where it fails.
        if String(validating: bytes, as: UTF8.self) != nil { return nil }
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
