import Foundation

/// One check of `herald doctor`: what was looked at, what was found, and what to do about it.
public struct DoctorFinding: Codable, Sendable, Equatable {
    public enum Level: String, Codable, Sendable, Comparable {
        /// Fine as it is.
        case ok
        /// Speech is still heard, but something is off (slower, synthesized, not logged...).
        case warning
        /// Speech would not be heard until this is fixed: `herald doctor` exits non-zero.
        case problem

        public static func < (a: Level, b: Level) -> Bool { a.rank < b.rank }
        private var rank: Int { switch self { case .ok: 0; case .warning: 1; case .problem: 2 } }
    }

    /// Short and stable, for scripts: `sound server`, `sink`, `voice pack en`...
    public var check: String
    public var level: Level
    /// What was found, in a sentence.
    public var detail: String
    /// What to do about it; nil when nothing needs doing.
    public var action: String?

    public init(_ check: String, _ level: Level, _ detail: String, action: String? = nil) {
        self.check = check
        self.level = level
        self.detail = detail
        self.action = action
    }
}

/// Every finding of one `herald doctor` run.
public struct DoctorReport: Codable, Sendable {
    public var findings: [DoctorFinding]

    public init(findings: [DoctorFinding]) { self.findings = findings }

    /// False when any finding is a problem: an announcement made now would not be heard.
    public var speechWouldBeHeard: Bool { !findings.contains { $0.level == .problem } }

    /// One line per check, with what to do indented under it.
    public var text: String {
        var lines: [String] = []
        for finding in findings {
            let level = finding.level.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
            let check = finding.check.padding(toLength: 16, withPad: " ", startingAt: 0)
            lines.append("\(level) \(check) \(finding.detail)")
            if let action = finding.action { lines.append("         \(String(repeating: " ", count: 16)) -> \(action)") }
        }
        let problems = findings.filter { $0.level == .problem }.count, warnings = findings.filter { $0.level == .warning }.count
        lines.append(speechWouldBeHeard
            ? "speech would be heard\(warnings > 0 ? " (\(warnings) warning\(warnings == 1 ? "" : "s"))" : "")"
            : "speech would NOT be heard: \(problems) problem\(problems == 1 ? "" : "s") above")
        return lines.joined(separator: "\n")
    }

    enum CodingKeys: String, CodingKey { case findings = "checks", speechWouldBeHeard = "speech_would_be_heard" }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(speechWouldBeHeard, forKey: .speechWouldBeHeard)
        try container.encode(findings, forKey: .findings)
    }

    public init(from decoder: any Decoder) throws {
        findings = try decoder.container(keyedBy: CodingKeys.self).decode([DoctorFinding].self, forKey: .findings)
    }
}
