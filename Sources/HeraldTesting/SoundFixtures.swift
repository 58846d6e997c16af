import HeraldCore

/// Volumes in percent, one per channel: `percent(40, 40)`.
public func percent(_ values: Double...) -> ChannelVolumes { ChannelVolumes(values.map(Volume.init(percent:))) }

public func nullSink(volumes: ChannelVolumes, muted: Bool = false) -> SinkState {
    SinkState(index: 0, name: "speaker", description: "Speaker", state: .idle, muted: muted, volumes: volumes,
              channelNames: volumes.channels.indices.map { "ch\($0)" })
}

public func musicStream(index: UInt32, volumes: ChannelVolumes, sinkIndex: UInt32 = 0) -> StreamState {
    StreamState(index: index, sinkIndex: sinkIndex, volumes: volumes, muted: false, applicationName: "radio",
                mediaRole: "music", isHerald: false)
}
