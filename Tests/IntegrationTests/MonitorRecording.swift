import Foundation
import HeraldTesting

/// What the test sink's `.monitor` source carried: the truth about what was heard.
///
/// Records with parec as raw float32 at 48 kHz (mono unless asked), and measures the level of a given tone
/// window by window (Goertzel with a Hann window, so a loud tone does not leak into another's bin).
final class MonitorRecording {
    static let rate = 48_000
    let path: String
    let process: Process
    private(set) var samples: [Float] = []

    /// Interleaved channels in `samples`: 1 for every measure below but `firstSounds`.
    let channels: Int

    /// Records `sink`'s monitor on the test server, or on the server `pulse` names; `channels`
    /// of 4 records a 4-channel sink's channels apart (front-left, front-right, rear-left,
    /// rear-right), each room on a channel of its own: several rooms on one clock.
    init(sink: String = SoundServer.sink, pulse: String? = nil, channels: Int = 1) throws {
        self.channels = channels
        path = NSTemporaryDirectory() + "herald-monitor-\(UUID().uuidString).raw"
        FileManager.default.createFile(atPath: path, contents: nil)
        let output = FileHandle(forWritingAtPath: path)!
        process = try SoundServer.start("parec", [
            "-d", "\(sink).monitor", "--raw", "--format=float32le", "--rate=\(Self.rate)",
            "--channels=\(channels)", "--latency-msec=10",
        ] + (channels == 4 ? ["--channel-map=\(LatencyTestBed.parecChannelMap)"] : []), environment: pulse.map { ["PULSE_SERVER": $0] } ?? [:], output: output)
        // parec needs a moment to connect; the tests wait for its first bytes. A readiness wait,
        // not a timing check: at the start of a run, with every unit suite starting beside the
        // first integration test on 2 cores, parec once took more than 5 s (AdminPageTests, CI).
        try SoundServer.waitFor("parec to start", timeout: 20) {
            ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) > 0
        }
    }

    /// The recording's position now, in seconds: how much audio parec has written. Wall-clock time
    /// does not line up with the recording (parec starts capturing a while after it starts), but
    /// the amount written so far does, within parec's 10 ms latency.
    var position: Double {
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        return Double(bytes / 4) / Double(Self.rate)
    }

    /// Stops recording and loads the samples.
    func stop() {
        // SIGKILL: children of the test runner inherit its blocked SIGTERM, and parec writes straight to the file.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let data = FileManager.default.contents(atPath: path) ?? Data()
        samples = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Seconds of audio recorded.
    var duration: Double { Double(samples.count / channels) / Double(Self.rate) }

    /// Seconds from the start of the recording to each channel's first sample louder than
    /// `floor`: to the sample, where a window's level is 21 ms coarse.
    func firstSounds(above floor: Float = 0.02) -> [Double?] {
        (0..<channels).map { channel in
            stride(from: channel, to: samples.count, by: channels).first { abs(samples[$0]) > floor }
                .map { Double($0 / channels) / Double(Self.rate) }
        }
    }

    /// The amplitude of `frequency` in each 1024-sample window (about 21 ms).
    func toneLevels(frequency: Double) -> [Double] {
        let window = 1024
        let hann = (0..<window).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(window - 1)) }
        let coefficient = 2 * cos(2 * Double.pi * frequency / Double(Self.rate))
        return stride(from: 0, to: samples.count - window, by: window).map { start in
            var s1 = 0.0, s2 = 0.0
            for i in 0..<window {
                let s = Double(samples[start + i]) * hann[i] + coefficient * s1 - s2
                s2 = s1
                s1 = s
            }
            let power = max(0, s1 * s1 + s2 * s2 - coefficient * s1 * s2)
            return 2 * power.squareRoot() / (Double(window) / 2)
        }
    }

    /// The typical level of `frequency` while it sounds: the median of windows above `floor`.
    func heardLevel(frequency: Double, floor: Double = 0.01) -> Double {
        let loud = toneLevels(frequency: frequency).filter { $0 > floor }.sorted()
        return loud.isEmpty ? 0 : loud[loud.count / 2]
    }

    /// Seconds from the start of the recording to the first window where `frequency` exceeds `floor`.
    func firstHeard(frequency: Double, floor: Double = 0.01) -> Double? {
        toneLevels(frequency: frequency).firstIndex { $0 > floor }.map { Double($0 * 1024) / Double(Self.rate) }
    }

    /// Seconds from the start of the recording to the end of the last window where `frequency` exceeds `floor`.
    func lastHeard(frequency: Double, floor: Double = 0.01) -> Double? {
        toneLevels(frequency: frequency).lastIndex { $0 > floor }.map { Double(($0 + 1) * 1024) / Double(Self.rate) }
    }

    /// How long `frequency` was above `floor`, in seconds.
    func heardDuration(frequency: Double, floor: Double = 0.01) -> Double {
        Double(toneLevels(frequency: frequency).filter { $0 > floor }.count * 1024) / Double(Self.rate)
    }

    /// The loudest level of `frequency` in a time range (seconds from the start).
    func level(frequency: Double, from: Double, to: Double) -> Double {
        let window = 1024.0 / Double(Self.rate)
        return toneLevels(frequency: frequency).enumerated()
            .filter { Double($0.offset) * window >= from && Double($0.offset + 1) * window <= to }
            .map(\.element).max() ?? 0
    }

    /// The median level of `frequency` over a time range (seconds from the start).
    func medianLevel(frequency: Double, from: Double, to: Double) -> Double {
        let window = 1024.0 / Double(Self.rate)
        let levels = toneLevels(frequency: frequency).enumerated()
            .filter { Double($0.offset) * window >= from && Double($0.offset + 1) * window <= to }
            .map(\.element).sorted()
        return levels.isEmpty ? 0 : levels[levels.count / 2]
    }

    /// The loudest sample in a time range, in seconds from the start.
    func peak(from: Double, to: Double) -> Float {
        let lower = max(0, Int(from * Double(Self.rate))), upper = min(samples.count, Int(to * Double(Self.rate)))
        guard lower < upper else { return 0 }
        return samples[lower..<upper].map(abs).max() ?? 0
    }

    /// The RMS of each 1024-sample window: for speech, which is no single tone.
    func rmsLevels() -> [Double] {
        stride(from: 0, to: samples.count - 1024, by: 1024).map { start in
            (samples[start..<(start + 1024)].reduce(0.0) { $0 + Double($1) * Double($1) } / 1024).squareRoot()
        }
    }

    /// The longest run of windows quieter than `floor` between the first and the last sound, in
    /// seconds: the longest pause a listener heard inside what was said.
    func longestSilence(floor: Double = 0.003) -> Double {
        let levels = rmsLevels()
        guard let first = levels.firstIndex(where: { $0 > floor }), let last = levels.lastIndex(where: { $0 > floor })
        else { return 0 }
        var longest = 0, run = 0
        for level in levels[first...last] {
            run = level > floor ? 0 : run + 1
            longest = max(longest, run)
        }
        return Double(longest) * 1024 / Double(Self.rate)
    }

    /// From the first to the end of the last window louder than `floor`, in seconds; nil when silent.
    func soundSpan(floor: Double = 0.003) -> (start: Double, end: Double)? {
        let levels = rmsLevels()
        guard let first = levels.firstIndex(where: { $0 > floor }), let last = levels.lastIndex(where: { $0 > floor })
        else { return nil }
        let window = 1024.0 / Double(Self.rate)
        return (Double(first) * window, Double(last + 1) * window)
    }
}
