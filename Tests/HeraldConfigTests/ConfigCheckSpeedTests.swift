import Foundation
import HeraldConfig
import Testing

/// A config file at the size limit is checked in well under a second, whatever it holds, and its
/// problems still name their lines. (It once took 27.7 s for 40,000 lines: every unknown key was
/// compared in full with every known one, and the file was parsed twice.)
@Suite(.serialized) struct ConfigCheckSpeedTests {
    /// Generous against a loaded machine; a debug build takes a fraction of it.
    static let limit = Duration.seconds(3)

    /// Close to 1 MiB of voice aliases, reminders and unknown sections, with `extra` at the end.
    static func largeFile(extra: String = "") -> String {
        var voices = "speech:\n  voices:\n", reminders = "reminders:\n  list:\n", unknown = ""
        var index = 0
        while voices.utf8.count + reminders.utf8.count + unknown.utf8.count < (1 << 20) - 2_000 {
            voices += "    alias_\(index): en-us+f\(index % 5)\n"
            reminders += "    medication_\(index):\n      text: Time to take medication number \(index)\n"
                + "      schedule:\n        daily: [\"08:00\", \"20:00\"]\n      priority: normal\n"
            unknown += "unknown_section_\(index):\n  some_key_\(index): value \(index)\n"
            index += 1
        }
        return "sink: kitchen\n" + voices + reminders + unknown + extra
    }

    func timed(_ text: String) async throws -> (problems: [ConfigProblem], elapsed: Duration, lines: Int) {
        let folder = try ConfigFolder()
        let started = ContinuousClock.now
        let problems = try await folder.problems(.utf8(text))
        return (problems, ContinuousClock.now - started, text.split(separator: "\n", omittingEmptySubsequences: false).count)
    }

    @Test func aLargeFileWithManyUnknownKeysIsCheckedQuickly() async throws {
        let text = Self.largeFile(extra: "safeguard:\n  min_volum: 40%\n")
        #expect(text.utf8.count <= 1 << 20)
        let (problems, elapsed, lines) = try await timed(text)
        #expect(elapsed < Self.limit, "\(lines) lines took \(elapsed)")
        let firstUnknown = try #require(text.range(of: "\nunknown_section_0:"))
        let line = text[..<firstUnknown.lowerBound].filter { $0 == "\n" }.count + 2
        #expect(problems.first { $0.key == "unknown_section_0" }?.line == line)
        let typo = try #require(problems.last)
        #expect(typo.line == lines - 1 && typo.key == "safeguard.min_volum", "\(typo)")
        #expect(typo.message == "unknown key; did you mean 'safeguard.min_volume'?")
        #expect(problems.filter { $0.message.hasPrefix("unknown key") }.count > 4_000)
    }

    /// A chain of 3,000 groups, each naming the one before, with a circle of three at its end:
    /// checked in under a second (a chain of 2,000 took 23 s when every group was walked on its
    /// own), the circle still named with its line (issue 42).
    @Test func aLongChainOfGroupsIsCheckedInUnderASecond() async throws {
        var text = "rooms:\n  kitchen: {sink: one}\ngroups:\n  g0: [kitchen]\n"
        for index in 1..<3_000 { text += "  g\(index): [g\(index - 1)]\n" }
        text += "  loop_a: [loop_b, g2999]\n  loop_b: [loop_c]\n  loop_c: [loop_a]\n"
        text += "defaults:\n  rooms: [g2999]\n"
        let (problems, elapsed, _) = try await timed(text)
        #expect(elapsed < .seconds(1), "3,000 chained groups took \(elapsed)")
        #expect(problems.map(\.key) == ["groups.loop_a", "groups.loop_b", "groups.loop_c"], "\(problems)")
        #expect(problems.first?.line == 3_004)
        #expect(problems.first?.message.contains("loop_a -> loop_b -> loop_c -> loop_a") == true, "\(problems)")
        let folder = try ConfigFolder()
        let chained = try await folder.load(.utf8(text.replacingOccurrences(of: "  loop_c: [loop_a]\n", with: "  loop_c: [kitchen]\n")))
        #expect(try chained.rooms.expand(["g2999"]).map(\.name) == ["kitchen"])
        #expect(chained.rooms.defaultRooms == ["g2999"])
    }

    /// A ring of 2,000 groups (each names the next, the last the first): every group is reported
    /// on the circle, in under a second.
    @Test func aRingOfGroupsIsCheckedInUnderASecond() async throws {
        var text = "rooms:\n  kitchen: {sink: one}\ngroups:\n"
        for index in 0..<2_000 { text += "  r\(index): [r\((index + 1) % 2_000), kitchen]\n" }
        let (problems, elapsed, _) = try await timed(text)
        #expect(elapsed < .seconds(1), "a ring of 2,000 groups took \(elapsed)")
        #expect(problems.count == 2_000 && problems.allSatisfy { $0.message.contains("name each other in a circle") }, "\(problems.prefix(3))")
        #expect(problems.first { $0.key == "groups.r5" }?.message.hasPrefix("the groups r5 -> r6 -> ") == true, "\(problems.prefix(1))")
    }

    @Test func aKeyWrittenTwiceAtTheEndOfALargeFileIsFoundQuickly() async throws {
        let text = Self.largeFile(extra: "queue:\n  limit: 10\n  limit: 20\n")
        let (problems, elapsed, lines) = try await timed(text)
        #expect(elapsed < Self.limit, "\(lines) lines took \(elapsed)")
        #expect(problems.map(\.description) == [
            "\(problems.first?.file ?? ""):\(lines - 1): queue.limit: written twice in the same section, on line \(lines - 2) and again here ('20'); keep one and delete the other",
        ])
    }

    @Test func manyKeysWrittenTwiceAreFoundQuickly() async throws {
        var text = Self.largeFile()
        text = String(text.prefix(900_000))
        text = String(text[..<text.lastIndex(of: "\n")!]) + "\n"
        // Sections written twice, the first early in the file: every round of the search reparses.
        text += (0..<100).map { "unknown_section_\($0):\n  again: 1\n" }.joined()
        let (problems, elapsed, lines) = try await timed(text)
        #expect(elapsed < Self.limit, "\(lines) lines took \(elapsed)")
        // A hundred names written twice in one section: the search for the second occurrence
        // gives up within its budget and names the first (it cannot know the line of the second).
        let firstUnknown = try #require(text.range(of: "\nunknown_section_0:"))
        let line = text[..<firstUnknown.lowerBound].filter { $0 == "\n" }.count + 2
        #expect(problems.map(\.key) == ["unknown_section_0"] && problems.first?.line == line, "\(problems.prefix(3))")
        #expect(problems.first?.message.contains("written more than once in the same section") == true)
    }

    @Test func aSyntaxErrorAtTheEndOfALargeFileIsFoundQuickly() async throws {
        let text = Self.largeFile(extra: "sounds: \"unclosed\n")
        let (problems, elapsed, lines) = try await timed(text)
        #expect(elapsed < Self.limit, "\(lines) lines took \(elapsed)")
        #expect(problems.count == 1 && problems.first?.line == lines - 1, "\(problems)")
    }
}
