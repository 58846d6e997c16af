import ArgumentParser
import Foundation
import HeraldApp
import HeraldConfig
import HeraldCore
import Logging
import Speech

extension Herald {
    struct ConfigCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "config", abstract: "Work with the config file.", subcommands: [Check.self])

        struct Check: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "check",
                abstract: "Check a config file; every problem is printed as FILE:LINE: KEY: what to do.")

            @OptionGroup var options: GlobalOptions

            @Argument(help: ArgumentHelp("The file to check (default: --config, then $HERALD_CONFIG).", valueName: "FILE"))
            var file: String?

            func run() async throws {
                guard let path = file ?? options.configPath else {
                    print("no config file given: the built-in defaults apply (see Config/herald.yaml)")
                    return
                }
                let environment = ProcessInfo.processInfo.environment
                do {
                    var draft = try HeraldConfiguration.draft(
                        file: path, stateDirectory: HeraldConfiguration.defaultStateDirectory(environment: environment))
                    draft.check()
                    let soundNotes = await draft.checkNoiseSources(logger: Logger(label: "herald.config"))
                    let configuration = try draft.finished()
                    let safeguard = configuration.safeguard
                    print("\(path): OK")
                    for note in soundNotes { print("  note: \(note)") }
                    for exposure in SecretFile.exposed(configuration.secretFiles) { print("  warning: \(exposure)") }
                    print("  sink: \(safeguard.sinkName ?? "(the server's default sink)")")
                    if let rooms = configuration.configuredRooms {
                        for room in rooms.rooms {
                            let quiet = room.quietWindows.map { $0.isEmpty ? "never quiet" : "quiet \($0.map(\.description).joined(separator: ", "))" }
                            print("  room \(room.name): sink \(room.sink); raise below \(room.safeguard.minVolume) to \(room.safeguard.targetVolume), mute \(room.safeguard.mutePolicy.rawValue)\(quiet.map { "; \($0)" } ?? "")")
                            if let noise = room.noise {
                                print("    noise: microphone \(noise.source); raised \(noise.ratio) dB per dB of noise floor above \(noise.thresholdDB) dB, at most +\(noise.maxGainDB) dB, never above \(room.safeguard.maxVolume); floor over \(DurationText.format(noise.window))")
                            }
                        }
                        for (group, members) in rooms.groups.sorted(by: { $0.key < $1.key }) {
                            print("  group \(group): \(members.joined(separator: ", "))")
                        }
                        let byPriority = Priority.allCases.compactMap { priority in
                            rooms.roomsByPriority[priority].map { "\(priority.rawValue) to \($0.joined(separator: ", "))" }
                        }
                        print("  announcements go to: \(rooms.defaultRooms.joined(separator: ", ")) unless they name rooms\(byPriority.isEmpty ? "" : " (\(byPriority.joined(separator: "; ")))")")
                    }
                    print("  volume: raise below \(safeguard.minVolume) to \(safeguard.targetVolume), never above \(safeguard.maxVolume)")
                    print("  duck others to \(Int((safeguard.duckLevel * 100).rounded()))% over \(safeguard.rampMilliseconds) ms; mute: \(safeguard.mutePolicy.rawValue)")
                    let classes = SinkDeviceClass.allCases.map { "\($0.rawValue) \(safeguard.leadInByClass[$0] ?? 0) ms" }
                    let sinks = safeguard.leadInBySink.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value) ms" }
                    print("  lead-in (\(safeguard.leadIn.rawValue)): \((classes + sinks).joined(separator: ", "))")
                    let priorities = Priority.allCases.map { priority in
                        let mute = configuration.priorities.mutePolicy(for: priority, fallback: safeguard.mutePolicy)
                        return "\(priority.rawValue) \(mute.rawValue), waits \(DurationText.format(configuration.priorities[priority].maxAge))"
                    }
                    print("  priorities: \(priorities.joined(separator: "; "))")
                    print("  database: \(configuration.databasePath)")
                    let speech = configuration.speech
                    let engineDetail = switch speech.engine {
                    case .command: " (\(speech.command))"
                    case .piper: " (\(speech.piper.model), espeak-ng for what it cannot say)"
                    case .espeakNG: ""
                    }
                    print("  speech: \(speech.engine.rawValue)\(engineDetail), language \(speech.language), rate \(speech.rate), pitch \(speech.pitch), currency \(speech.currency.code)")
                    if let (notice, action) = speech.englishPhrasesNotice(for: speech.language) {
                        print("  note: \(notice); \(action)")
                    }
                    print("  voice packs: \(speech.packsDirectory)")
                    print("  cache: \(configuration.cache.directory), at most \(configuration.cache.maxBytes) bytes, \(configuration.cache.warm.count) sentence(s) to warm")
                    let chimes = Priority.allCases.map { "\($0.rawValue) \(configuration.chimes[$0].map { ($0 as NSString).lastPathComponent } ?? "none")" }
                    print("  chimes: \(chimes.joined(separator: ", "))")
                    for calendar in configuration.calendars {
                        let source = switch calendar.source {
                        case .caldav(let url): "CalDAV \(url.host ?? "")"
                        case .icsURL(let url): ".ics from \(url.host ?? "")"
                        case .icsFile(let path): ".ics file \(path)"
                        }
                        print("  calendar \(calendar.name): \(source), read every \(DurationText.format(calendar.poll)), "
                              + "said \(DurationText.format(calendar.lead)) ahead unless an event has alarms of its own\(calendar.atStart ? " and at its start" : "")")
                    }
                } catch let error as ConfigError {
                    for problem in error.problems {
                        FileHandle.standardError.write(Data("\(problem)\n".utf8))
                    }
                    throw ExitCode.failure
                }
            }
        }
    }
}
