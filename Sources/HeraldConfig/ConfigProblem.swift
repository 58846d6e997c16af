/// One thing wrong in a config file, located so a person can fix it.
public struct ConfigProblem: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    /// 1-based line, when known.
    public var line: Int?
    /// The dotted key, such as `safeguard.min_volume`; empty for the file as a whole.
    public var key: String
    /// What is wrong and what to do.
    public var message: String

    public init(file: String, line: Int?, key: String, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    /// `herald.yaml:4: safeguard.min_volume: ...`, the shape compilers use, so editors can jump there.
    public var description: String {
        let location = line.map { "\(file):\($0)" } ?? file
        return key.isEmpty ? "\(location): \(message)" : "\(location): \(key): \(message)"
    }
}

/// Every problem found in a config file; nothing of the file is used when there is any.
public struct ConfigError: Error, Sendable, CustomStringConvertible {
    public var problems: [ConfigProblem]

    public init(_ problems: [ConfigProblem]) { self.problems = problems }

    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
