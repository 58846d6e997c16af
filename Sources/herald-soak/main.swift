import Foundation
import HeraldTesting

// herald-soak --minutes N --seed S: a real `herald serve` left alone with its own PulseAudio
// (three null sinks, a radio), its own Mosquitto, traffic and faults from a seeded schedule; then
// the history is checked against Herald's promises. Exits non-zero on any violation, with the
// seed to replay it. scripts/soak.sh builds it and runs it.

signal(SIGPIPE, SIG_IGN)
let arguments = CommandLine.arguments
func option(_ name: String) -> String? { arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil } }
let minutes = option("--minutes").flatMap(Double.init) ?? 3
let seed = option("--seed").flatMap(UInt64.init) ?? UInt64.random(in: 1...999_999)
/// Three rooms, one per sink: every announcement is said in several at once.
let rooms = arguments.contains("--rooms")
/// One fault every 30 minutes instead of every 8 to 25 s: a soak of hours, to watch a daemon's
/// memory as it ages (the report's RSS table, and a violation for growth after 30 minutes).
let fewFaults = arguments.contains("--few-faults")
guard let binary = ProcessInfo.processInfo.environment["HERALD_BIN"] else {
    say("herald-soak: run me through scripts/soak.sh (it sets HERALD_BIN)")
    exit(2)
}
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-soak-\(seed)-\(getpid())").path
try FileManager.default.createDirectory(atPath: folder + "/state", withIntermediateDirectories: true)
// The disk-full faults need a small disk of their own: a tmpfs (root only).
var mounted = false
if getuid() == 0 {
    mounted = await run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=24m,mode=0700", "tmpfs", folder + "/state"], environment: [:]).status == 0
}
say("herald-soak: \(minutes) minutes, seed \(seed)\(rooms ? ", three rooms" : "")\(fewFaults ? ", one fault every 30 minutes" : ""), folder \(folder)\(mounted ? "" : " (not root: no disk-full faults)")")

let sound = SoundWorld(folder: folder)
let broker = try Broker(folder: folder)
let history = History()
try await sound.start(savedState: true)
say("herald-soak: PulseAudio up")
try await broker.start()
say("herald-soak: Mosquitto up")
let herald = try HeraldUnderTest(binary: binary, folder: folder, sound: sound, brokerPort: broker.port)
try herald.writeConfig(rooms: rooms)
let keepStreams = Task { await sound.keepStreamsUp() }
let watchEvents = Task { await broker.watchEvents() }
let supervisor = Task { await herald.supervise() }
let playWatcher = PlayWatcher(herald: herald)
let watchPlays = Task { await playWatcher.run() }
var ready = false
for _ in 0..<200 where !ready {
    ready = await herald.healthy()
    if !ready { try await Task.sleep(for: .milliseconds(100)) }
}
guard ready else { say("herald-soak: herald serve did not answer (see \(folder)/daemon.log)"); exit(1) }

var random = SeededRandom(seed: seed)
// The user's starting values: some sinks muted and low, as a shop leaves them.
for sink in SoundWorld.sinks {
    let setting = Setting(percent: Int.random(in: 10...90, using: &random), muted: Bool.random(using: &random))
    _ = await sound.pactl(["set-sink-volume", sink, "\(setting.percent)%"])
    _ = await sound.pactl(["set-sink-mute", sink, setting.muted ? "1" : "0"])
    history.userSet(sink, setting)
}
for _ in 0..<50 where await sound.radioSetting() == nil { try await Task.sleep(for: .milliseconds(100)) }
if let radio = await sound.radioSetting() { history.userSet("radio", radio.setting) }

let began = Date()
let deadline = began.addingTimeInterval(minutes * 60)
var trafficRandom = SeededRandom(seed: random.next())
var faultRandom = SeededRandom(seed: random.next())
var userRandom = SeededRandom(seed: random.next())
let traffic = {
    var traffic = Traffic(herald: herald, broker: broker, history: history, deadline: deadline)
    traffic.rooms = rooms
    if fewFaults { traffic.spacing = 2...8 }
    return traffic
}()
let loops = [
    Task { [trafficRandom] in var r = trafficRandom; await traffic.run(random: &r) },
    Task { [faultRandom] in
        var r = faultRandom
        var faults = Faults(herald: herald, sound: sound, broker: broker, history: history, deadline: deadline, canFillDisk: mounted)
        if fewFaults { faults.spacing = 1800...1800 }
        await faults.run(random: &r)
    },
    Task { [userRandom] in var r = userRandom; await User(sound: sound, history: history, deadline: deadline).run(random: &r) },
]
// Health every second: unanswered within 1 s while the daemon is up is a violation.
let healthLoop = Task {
    while !Task.isCancelled {
        let ok = await herald.healthy()
        history.health(ok: ok, excused: herald.downSince != nil)
        try? await Task.sleep(for: .seconds(1))
    }
}
let resourceLoop = Task {
    while !Task.isCancelled {
        let decoded = await herald.decodedClipsMB()
        if let sample = herald.resources(decodedClipsMB: decoded) { history.sample(sample) }
        try? await Task.sleep(for: .seconds(10))
    }
}

