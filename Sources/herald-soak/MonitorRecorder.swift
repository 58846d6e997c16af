import Foundation

/// Sound heard on one sink's monitor, as stretches of sound with the time they began and ended:
/// the soak's witness of what was actually said, independent of what Herald logged.
final class MonitorRecorder: @unchecked Sendable {
    struct Stretch { var sink: String; var start: Date; var end: Date
        var seconds: Double { end.timeIntervalSince(start) }
    }
    static let rate = 16_000.0
    /// A sample louder than this is sound (the radio plays zeros).
    static let threshold: Int16 = 300
    /// Silence this long ends a stretch: longer than the pauses inside a sentence.
    static let gap = 0.6
    let sink: String
    private let lock = NSLock()
    private var stretches: [Stretch] = []
    private var open: (start: Date, lastLoud: Date)?
    private var leftover = Data()

    init(sink: String) { self.sink = sink }

    /// Takes parec's raw output as it comes; empty at its end.
    func receive(_ data: Data) {
        if data.isEmpty { close(at: Date()) } else { take(data, arrivedAt: Date()) }
    }

    private func take(_ data: Data, arrivedAt now: Date) {
        lock.withLock {
            var bytes = leftover + data
            let usable = bytes.count & ~1
            leftover = bytes.count > usable ? bytes.suffix(1) : Data()
            bytes = bytes.prefix(usable)
            let samples = usable / 2
            let block = 160  // 10 ms
            bytes.withUnsafeBytes { raw in
                let values = raw.bindMemory(to: Int16.self)
                var index = 0
                while index < samples {
                    let count = min(block, samples - index)
                    var loud = false
                    for offset in 0..<count where abs(Int32(values[index + offset])) > Int32(Self.threshold) { loud = true; break }
                    // The block's time: the chunk arrived now, its last sample just played.
                    let time = now.addingTimeInterval(-Double(samples - index) / Self.rate)
                    if let current = open, time.timeIntervalSince(current.lastLoud) > Self.gap {
                        stretches.append(Stretch(sink: sink, start: current.start, end: current.lastLoud))
                        open = nil
                    }
                    if loud {
                        let end = time.addingTimeInterval(Double(count) / Self.rate)
                        open = (open?.start ?? time, end)
                    }
                    index += count
                }
            }
        }
    }

    private func close(at now: Date) {
        lock.withLock {
            if blindSince == nil { blindSince = now }
            if let current = open { stretches.append(Stretch(sink: sink, start: current.start, end: current.lastLoud)) }
            open = nil
            leftover = Data()
        }
    }

    /// When the recorder was last seen on this sink's monitor.
    private var inPlaceAt = Date()

    func seenInPlace() { lock.withLock { inPlaceAt = Date() } }

    /// Forgets what was heard since the recorder was last seen in place (it was moved meanwhile).
    /// A stretch that began before is cut there, not dropped: back-to-back announcements make one
    /// long stretch, and what it heard while in place was this sink's (dropping it whole made
    /// every row it covered look unheard).
    func dropSinceSeenInPlace() {
        lock.withLock {
            stretches = stretches.compactMap { stretch in
                guard stretch.end > inPlaceAt else { return stretch }
                guard stretch.start < inPlaceAt else { return nil }
                return Stretch(sink: stretch.sink, start: stretch.start, end: inPlaceAt)
            }
            if let current = open, current.lastLoud > inPlaceAt {
                if current.start < inPlaceAt { stretches.append(Stretch(sink: sink, start: current.start, end: inPlaceAt)) }
                open = nil
            }
            blindSince = min(blindSince ?? inPlaceAt, inPlaceAt)
        }
    }

    /// Since when no recorder listens here (stopped, moved, or the server away); nil while one does.
    private var blindSince: Date? = Date()
    private var blindWindows: [(start: Date, end: Date)] = []

    /// A recorder listens here again.
    func recorderStarted() {
        lock.withLock {
            if let blindSince { blindWindows.append((blindSince, Date())) }
            blindSince = nil
            inPlaceAt = Date()
        }
    }

    /// The times nothing listened here: a row played then cannot be checked against the monitor.
    var blind: [(start: Date, end: Date)] {
        lock.withLock { blindWindows + (blindSince.map { [($0, Date.distantFuture)] } ?? []) }
    }

    /// The last moment sound was heard here, if any since the recorder started.
    var lastHeard: Date? { lock.withLock { open?.lastLoud ?? stretches.last?.end } }

    /// True while sound is being heard now.
    var hearingNow: Bool { lock.withLock { open.map { Date().timeIntervalSince($0.lastLoud) < 0.2 } ?? false } }

    /// Every stretch heard so far (an open one up to its last loud sample).
    var heard: [Stretch] {
        lock.withLock { stretches + (open.map { [Stretch(sink: sink, start: $0.start, end: $0.lastLoud)] } ?? []) }
    }
}
