import ArgumentParser
import Foundation
import HeraldCore
import PulseAudio

extension Herald {
    /// `herald noise calibrate ROOM`: hears the room as it is and proposes its threshold.
    struct NoiseCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "noise", abstract: "Calibrate a room's noise compensation (rooms.<room>.noise).", subcommands: [Calibrate.self])
    }
}

extension Herald.NoiseCommand {
    struct Calibrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "calibrate",
            abstract: "Listen to a room for a few seconds and propose its threshold: the noise floor + 10 dB.",
            discussion: """
                Run it when the room is as quiet as it normally gets while open (no rush, the usual \
                fridge and fan): announcements are then raised only when the room is louder than that. \
                Nothing is recorded to disk; only levels are computed.
                """)

        @OptionGroup var options: GlobalOptions

        @Argument(help: "The room, as rooms: names it.")
        var room: String

        @Option(help: "The microphone to listen to, when the room has no noise: section yet (pactl list short sources).")
        var source: String?

        @Option(help: "How long to listen, in seconds.")
        var seconds: Int = 5

        /// The margin over the floor paging DSPs' "set threshold" uses.
        static let margin = 10.0

        func run() async throws {
            let context = try await options.makeContext()
            guard let rooms = context.configuration.configuredRooms, let configured = rooms.room(named: room) else {
                throw fail("no room '\(room)' in the config; the rooms are \(context.configuration.configuredRooms?.rooms.map(\.name).joined(separator: ", ") ?? "not set (add rooms:)")")
            }
            guard (3...60).contains(seconds) else { throw ValidationError("--seconds must be from 3 to 60") }
            var noise = configured.noise ?? NoiseSettings(source: .named(source ?? ""))
            if let source { noise.source = .named(source) }
            guard configured.noise != nil || source != nil else {
                throw fail("room \(room) has no noise: section; name its microphone with --source NAME (pactl list short sources)")
            }
            let sound: PulseConnection
            do { sound = try await PulseConnection(applicationName: "Herald noise meter", timeout: .seconds(3), logger: context.logger) } catch {
                throw fail("no sound server: \(error)")
            }
            let picked: SourceState
            switch noise.pick(among: try await sound.sources()) {
            case .success(let found): picked = found
            case .failure(let problem): throw fail("room \(room): \(noise.describe(problem))")
            }
            if let problem = picked.problem { throw fail("room \(room): \(problem)") }
            print("listening to \(picked.name) (\(picked.description)) for \(seconds) s; nothing is kept")
            let blocks = try await SourceMeter.listen(to: picked.name, on: sound, for: .seconds(seconds))
            guard !blocks.isEmpty else { throw fail("\(picked.name) sent nothing in \(seconds) s; check that the device works (parecord -d \(picked.name) /tmp/check.wav)") }
            guard !blocks.allSatisfy(\.digitalSilence) else {
                throw fail("\(picked.name) reads digital silence (exact zeros): it is muted in hardware or dead; check its switch and capture level")
            }
            var floor = NoiseFloor(window: .seconds(seconds))
            for block in blocks where !block.digitalSilence { floor.add(block.dBFS) }
            guard let measured = floor.floor else { throw fail("too little was heard (\(blocks.count) blocks); listen longer with --seconds") }
            let loudest = blocks.map(\.dBFS).max() ?? measured
            let threshold = min(max((measured + Self.margin).rounded(), NoiseSettings.thresholdRange.lowerBound),
                                NoiseSettings.thresholdRange.upperBound)
            print("floor: \(NoiseReading.tenth(measured)) dBFS (10th percentile of 100 ms blocks, 300 Hz to 3.4 kHz); loudest block \(NoiseReading.tenth(loudest)) dBFS")
            print("proposed threshold: \(Int(threshold)) dB (the floor + \(Int(Self.margin)) dB): announcements are raised when the room gets louder than that")
            print("in the config:")
            print("rooms:")
            print("  \(room):")
            // A match stays a match: the microphone is found again when it moves to another port.
            let finds = if case .matching(let properties) = noise.source {
                "match: {" + properties.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
            } else { "source: \(picked.name)" }
            print("    noise: {\(finds), threshold: \(Int(threshold))dB, ratio: \(noise.ratio), max_gain: \(Int(noise.maxGainDB))dB}")
        }
    }
}
