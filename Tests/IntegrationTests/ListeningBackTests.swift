import Foundation
import HeraldCore
@testable import HeraldStore
import SoundFile
import Testing

/// Listening back (issue 46): a real daemon keeps the audio it played (espeak-ng's streamed
/// speech, collected as it was handed to PulseAudio), serves it with byte ranges to curl, and
/// the admin page's player plays it in headless Chromium (Tests/browser/listen_back.py): plays,
/// seeks to the middle over a 206, shows position and duration, and says so for an old row
/// whose audio is gone.
extension OnTheTestSink {
@Suite final class ListeningBackTests {
    init() throws {
        try SoundServer.require()
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../browser/listen_back.py").standardized.path

    /// Says `text` and waits until its audio is kept; its row.
    func say(_ text: String, priority: String = "normal", on daemon: Daemon) throws -> [String: Any] {
        let (status, row) = try daemon.post("/v1/announcements?wait=true", #"{"text": "\#(text)", "priority": "\#(priority)"}"#)
        #expect(status == 200 && row["outcome"] as? String == "played", "\(row)")
        let id = try #require(row["id"] as? String)
        // Kept in the background after the last sample: a moment later.
        try SoundServer.waitFor("the audio of \(id) kept", timeout: 10) {
            (try? daemon.get("/v1/announcements/\(id)")["audio"] as? [String: Any])?["state"] as? String == "kept"
        }
        return try daemon.get("/v1/announcements/\(id)")
    }

    /// `curl -s -D - -o FILE` with `arguments`: the status, the headers (lower-cased names) and the body.
    func curl(_ url: String, _ arguments: [String] = []) throws -> (Int, [String: String], Data) {
        let body = NSTemporaryDirectory() + "herald-curl-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: body) }
        let run = try SoundServer.run("curl", ["-s", "-D", "-", "-o", body] + arguments + [url])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\r\n")
        let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (status, headers, (try? Data(contentsOf: URL(fileURLWithPath: body))) ?? Data())
    }

    @Test func theAudioSaidIsKeptServedInRangesAndPlayedBackInTheBrowser() throws {
        let (harness, port) = try HeraldHarness.listening()
        try SoundServer.setSink(volumes: ["60%"], muted: false)
        let daemon = try Daemon(harness, port: port)
        defer { daemon.stop() }
        let old = try #require(try say("An old announcement.", on: daemon)["id"] as? String)
        // Eight days old: past the default history.audio_retention of 7 days.
        let database = try AppDatabase(path: harness.databasePath)
        try database.writer.write { db in
            try db.execute(sql: "UPDATE kept_audio SET kept_at = ? WHERE announcement_id = ?",
                           arguments: [Date().addingTimeInterval(-8 * 86_400), old])
        }
        let broken = try #require(try say("A third one, whose file goes away.", on: daemon)["id"] as? String)
        // Critical: the alert chime first, marked on the page's bar.
        let row = try say("Listening back: this sentence was kept for the admin page, and can be heard again there.",
                          priority: "critical", on: daemon)
        let id = try #require(row["id"] as? String)

        // What was kept is what was played: private, as long as the row says, and not silent.
        let folder = (harness.databasePath as NSString).deletingLastPathComponent + "/audio"
        let file = folder + "/\(id).wav"
        #expect(try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int == 0o700)
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)
        let clip = try SoundFileDecoder.decode(path: file)
        let logged = try #require(row["duration_milliseconds"] as? Int)
        let chime = try #require((row["audio"] as? [String: Any])?["chime_end_milliseconds"] as? Int)
        #expect(chime > 300, "the alert chime and a breath came first: \(chime) ms")
        #expect(abs(clip.durationMilliseconds - chime - logged) < 300, "kept \(clip.durationMilliseconds) ms with \(chime) ms of chime, the row says \(logged) ms of speech")
        #expect(clip.samples.map(abs).max() ?? 0 > 0.05, "speech, not silence")
        let onDisk = try Data(contentsOf: URL(fileURLWithPath: file))
        let size = onDisk.count
        let url = daemon.base + "/v1/announcements/\(id)/audio"

        // The range server, against curl.
        let (wholeStatus, wholeHeaders, whole) = try curl(url)
        #expect(wholeStatus == 200 && whole == onDisk && wholeHeaders["content-type"] == "audio/wav" && wholeHeaders["accept-ranges"] == "bytes")
        let (partStatus, partHeaders, part) = try curl(url, ["-H", "Range: bytes=\(size / 2)-\(size / 2 + 999)"])
        #expect(partStatus == 206 && partHeaders["content-range"] == "bytes \(size / 2)-\(size / 2 + 999)/\(size)")
        #expect(part == onDisk[(size / 2)..<(size / 2 + 1000)])
        let (tailStatus, tailHeaders, tail) = try curl(url, ["-H", "Range: bytes=-100"])
        #expect(tailStatus == 206 && tailHeaders["content-range"] == "bytes \(size - 100)-\(size - 1)/\(size)" && tail == onDisk.suffix(100))
        let (pastStatus, pastHeaders, _) = try curl(url, ["-H", "Range: bytes=\(size)-"])
        #expect(pastStatus == 416 && pastHeaders["content-range"] == "bytes */\(size)")
        let (negativeStatus, negativeHeaders, _) = try curl(url, ["-H", "Range: bytes=-5-10"])
        #expect(negativeStatus == 416 && negativeHeaders["content-range"] == "bytes */\(size)")
        let (severalStatus, _, several) = try curl(url, ["-H", "Range: bytes=0-9,100-109"])
        #expect(severalStatus == 200 && several == onDisk, "several ranges: the whole file")
        let (notARow, _, notARowBody) = try curl(daemon.base + "/v1/announcements/not-a-row/audio")
        #expect(notARow == 404, "\(String(decoding: notARowBody, as: UTF8.self))")
        let (goneStatus, _, goneBody) = try curl(daemon.base + "/v1/announcements/\(old)/audio")
        #expect(goneStatus == 410)
        #expect(String(decoding: goneBody, as: UTF8.self).contains("history.audio_retention (7d)"), "\(String(decoding: goneBody, as: UTF8.self))")
        #expect(!FileManager.default.fileExists(atPath: folder + "/\(old).wav"), "the old file is removed")
        let health = try Daemon.request("GET", daemon.base + "/v1/health")
        #expect(health.0 == 200, "none of it hurt the daemon")

        // The page's player, in headless Chromium.
        let run = try SoundServer.run("/usr/bin/python3", [Self.script, daemon.base, id, old, String(clip.durationMilliseconds),
                                                           broken, folder + "/\(broken).wav"])
        print(run.stdout, run.stderr)
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
    }
}
}
