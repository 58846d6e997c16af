import Foundation

/// A request's `Range` header (RFC 9110 §14) resolved against a file of `size` bytes: the part
/// to send, the whole file, or why it cannot be served. One range only: seeking needs no more.
enum ByteRange: Equatable {
    /// No `Range`, a unit other than bytes (ignored, as RFC 9110 says), or several ranges
    /// (answered with the whole file, 200, which RFC 9110 allows).
    case whole
    /// The bytes `first...last`, both within the file: 206.
    case part(first: Int64, last: Int64)
    /// 416 with `Content-Range: bytes */size`: a range starting at or past the end, an empty
    /// suffix, or one that is not a range (negative, backwards, not digits); `problem` says which.
    case unsatisfiable(problem: String)

    static func resolve(_ header: String?, size: Int64) -> ByteRange {
        guard let header else { return .whole }
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard let equals = trimmed.firstIndex(of: "=") else { return .unsatisfiable(problem: "'\(header)' is not a range like bytes=0-1023") }
        guard trimmed[..<equals].trimmingCharacters(in: .whitespaces).lowercased() == "bytes" else { return .whole }
        let specs = trimmed[trimmed.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false)
        guard specs.count == 1 else { return .whole }
        let spec = specs[0].trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, parts[0].isEmpty || digits(parts[0]), parts[1].isEmpty || digits(parts[1]) else {
            return .unsatisfiable(problem: "'\(spec)' is not a byte range like 0-1023, 1024- or -500 (no negative numbers)")
        }
        if parts[0].isEmpty {
            // The last N bytes.
            guard let count = Int64(parts[1]) else {
                return .unsatisfiable(problem: "'\(spec)' names no bytes; ask for at least one")
            }
            guard count > 0, size > 0 else { return .unsatisfiable(problem: "'\(spec)' names no bytes of the \(size)") }
            return .part(first: size - min(count, size), last: size - 1)
        }
        guard let first = Int64(parts[0]) else { return .unsatisfiable(problem: "'\(spec)' starts past any file") }
        guard first < size else {
            return .unsatisfiable(problem: "'\(spec)' starts at byte \(first), past the end of the \(size) bytes")
        }
        guard !parts[1].isEmpty else { return .part(first: first, last: size - 1) }
        // An end past the file is cut to it; a number too long for Int64 is past it too.
        let last = Int64(parts[1]) ?? Int64.max
        guard last >= first else { return .unsatisfiable(problem: "'\(spec)' ends before it starts") }
        return .part(first: first, last: min(last, size - 1))
    }

    private static func digits(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && $0.isNumber }
    }
}