/// Sinks and the radio against the user's values, looked at only while nothing plays; a
/// difference is looked at again 3 s later before it counts.
func idleCheck() async -> [String]? {
    for attempt in 0..<2 {
        guard let before = await herald.snapshot(), Soak.idle(before),
              let sinks = await sound.sinkSettings() else { return nil }
        let radio = await sound.radioSetting()?.setting
        guard let after = await herald.snapshot(), Soak.idle(after) else { return nil }
        let wrong = history.mismatches(sinks: sinks, radio: radio)
        if wrong.isEmpty || attempt == 1 { return wrong }
        try? await Task.sleep(for: .seconds(3))
    }
    return nil
}
var idleChecks = 0
while Date() < deadline {
    try await Task.sleep(for: .seconds(15))
    if let wrong = await idleCheck() {
        idleChecks += 1
        history.record(leftChanged: wrong)
        for line in wrong { say("soak: left changed: \(line)") }
    }
}
for loop in loops { _ = await loop.value }

// Drain: every fault undone (they are by now), wait until every accepted request has a final row
// and every reminder made has passed its repeats.
say("herald-soak: traffic stopped after \(Int(Date().timeIntervalSince(began))) s; waiting for the queue to drain")
let lastDue = history.with { $0.reminders.map(\.due).max() } ?? Date()
let drainUntil = Date().addingTimeInterval(300)
while Date() < drainUntil {
    let rows = (try? LoggedRow.read(herald.databasePath)) ?? []
    let byRequest = Dictionary(rows.compactMap { row in row.requestID.map { ($0, row) } }, uniquingKeysWith: { a, _ in a })
    let waiting = history.with { $0.requests.values.filter { $0.acceptedAt != nil && byRequest[$0.requestID]?.final != true } }
    if waiting.isEmpty, Date() > lastDue.addingTimeInterval(75), let snapshot = await herald.snapshot(), Soak.idle(snapshot) { break }
    try await Task.sleep(for: .seconds(2))
}
try await Task.sleep(for: .seconds(2))
var finalCheck: [String]?
for _ in 0..<10 where finalCheck == nil {
    finalCheck = await idleCheck()
    if finalCheck == nil { try await Task.sleep(for: .seconds(1)) }
}
if let finalCheck { idleChecks += 1; history.record(leftChanged: finalCheck); for line in finalCheck { say("soak: left changed at the end: \(line)") } }
healthLoop.cancel()
resourceLoop.cancel()
let ended = Date()
let rows = try LoggedRow.read(herald.databasePath)
let heard = SoundWorld.sinks.flatMap { sound.monitors[$0]!.heard }
let blind = Dictionary(uniqueKeysWithValues: SoundWorld.sinks.map { ($0, sound.monitors[$0]!.blind) })
let blindSeconds = blind.values.joined().reduce(0.0) { $0 + min($1.end, ended).timeIntervalSince(max($1.start, began)) }
say(String(format: "herald-soak: the monitors were not listened to for %.1f s in all (sound servers down, sinks unplugged, recorders moved)", max(0, blindSeconds)))
await herald.stop()
// The stream ended with the daemon, closing the last play; then no more connecting.
watchPlays.cancel()
await watchPlays.value
let exits = herald.exits
keepStreams.cancel()
watchEvents.cancel()
supervisor.cancel()
await sound.stop()
await broker.shutdown()
await herald.shutdownClient()
// The log outlives the tmpfs, for a look at a failed run.
if mounted {
    _ = await run("/bin/cp", ["-a", folder + "/state", folder + "/state-at-end"], environment: [:])
    _ = await run("/usr/bin/umount", [folder + "/state"], environment: [:])
}

try? history.with { $0.userLog }.joined(separator: "\n").write(toFile: folder + "/user.log", atomically: true, encoding: .utf8)
let checker = Checker(history: history, rows: rows, heard: heard, watched: playWatcher.all, blind: blind, exits: exits, grace: 120, end: ended)
let findings = checker.check()
let failures = Soak.report(findings, history: history, heard: heard.count, aimedKills: history.with { $0.aimedKillOffsets }, idleChecks: idleChecks,
                           minutes: ended.timeIntervalSince(began) / 60, seed: seed, rooms: rooms, fewFaults: fewFaults, folder: folder,
                           finalCheckDone: finalCheck != nil)
if failures == 0 { try? FileManager.default.removeItem(atPath: folder) }
exit(failures == 0 ? 0 : 1)
