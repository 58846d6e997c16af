/// Rooms whose sinks' latencies differ for real, every listener a channel of one 4-channel null
/// sink (`ears`), so one recording of its monitor hears them all on one clock: `near`, a remap
/// sink onto front-left (a local speaker); `far`, a `module-tunnel-sink` to the same server's
/// front-right remap (the native protocol and the far sink's buffer, about 100 ms, which the
/// tunnel reports); `looped`, a null sink a 150 ms `module-loopback` carries on to rear-left (a
/// delay the sink does not report: a room's `latency_offset`). Used by the integration test and
/// the bench (`herald-bench --rooms-only`).
public struct LatencyTestBed: Sendable {
    public let ears: String, near: String, far: String, looped: String
    /// The channel of `ears` each room reaches, in the order of `parecChannelMap`.
    public static let channels = ["near": 0, "far": 1, "looped": 2]
    /// What a recording of `ears.monitor` must ask for, or the channels come out mixed.
    public static let parecChannelMap = "front-left,front-right,rear-left,rear-right"

    /// Sink names that carry `tag` (a pid), so two runs never meet.
    public init(tag: String) {
        (ears, near, far, looped) = ("ears_\(tag)", "near_\(tag)", "far_\(tag)", "looped_\(tag)")
    }

    /// The `pactl load-module` arguments, in order (unload in reverse); `server` is the server's
    /// own address (`PULSE_SERVER`), which the tunnel connects back to.
    public func modules(server: String) -> [[String]] {
        [
            ["module-null-sink", "sink_name=\(ears)", "rate=48000", "channels=4", "channel_map=\(Self.parecChannelMap)"],
            ["module-remap-sink", "sink_name=\(near)", "master=\(ears)", "channels=1", "master_channel_map=front-left", "channel_map=mono", "remix=no"],
            ["module-remap-sink", "sink_name=\(ears)_far", "master=\(ears)", "channels=1", "master_channel_map=front-right", "channel_map=mono", "remix=no"],
            ["module-remap-sink", "sink_name=\(ears)_looped", "master=\(ears)", "channels=1", "master_channel_map=rear-left", "channel_map=mono", "remix=no"],
            ["module-tunnel-sink", "server=\(server)", "sink=\(ears)_far", "sink_name=\(far)"],
            ["module-null-sink", "sink_name=\(looped)", "rate=48000", "channels=1"],
            ["module-loopback", "source=\(looped).monitor", "sink=\(ears)_looped", "latency_msec=150"],
        ]
    }
}
