import RuntimePaths

/// A `herald say` or `herald pay` the lean front can hand to a daemon as it is: the words, the
/// options the API takes, and nothing that needs the full command line (`--json`, `--local`,
/// `--verbose`, `--help`, anything unknown or repeated): those, and every other command, go to
/// herald-full, which parses and checks them all.
public struct FrontCommand: Equatable, Sendable {
    public enum Verb: String, Sendable { case say, pay }

    public var verb: Verb
    /// The text to say, or the amount as typed.
    public var argument: String
    /// `--lang`, `--voice`, `--priority`, `--chime`, `--currency`, by name without the dashes.
    public var options: [String: String]
    /// `--config`, else `HERALD_CONFIG`; nil for the built-in defaults.
    public var configPath: String?

    /// The options each verb passes through (herald-full's `Say` and `Pay`).
    static let passedOptions: [Verb: Set<String>] = [
        .say: ["config", "lang", "voice", "priority", "chime"],
        .pay: ["config", "currency", "lang", "priority", "chime"],
    ]

    /// The command in `arguments` (without the program's name), or nil when herald-full must
    /// handle it. `environmentConfig` is `HERALD_CONFIG`.
    public init?(arguments: [String], environmentConfig: String?) {
        guard let first = arguments.first, let verb = Verb(rawValue: first), let passed = Self.passedOptions[verb] else {
            return nil
        }
        var argument: String?
        var options: [String: String] = [:]
        var index = 1
        while index < arguments.count {
            let word = arguments[index]
            if word.hasPrefix("-") {
                guard word.hasPrefix("--"), word.count > 2 else { return nil }
                let nameAndValue = word.dropFirst(2).split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(nameAndValue[0])
                let value: String
                if nameAndValue.count == 2 {
                    value = String(nameAndValue[1])
                } else {
                    index += 1
                    guard index < arguments.count else { return nil }
                    value = arguments[index]
                }
                guard passed.contains(name), options[name] == nil, !value.isEmpty, !value.hasPrefix("-") else { return nil }
                options[name] = value
            } else {
                guard argument == nil else { return nil }
                argument = word
            }
            index += 1
        }
        guard let argument else { return nil }
        // herald-full's parser takes these words exactly (the API would also take `HIGH`).
        if let priority = options["priority"], !["critical", "high", "normal", "low"].contains(priority) { return nil }
        // herald-full's own checks of the text, so its words for them stay the only ones.
        if verb == .say && (!argument.contains { !$0.isWhitespace } || Self.hasControlCharacter(argument)) {
            return nil
        }
        self.verb = verb
        self.argument = argument
        self.configPath = options.removeValue(forKey: "config") ?? environmentConfig.flatMap { $0.isEmpty ? nil : $0 }
        self.options = options
    }

    /// The body of `POST /v1/announcements`, as herald-full's `DaemonClient` writes it: a
    /// payment is high priority unless told otherwise, and its currency is left to the daemon's
    /// config unless `--currency` names one.
    public var requestBody: String {
        var fields: [(String, String)] = []
        switch verb {
        case .say:
            fields.append(("text", Self.quoted(argument)))
        case .pay:
            var payment = [("amount", Self.quoted(argument))]
            if let currency = options["currency"] { payment.append(("currency", Self.quoted(currency))) }
            fields.append(("payment", Self.object(payment)))
        }
        fields.append(("priority", Self.quoted(options["priority"] ?? (verb == .pay ? "high" : "normal"))))
        for name in ["lang", "voice", "chime"] {
            if let value = options[name] { fields.append((name, Self.quoted(value))) }
        }
        return Self.object(fields)
    }

    /// herald-full's `ControlCharacter.isRefused` (Unicode's Cc but tab, line feed and carriage
    /// return), by value: this target links no HeraldCore.
    static func hasControlCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { ($0.value < 0x20 && !["\t", "\n", "\r"].contains($0)) || (0x7F...0x9F).contains($0.value) }
    }

    static func object(_ fields: [(String, String)]) -> String {
        "{" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
    }

    /// `text` as a JSON string: quotes, backslashes and control characters escaped.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
