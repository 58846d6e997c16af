import CPulse
import HeraldCore
import Synchronization

/// One input device (a microphone, a webcam's, a sink's `.monitor`), as a room's noise meter
/// finds it.
public struct SourceState: Sendable, Equatable {
    public var index: UInt32
    public var name: String
    public var description: String
    public var muted: Bool
    /// The source's own volume, loudest channel: a microphone turned down to 0% hears nothing.
    public var volumePercent: Int
    /// Set for a sink's `.monitor`: what it records is what that sink plays, not a room.
    public var isMonitor: Bool
    /// Its properties (`device.bus`, `device.product.name`, ...): a room may find its microphone by them.
    public var properties: [String: String]

    public init(index: UInt32, name: String, description: String, muted: Bool, volumePercent: Int,
                isMonitor: Bool, properties: [String: String]) {
        self.index = index
        self.name = name
        self.description = description
        self.muted = muted
        self.volumePercent = volumePercent
        self.isMonitor = isMonitor
        self.properties = properties
    }
}

extension PulseConnection {
    /// Every source on the server, monitors included.
    public func sources() async throws -> [SourceState] {
        try await perform("source list") { context, userdata in
            pa_context_get_source_info_list(context, { _, info, _, userdata in
                if let info = info?.pointee { PulseRequest<SourceState>.from(userdata).items.append(SourceState(info)) }
            }, userdata)
        }
    }
}

extension SourceState {
    init(_ info: pa_source_info) {
        var properties: [String: String] = [:]
        var cursor: UnsafeMutableRawPointer?
        while let key = pa_proplist_iterate(info.proplist, &cursor) {
            if let value = pa_proplist_gets(info.proplist, key) { properties[String(cString: key)] = String(cString: value) }
        }
        self.init(index: info.index, name: String(cString: info.name),
                  description: info.description.map { String(cString: $0) } ?? "",
                  muted: info.mute != 0, volumePercent: info.volume.channelVolumes.loudest.percent,
                  isMonitor: info.monitor_of_sink != UInt32.max, properties: properties)
    }
}

extension SourceState {
    /// What keeps it from hearing the room, as a sentence with the command that fixes it.
    public var problem: String? {
        if muted { return "source \(name) is muted (pactl set-source-mute \(name) 0)" }
        if volumePercent == 0 { return "source \(name) is turned down to 0% (pactl set-source-volume \(name) 100%)" }
        return nil
    }
}

extension NoiseSettings {
    /// The room's microphone among `sources`. A match never picks a sink's monitor (a USB
    /// speaker's would fit `device.bus: usb` as its microphone does); a name may, for a room
    /// heard through one.
    public func pick(among sources: [SourceState]) -> Result<SourceState, PickProblem> {
        let candidates = sources.filter { source in
            if case .named = self.source { return true }
            return !source.isMonitor
        }
        return pick(from: candidates.map { ($0.name, $0.properties) }).flatMap { name in
            candidates.first { $0.name == name }.map { .success($0) } ?? .failure(.absent)
        }
    }

    /// Why `problem` left the room without a microphone, and what to do.
    public func describe(_ problem: PickProblem) -> String {
        switch problem {
        case .absent: "no source \(source) (pactl list short sources lists them)"
        case .ambiguous(let names): "\(names.count) sources fit its match (\(names.joined(separator: ", "))); add a property that tells them apart"
        }
    }
}

extension SourceMeter {
    /// Records `sourceName` for `duration` and returns its blocks' levels (calibration, doctor).
    public static func listen(to sourceName: String, on connection: PulseConnection, for duration: Duration) async throws -> [SpeechBandMeter.Block] {
        let heard = Mutex<[SpeechBandMeter.Block]>([])
        let meter = try SourceMeter(connection: connection, sourceName: sourceName) { block in heard.withLock { $0.append(block) } }
        defer { meter.close() }
        try await Task.sleep(for: duration)
        guard meter.isRecording else { throw SoundSystemError.operationFailed("recording from \(sourceName) stopped") }
        return heard.withLock { $0 }
    }
}
