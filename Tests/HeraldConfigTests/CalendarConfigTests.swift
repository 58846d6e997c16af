import Foundation
import HeraldConfig
import HeraldCore
import Testing

/// `calendars:` in the config file: read into typed values, and every mistake named with its line
/// and key (a bad URL, a poll under 15 s, an unknown field), as `herald config check` prints it.
@Suite struct CalendarConfigTests {
    @Test func aCalDAVAndAnICSCalendarAreRead() async throws {
        let folder = try ConfigFolder()
        try "app-password\n".write(toFile: folder.path + "/family.password", atomically: true, encoding: .utf8)
        let configuration = try await folder.load(.utf8("""
            calendars:
              family:
                caldav: https://cloud.example.org/remote.php/dav/calendars/anna/family/
                username: anna
                password_file: family.password
                poll: 2m
                lead: 1h
                at_start: true
                priority: high
              agency:
                ics: agency.ics
                all_day_at: "07:30"
            """))
        let family = try #require(configuration.calendars.first { $0.name == "family" })
        #expect(family.source == .caldav(URL(string: "https://cloud.example.org/remote.php/dav/calendars/anna/family/")!))
        #expect(family.username == "anna" && family.password == "app-password", "a password file relative to the config")
        #expect(family.poll == .seconds(120) && family.lead == .seconds(3600) && family.atStart && family.priority == .high)
        let agency = try #require(configuration.calendars.first { $0.name == "agency" })
        #expect(agency.source == .icsFile(folder.path + "/agency.ics") && agency.allDayAt == LocalTime(hour: 7, minute: 30))
        #expect(agency.lead == .seconds(1800) && agency.poll == .seconds(60), "the defaults")
    }

    @Test func eachMistakeIsNamedWithItsLineAndKey() async throws {
        let folder = try ConfigFolder()
        let problems = try await folder.problems(.utf8("""
            calendars:
              family:
                caldav: cloud.example.org/family
                poll: 5s
                colour: blue
              agency:
                ics: https://example.org/a.ics
                caldav: https://example.org/dav/
              nothing:
                lead: 30m
            """))
        func problem(_ key: String) -> ConfigProblem? { problems.first { $0.key == key } }
        #expect(problem("calendars.family.colour")?.message.contains("unknown field") == true, "\(problems)")
        #expect(problem("calendars.family.colour")?.line == 5)
        #expect(problem("calendars.family.caldav")?.message.contains("not an http(s) URL") == true, "\(problems)")
        #expect(problem("calendars.family.caldav")?.line == 3)
        #expect(problem("calendars.agency.ics")?.message.contains("not both") == true, "\(problems)")
        #expect(problem("calendars.nothing")?.message.contains("needs caldav:") == true, "\(problems)")
        let poll = try #require(try await folder.problems(.utf8("calendars:\n  family:\n    ics: a.ics\n    poll: 5s\n")).first)
        #expect(poll.key == "calendars.family.poll" && poll.line == 4 && poll.message.contains("15s"), "\(poll)")
    }
}
