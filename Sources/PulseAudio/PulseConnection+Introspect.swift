import CPulse
import HeraldCore

/// Server, sink and sink-input queries and changes.
extension PulseConnection {
    /// Server name, version and default sink.
    public func serverInfo() async throws -> ServerInfo {
        let infos: [ServerInfo] = try await perform("server info") { context, userdata in
            pa_context_get_server_info(context, { _, info, userdata in
                guard let info = info?.pointee else { return }
                PulseRequest<ServerInfo>.from(userdata).items.append(ServerInfo(
                    name: String(cString: info.server_name),
                    version: String(cString: info.server_version),
                    defaultSinkName: info.default_sink_name.map { String(cString: $0) },
                    // pipewire-pulse answers 0 until it knows its core: not an instance.
                    instance: info.cookie == 0 ? nil : info.cookie))
            }, userdata)
        }
        guard let info = infos.first else { throw SoundSystemError.operationFailed("server info: no answer") }
        return info
    }

    /// The sink called `name`.
    public func sink(named name: String) async throws -> SinkState {
        let sinks: [SinkState] = try await perform("sink info '\(name)'") { context, userdata in
            // The label names the sink in the callback's error.
            Unmanaged<PulseRequestBase>.fromOpaque(userdata).takeUnretainedValue().label = name
            return pa_context_get_sink_info_by_name(context, name, { context, info, eol, userdata in
                let request = PulseRequest<SinkState>.from(userdata)
                if eol < 0 {
                    request.error = pa_context_errno(context) == Int32(PA_ERR_NOENTITY.rawValue)
                        ? .noSuchSink(request.label) : .operationFailed(PulseConnection.lastError(context))
                }
                if let info = info?.pointee { request.items.append(SinkState(info)) }
            }, userdata)
        }
        guard let sink = sinks.first else { throw SoundSystemError.noSuchSink(name) }
        return sink
    }

    /// Every sink on the server.
    public func sinks() async throws -> [SinkState] {
        try await perform("sink list") { context, userdata in
            pa_context_get_sink_info_list(context, { _, info, _, userdata in
                if let info = info?.pointee { PulseRequest<SinkState>.from(userdata).items.append(SinkState(info)) }
            }, userdata)
        }
    }

    /// Every playback stream (sink-input) on the server.
    public func sinkInputs() async throws -> [StreamState] {
        try await perform("sink-input list") { context, userdata in
            pa_context_get_sink_input_info_list(context, { _, info, _, userdata in
                if let info = info?.pointee { PulseRequest<StreamState>.from(userdata).items.append(StreamState(info)) }
            }, userdata)
        }
    }

    public func setSinkVolume(named name: String, to volumes: ChannelVolumes) async throws {
        var cvolume = pa_cvolume(volumes)
        try await performSuccess("set volume of sink '\(name)'") { context, userdata in
            pa_context_set_sink_volume_by_name(context, name, &cvolume, successCallback, userdata)
        }
    }

    public func setSinkMute(named name: String, to muted: Bool) async throws {
        try await performSuccess("set mute of sink '\(name)'") { context, userdata in
            pa_context_set_sink_mute_by_name(context, name, muted ? 1 : 0, successCallback, userdata)
        }
    }

    /// Unmutes `name` (when `unmute`) and sets `volumes` (when given) in one round trip (both
    /// requests sent together), then reads the sink back. The read waits for both answers:
    /// PipeWire's pulse server answers a change only once applied, and a read at once, so a read
    /// sent with them could come back with the volume from before.
    public func raiseSink(named name: String, unmute: Bool, to volumes: ChannelVolumes?) async throws -> SinkState {
        let unmuting: PulseRequest<Bool>? = unmute ? send("set mute of sink '\(name)'") { context, userdata in
            pa_context_set_sink_mute_by_name(context, name, 0, successCallback, userdata)
        } : nil
        let raising: PulseRequest<Bool>? = volumes.map { volumes in
            var cvolume = pa_cvolume(volumes)
            return send("set volume of sink '\(name)'") { context, userdata in
                pa_context_set_sink_volume_by_name(context, name, &cvolume, successCallback, userdata)
            }
        }
        // Both answers before any error is thrown: the caller restores what was changed.
        var failure: (any Error)?
        for (request, what) in [(unmuting, "unmute"), (raising, "raise")] {
            guard let request else { continue }
            do {
                guard try await request.wait(on: self).first == true else {
                    throw SoundSystemError.operationFailed("\(what) sink '\(name)'")
                }
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
        return try await sink(named: name)
    }

    public func setSinkInputMute(index: UInt32, to muted: Bool) async throws {
        try await performSuccess("set mute of stream #\(index)") { context, userdata in
            pa_context_set_sink_input_mute(context, index, muted ? 1 : 0, successCallback, userdata)
        }
    }

    public func setSinkInputVolume(index: UInt32, to volumes: ChannelVolumes) async throws {
        var cvolume = pa_cvolume(volumes)
        try await performSuccess("set volume of stream #\(index)") { context, userdata in
            pa_context_set_sink_input_volume(context, index, &cvolume, successCallback, userdata)
        }
    }
}

extension pa_cvolume {
    init(_ volumes: ChannelVolumes) {
        self.init()
        channels = UInt8(min(volumes.channels.count, Int(herald_pa_channels_max())))
        for (i, volume) in volumes.channels.prefix(Int(channels)).enumerated() {
            herald_cvolume_set(&self, UInt32(i), volume.raw)
        }
    }

    var channelVolumes: ChannelVolumes {
        var copy = self
        return ChannelVolumes((0..<UInt32(channels)).map { Volume(raw: herald_cvolume_get(&copy, $0)) })
    }
}

extension SinkState {
    init(_ info: pa_sink_info) {
        var map = info.channel_map
        let names = (0..<UInt32(map.channels)).map {
            String(cString: pa_channel_position_to_string(herald_channel_map_get(&map, $0)))
        }
        let state: SinkRunState = switch info.state {
        case PA_SINK_RUNNING: .running
        case PA_SINK_IDLE: .idle
        case PA_SINK_SUSPENDED: .suspended
        default: .unknown
        }
        let name = String(cString: info.name)
        // Every property: the device class reads a few, a room's `match:` any.
        var properties: [String: String] = [:]
        var cursor: UnsafeMutableRawPointer?
        while let key = pa_proplist_iterate(info.proplist, &cursor) {
            if let value = pa_proplist_gets(info.proplist, key) { properties[String(cString: key)] = String(cString: value) }
        }
        let port = info.active_port.flatMap { $0.pointee.name.map { String(cString: $0) } }
        self.init(index: info.index, name: name,
                  description: info.description.map { String(cString: $0) } ?? "",
                  state: state, muted: info.mute != 0, volumes: info.volume.channelVolumes,
                  channelNames: names,
                  deviceClass: SinkDeviceClass.classify(properties, sinkName: name, activePort: port),
                  properties: properties)
        latency = .microseconds(Int64(clamping: info.latency))
    }
}

extension StreamState {
    /// The value of `application.name` that marks Herald's own streams.
    static let heraldApplicationName = "Herald"

    init(_ info: pa_sink_input_info) {
        func property(_ key: String) -> String? {
            pa_proplist_gets(info.proplist, key).map { String(cString: $0) }
        }
        let application = property(PA_PROP_APPLICATION_NAME)
        self.init(index: info.index, sinkIndex: info.sink, volumes: info.volume.channelVolumes,
                  muted: info.mute != 0, applicationName: application,
                  mediaRole: property(PA_PROP_MEDIA_ROLE),
                  isHerald: application == Self.heraldApplicationName)
    }
}
