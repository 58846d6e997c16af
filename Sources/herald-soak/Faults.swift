import Foundation
import HeraldTesting

/// The faults of a box nobody looks at, one at a time at random moments, each kind in turn in a
/// seeded order (so a short soak still tries each): a kill -9 of the daemon (some aimed at the end
/// of an announcement), the sound server killed and started again (with and without its saved
/// state), a sink unplugged and plugged back, the default sink moved, the broker restarted, the
/// database's disk full for a while (with a crash while it is full).
struct Faults: Sendable {
    enum Kind: String, CaseIterable {
        case daemonKill = "kill -9 daemon"
        case aimedKill = "kill -9 at an announcement's end"
        case pulseRestart = "PulseAudio killed, restarted"
        case pulseFresh = "PulseAudio back with no saved state"
        case sinkUnplug = "sink unplugged and back"
        case defaultMoves = "default sink changed"
        case brokerRestart = "broker restarted"
        case diskFull = "disk full for a while"
        case diskFullCrash = "disk full, then kill -9"
    }

    let herald: HeraldUnderTest
    let sound: SoundWorld
    let broker: Broker
    let history: History
    let deadline: Date
    /// The state folder is a tmpfs of its own (the soak runs as root): the disk can be filled.
    let canFillDisk: Bool
    /// Seconds between two faults: 8 to 25 by default; one every 30 minutes in `--few-faults`
    /// mode, so a daemon lives long enough for its memory to be watched over hours.
    var spacing: ClosedRange<Double> = 8...25

    func run(random: inout SeededRandom) async {
        var kinds = Kind.allCases.filter { canFillDisk || ($0 != .diskFull && $0 != .diskFullCrash) }
        var turn = 0
        while true {
            try? await Task.sleep(for: .seconds(random: spacing, using: &random))
            guard Date() < deadline.addingTimeInterval(-20) else { return }
            if turn % kinds.count == 0 { kinds.shuffle(using: &random) }
            let kind = kinds[turn % kinds.count]
            turn += 1
            await apply(kind, random: &random)
        }
    }

