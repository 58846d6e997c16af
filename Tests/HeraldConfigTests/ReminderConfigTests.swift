import Foundation
import HeraldConfig
import HeraldCore
import Testing

/// `reminders:` and `quiet_hours:` in the config file: read into typed values, and every mistake
/// named with its line and key, as `herald config check` prints it.
@Suite struct ReminderConfigTests {
    @Test func remindersAndQuietHoursAreRead() async throws {
        let folder = try ConfigFolder()
        let configuration = try await folder.load(.utf8("""
            reminders:
              grace: 10m
              escalate: https://example.org/hook
              list:
                medication:
                  text: Time to take your blood pressure medication
                  time_zone: Europe/Berlin
                  schedule:
                    daily: ["08:00", "20:00"]
                    days: [mon-fri]
                  repeat:
                    every: 5m
                    times: 2
            quiet_hours:
              windows: ["22:00-07:00"]
              target_volume: 30%
            priorities:
              normal:
                quiet_hours: suppress
            """))
        #expect(configuration.reminders.grace == .seconds(600))
        #expect(configuration.reminders.escalate == "https://example.org/hook")
        let reminder = try #require(configuration.reminders.list.first)
        #expect(reminder.id == "config:medication" && reminder.origin == .config)
        #expect(reminder.schedule == .daily(times: [LocalTime(hour: 8, minute: 0), LocalTime(hour: 20, minute: 0)],
                                            days: [.mon, .tue, .wed, .thu, .fri]))
        #expect(reminder.repeats == ReminderRepeat(every: .seconds(300), times: 2))
        #expect(configuration.quietHours.windows == [QuietWindow("22:00-07:00")!])
        #expect(configuration.quietHours.targetVolume == Volume(percent: 30))
        #expect(configuration.quietHours.policies[.normal] == .suppress)
    }

    @Test func aReminderMayBeAClipFromTheSoundsFolder() async throws {
        let folder = try ConfigFolder()
        let configuration = try await folder.load(.utf8("""
            reminders:
              list:
                door:
                  clip: ding
                  schedule:
                    daily: ["18:00"]
            """))
        let reminder = try #require(configuration.reminders.list.first)
        #expect(reminder.bodyKind == .file && reminder.body.hasSuffix("chimes/ding.flac"), "\(reminder.body)")
        let problems = try await folder.problems(.utf8("""
            reminders:
              list:
                door:
                  clip: doorbell-that-is-not-there
                  schedule:
                    daily: ["18:00"]
                both:
                  clip: ding
                  text: Ding
                  schedule:
                    daily: ["18:00"]
            """))
        #expect(problems.map { "\($0.line ?? 0) \($0.key)" } == ["4 reminders.list.door.clip", "8 reminders.list.both.clip"])
    }

    @Test func eachMistakeHasItsLineAndKey() async throws {
        let folder = try ConfigFolder()
        let problems = try await folder.problems(.utf8("""
            reminders:
              escalate: ftp://example.org/hook
              list:
                pills:
                  text: Pills
                  time_zone: Mars/Olympus
                  schedule:
                    daily: ["08:00"]
                walk:
                  text: Walk
                  schedule:
                    daily: ["25:00"]
                water:
                  text: Water
                  schedule:
                    every: 0m
                    from: "09:00"
                    until: "17:00"
                stretch:
                  text: Stretch
                  schedule:
                    daily: ["08:00"]
                    days: [funday]
                  repeat:
                    times: 3
            quiet_hours:
              windows: ["22:00"]
            priorities:
              critical:
                quiet_hours: defer
            """))
        let found = problems.map { "\($0.line ?? 0) \($0.key)" }
        #expect(found == ["2 reminders.escalate", "6 reminders.list.pills.time_zone", "12 reminders.list.walk.schedule.daily",
                          "16 reminders.list.water.schedule.every", "23 reminders.list.stretch.schedule.days",
                          "27 quiet_hours.windows", "30 priorities.critical.quiet_hours"], "\(problems)")
    }

    @Test func everyUnknownFieldOfAReminderIsNamedAtOnce() async throws {
        let problems = try await ConfigFolder().problems(.utf8("""
            reminders:
              list:
                pills:
                  text: Pills
                  colour: red
                  schedule:
                    daily: ["08:00"]
                  volume: 80%
            """))
        #expect(problems.map { "\($0.line ?? 0) \($0.key)" } == ["5 reminders.list.pills.colour", "8 reminders.list.pills.volume"], "\(problems)")
    }
}
