import Foundation

/// The soak's table and its verdict.
enum Soak {
    /// Nothing playing, nothing queued, the safeguard closed.
    static func idle(_ snapshot: [String: Any]) -> Bool {
        let depth = (snapshot["queue_depth"] as? [String: Int])?.values.reduce(0, +) ?? 0
        return (snapshot["current"] == nil || snapshot["current"] is NSNull) && snapshot["safeguard_open"] as? Bool == false && depth == 0
    }

    /// Prints the table; returns the number of violations.
    static func report(_ findings: Checker.Findings, history: History, heard: Int, aimedKills: [Double], idleChecks: Int, minutes: Double,
                       seed: UInt64, rooms: Bool, fewFaults: Bool = false, folder: String, finalCheckDone: Bool) -> Int {
        let faults = history.with { $0.faults }
        let (changes, leftChanged, healthFailures, healthChecks, samples) = history.with {
            ($0.userChanges, $0.leftChanged, $0.healthFailures, $0.healthChecks, $0.resources)
        }
        say("\nSoak of \(String(format: "%.1f", minutes)) minutes, seed \(seed)\(rooms ? ", three rooms" : "")")
        say("| fault | trials |\n|---|---|")
        for kind in Faults.Kind.allCases {
            say("| \(kind.rawValue) | \(faults.filter { $0.kind == kind.rawValue }.count) |")
        }
        say("| user changed a volume or mute | \(changes) |")
        let outcomes = findings.outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let first = samples.first, last = samples.last
        let growth = resourceGrowth(samples)
        say("""

            | accepted | lost | said twice | heard, not asked | logged played, not heard | left changed | reminders due | reminder problems | health unanswered | RSS start, end | anon start, end | FDs start, end |
            |---|---|---|---|---|---|---|---|---|---|---|---|
            | \(findings.accepted) | \(findings.lost.count) | \(findings.twice.count) | \(findings.unasked.count) | \(findings.notHeard.count) | \(leftChanged.count) of \(idleChecks) checks | \(findings.reminders) | \(findings.reminderProblems.count) | \(healthFailures.count) of \(healthChecks) | \(first.map { String(format: "%.1f", $0.rssMB) } ?? "-") MB, \(last.map { String(format: "%.1f", $0.rssMB) } ?? "-") MB | \(first.map { String(format: "%.1f", $0.anonMB) } ?? "-") MB, \(last.map { String(format: "%.1f", $0.anonMB) } ?? "-") MB | \(first.map { "\($0.fds)" } ?? "-"), \(last.map { "\($0.fds)" } ?? "-") |

            outcomes of the accepted: \(outcomes); \(heard) stretches of sound heard on the monitors;
            \(findings.plays) plays seen on the event stream, \(findings.playsAgain) of them an announcement begun again
            """)
        say(memoryTable(samples))
        if !aimedKills.isEmpty {
            let sorted = aimedKills.sorted()
            let window = sorted.filter { $0 >= -15 && $0 <= 70 }.count
            say(String(format: "aimed kills: %d, sent %.0f to %.0f ms after the last sample heard (median %.0f); %d of them within -15 to 70 ms, where a row used to be said again",
                       sorted.count, sorted.first!, sorted.last!, sorted[sorted.count / 2], window))
        }
        var problems: [String] = findings.lost.map { "lost: \($0)" } + findings.twice.map { "said twice: \($0)" }
            + findings.unasked.map { "heard, not asked for: \($0)" } + findings.notHeard.map { "not heard: \($0)" }
            + findings.refused.map { "refused: \($0)" } + findings.reminderProblems.map { "reminder: \($0)" }
            + leftChanged.map { "left changed: \($0)" } + healthFailures.map { "health unanswered within 1 s at \($0)" }
            + growth
        if !finalCheckDone { problems.append("the final look at the sinks never found the daemon idle") }
        if problems.isEmpty {
            say("no violation")
        } else {
            for problem in problems.prefix(60) { say("VIOLATION \(problem)") }
            say("\(problems.count) violations; replay with: scripts/soak.sh --minutes \(minutes.rounded(.up)) --seed \(seed)\(rooms ? " --rooms" : "")\(fewFaults ? " --few-faults" : "") (logs kept in \(folder))")
        }
        return problems.count
    }

    /// Each daemon process's RSS, its anonymous part and of that the decoded-clip store, against
    /// its age: at 1, 5, 30, 60 and 120 minutes (when it lived that long) and at its end.
    static func memoryTable(_ samples: [ResourceSample]) -> String {
        let ages: [Double] = [1, 5, 30, 60, 120]
        func cell(_ sample: ResourceSample) -> String {
            String(format: "%.1f / %.1f / ", sample.rssMB, sample.anonMB) + (sample.decodedClipsMB.map { String(format: "%.1f MB", $0) } ?? "- MB")
        }
        var lines = ["\n| daemon | lived | " + ages.map { "RSS / anon / clips at \(Int($0)) min" }.joined(separator: " | ") + " | at its end |",
                     "|---|---|" + String(repeating: "---|", count: ages.count + 1)]
        for life in Dictionary(grouping: samples, by: \.pid).values.sorted(by: { $0[0].at < $1[0].at }) {
            guard let last = life.last else { continue }
            let born = life[0].at
            let cells = ages.map { age in life.first { $0.at.timeIntervalSince(born) >= age * 60 }.map(cell) ?? "-" }
            lines.append(String(format: "| %d | %.1f min | ", last.pid, last.at.timeIntervalSince(born) / 60)
                         + cells.joined(separator: " | ") + " | \(cell(last)) |")
        }
        return lines.joined(separator: "\n")
    }

    /// Memory or descriptors that grew within one daemon's life of 10 minutes or more; and, for a
    /// life of 40 minutes or more, memory that still grew after its first 30 minutes by more than
    /// 15% + 8 MB (a daemon warms its caches in its first minutes, then should stay level).
    /// Growth is judged on the anonymous part less the decoded-clip store (`ownMB`): the
    /// file-backed rest grows as code paths are first taken, up to the size of the binary, and the
    /// store up to its bound; neither is a leak.
    static func resourceGrowth(_ samples: [ResourceSample]) -> [String] {
        var problems: [String] = []
        for (pid, life) in Dictionary(grouping: samples, by: \.pid) {
            guard let first = life.first(where: { $0.at.timeIntervalSince(life[0].at) >= 60 }), let last = life.last,
                  last.at.timeIntervalSince(first.at) >= 600 else { continue }
            if last.fds > first.fds + 20 { problems.append("daemon \(pid): file descriptors \(first.fds) -> \(last.fds)") }
            if last.ownMB > first.ownMB * 1.5 + 10 {
                problems.append("daemon \(pid): anonymous memory less decoded clips \(String(format: "%.1f -> %.1f", first.ownMB, last.ownMB)) MB")
            }
            if let settled = life.first(where: { $0.at.timeIntervalSince(life[0].at) >= 1800 }),
               last.at.timeIntervalSince(life[0].at) >= 2400, last.ownMB > settled.ownMB * 1.15 + 8 {
                problems.append("daemon \(pid): anonymous memory less decoded clips still grew after 30 minutes, \(String(format: "%.1f -> %.1f", settled.ownMB, last.ownMB)) MB")
            }
        }
        return problems
    }
}