    /// Milliseconds until the clip playing now ends, by the daemon's status; nil when none with a
    /// known length plays within `seconds` (a streamed sentence's length is known only at its end).
    private func clipRemaining(within seconds: Double) async -> Int? {
        let until = Date().addingTimeInterval(seconds)
        while Date() < until {
            if let daemon = await herald.snapshot(), let current = daemon["current"] as? [String: Any],
               let length = current["duration_milliseconds"] as? Int, let elapsed = daemon["current_elapsed_milliseconds"] as? Int,
               length - elapsed > 100 {
                return length - elapsed
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    private func apply(_ kind: Kind, random: inout SeededRandom) async {
        // An aimed kill is recorded when it is sent, after its wait: the report measures it
        // against the last sample heard.
        if kind != .aimedKill { history.fault(kind.rawValue) }
        switch kind {
        case .daemonKill:
            herald.kill9()
        case .aimedKill:
            // Just after the last sample heard, where a kill used to make it be said again:
            // aimed from the status (a clip's length and how far in it is), else from the
            // monitors (once they have heard 0.2 s of silence, which lands later). Never before
            // the end: a kill then cuts the announcement, and saying it again is the design.
            let offset = Int.random(in: 10...70, using: &random)
            if let remaining = await clipRemaining(within: 20) {
                try? await Task.sleep(for: .milliseconds(remaining + offset))
            } else {
                let waitUntil = Date().addingTimeInterval(20)
                while Date() < waitUntil, !SoundWorld.sinks.contains(where: { sound.monitors[$0]!.hearingNow }) {
                    try? await Task.sleep(for: .milliseconds(20))
                }
                while Date() < waitUntil, SoundWorld.sinks.contains(where: { sound.monitors[$0]!.hearingNow }) {
                    try? await Task.sleep(for: .milliseconds(10))
                }
                try? await Task.sleep(for: .milliseconds(offset))
            }
            history.aimedKill(lastHeard: SoundWorld.sinks.compactMap { sound.monitors[$0]!.lastHeard }.max())
            herald.kill9()
        case .pulseRestart, .pulseFresh:
            await sound.kill9()
            try? await Task.sleep(for: .seconds(random: 0.5...4, using: &random))
            do {
                try await sound.start(savedState: kind == .pulseRestart)
                history.serverRestarted(SoundWorld.sinks + ["radio"])
            } catch {
                say("soak: \(error)")
            }
        case .sinkUnplug:
            let sink = ["soak_b", "soak_c"].randomElement(using: &random)!
            await sound.unplug(sink)
            try? await Task.sleep(for: .seconds(random: 1...8, using: &random))
            await sound.plugBack(sink)
            history.serverRestarted([sink])
        case .defaultMoves:
            _ = await sound.pactl(["set-default-sink", SoundWorld.sinks.randomElement(using: &random)!])
        case .brokerRestart:
            await broker.stop()
            try? await Task.sleep(for: .seconds(random: 0.5...5, using: &random))
            try? await broker.start()
        case .diskFull, .diskFullCrash:
            let filler = herald.stateFolder + "/filler"
            fill(filler)
            if kind == .diskFullCrash {
                try? await Task.sleep(for: .seconds(random: 2...8, using: &random))
                herald.kill9()
            }
            try? await Task.sleep(for: .seconds(random: 3...15, using: &random))
            try? FileManager.default.removeItem(atPath: filler)
        }
    }

    /// Writes to `path` until the disk says it is full.
    private func fill(_ path: String) {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        guard let handle = FileHandle(forWritingAtPath: path) else { return }
        defer { try? handle.close() }
        for size in [1 << 20, 1 << 12, 1 << 9] {
            let chunk = Data(count: size)
            while (try? handle.write(contentsOf: chunk)) != nil {}
        }
    }
}

/// A person at the box: changes a sink's volume or mute, or the radio's volume, at random
/// moments, some of them while an announcement plays or ramps.
struct User: Sendable {
    let sound: SoundWorld
    let history: History
    let deadline: Date

    func run(random: inout SeededRandom) async {
        while Date() < deadline.addingTimeInterval(-15) {
            try? await Task.sleep(for: .seconds(random: 2...9, using: &random))
            if Double.random(in: 0..<1, using: &random) < 0.4 {
                // During one: wait until something is heard, then a little more (the ramp).
                let until = Date().addingTimeInterval(10)
                while Date() < until, !SoundWorld.sinks.contains(where: { sound.monitors[$0]!.hearingNow }) {
                    try? await Task.sleep(for: .milliseconds(20))
                }
                try? await Task.sleep(for: .milliseconds(Int.random(in: 0...400, using: &random)))
            }
            if history.handsOff { continue }
            let percent = Int.random(in: 5...100, using: &random)
            let muted = Double.random(in: 0..<1, using: &random) < 0.3
            let sink = SoundWorld.sinks.randomElement(using: &random)!
            if Double.random(in: 0..<1, using: &random) < 0.25 {
                guard let radio = await sound.radioSetting(), radio.setting.percent != percent else { continue }
                if await sound.pactl(["set-sink-input-volume", "\(radio.index)", "\(percent)%"]).status == 0 {
                    history.userChanged("radio", percent: percent, muted: nil)
                }
                continue
            }
            // A person changes what is not already so: pressing mute on a muted speaker (one
            // Herald unmuted for an announcement, say) is no change anybody could see.
            guard let now = await sound.sinkSettings()?[sink] else { continue }
            let setVolume = now.percent != percent
            let setMute = now.muted != muted
            if setVolume, await sound.pactl(["set-sink-volume", sink, "\(percent)%"]).status == 0 {
                history.userChanged(sink, percent: percent, muted: nil)
            }
            if setMute, await sound.pactl(["set-sink-mute", sink, muted ? "1" : "0"]).status == 0 {
                history.userChanged(sink, percent: nil, muted: muted)
            }
        }
    }
}
