import Foundation
import HeraldApp
import HeraldConfig
import HeraldCore
import HeraldServer
import HeraldTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import SoundFile
import Testing

/// `GET /v1/announcements/{id}/audio` in-process, over a real SQLite file and a real WAV file:
/// ranges, the whole file, the refusals (404, 410, 416), and the roles. What the daemon keeps
/// when it plays is tested in IntegrationTests (ListeningBackTests).
struct AudioRouteTests {
    /// A folder whose log holds one played row with 1 s of kept audio (`keptAt`), and its id and size.
    static func folderWithKeptAudio(keptAt: Date = Date()) async throws -> (folder: String, id: String, size: Int) {
        let folder = APITests.folder()
        let context = try HeraldContext(configuration: .defaults(stateDirectory: folder),
                                        logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, runtime: .folder(folder))
        var row = AnnouncementRecord(source: .api, priority: .normal, bodyKind: .text, body: "kept", queuedAt: keptAt)
        row.outcome = .played
        row.finishedAt = keptAt
        try await context.store.record(row)
        let kept = KeptAudio(context: context)
        try FileManager.default.createDirectory(atPath: kept.folder, withIntermediateDirectories: true)
        let path = try #require(kept.path(for: row.id))
        let clip = Clip(sampleRate: 8000, channelCount: 1, samples: (0..<8000).map { Float(sin(Double($0) / 3)) * 0.5 })
        try SoundFileEncoder.write(clip, to: path, format: .wav)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        try await context.database.keepAudio(KeptAudioRecord(announcementID: row.id, bytes: Int64(size), durationMilliseconds: 1000,
                                                             chimeEndMilliseconds: 0, partial: false, keptAt: keptAt))
        return (folder, row.id, size)
    }

    func get(_ client: some TestClientProtocol, _ path: String, range: String? = nil, token: String? = nil) async throws -> TestResponse {
        var headers = HTTPFields()
        if let range { headers[.range] = range }
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await client.execute(uri: path, method: .get, headers: headers)
    }

    @Test func servesTheWholeFileAndAnyOneRange() async throws {
        let (folder, id, size) = try await Self.folderWithKeptAudio()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let onDisk = try Data(contentsOf: URL(fileURLWithPath: KeptAudio.folder(databasePath: folder + "/herald.sqlite") + "/\(id).wav"))
        let app = Application(router: try await APITests.makeAPI(folder: folder).router())
        try await app.test(.live) { client in
            let whole = try await get(client, "/v1/announcements/\(id)/audio")
            #expect(whole.status == .ok)
            #expect(whole.headers[.contentType] == "audio/wav" && whole.headers[.acceptRanges] == "bytes")
            #expect(Data(whole.body.readableBytesView) == onDisk)
            // (Range, expected first byte, last byte)
            let cases: [(String, Int, Int)] = [("bytes=0-99", 0, 99), ("bytes=100-", 100, size - 1), ("bytes=-500", size - 500, size - 1),
                                               ("bytes=\(size / 2)-\(size * 4)", size / 2, size - 1), ("bytes=0-0", 0, 0),
                                               ("BYTES = 10-19", 10, 19)]
            for (range, first, last) in cases {
                let part = try await get(client, "/v1/announcements/\(id)/audio", range: range)
                #expect(part.status == .partialContent, "\(range)")
                #expect(part.headers[.contentRange] == "bytes \(first)-\(last)/\(size)", "\(range)")
                #expect(Data(part.body.readableBytesView) == onDisk[first...last], "\(range)")
            }
            // Several ranges: the whole file (RFC 9110 lets a server ignore Range), documented in api.md.
            let several = try await get(client, "/v1/announcements/\(id)/audio", range: "bytes=0-9,20-29")
            #expect(several.status == .ok && Data(several.body.readableBytesView) == onDisk)
            // Another unit is ignored likewise.
            #expect(try await get(client, "/v1/announcements/\(id)/audio", range: "items=0-9").status == .ok)
        }
    }

    @Test(arguments: ["bytes=999999999-", "bytes=999999999-1000000000", "bytes=-0", "bytes=-5-10", "bytes=--5", "bytes=20-10",
                      "bytes=abc", "bytes=", "bytes=1e3-", "garbage", "bytes=99999999999999999999999-"])
    func aRangeThatCannotBeServedIs416WithTheSize(_ range: String) async throws {
        let (folder, id, size) = try await Self.folderWithKeptAudio()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let app = Application(router: try await APITests.makeAPI(folder: folder).router())
        try await app.test(.router) { client in
            let refused = try await get(client, "/v1/announcements/\(id)/audio", range: range)
            #expect(refused.status == .rangeNotSatisfiable)
            #expect(refused.headers[.contentRange] == "bytes */\(size)")
            let error = try #require(try JSONSerialization.jsonObject(with: Data(refused.body.readableBytesView)) as? [String: [String: String]])
            #expect(error["error"]?["field"] == "Range")
            #expect(error["error"]?["message"]?.contains("\(size) bytes") == true)
        }
    }

    @Test func notARowIs404AndPrunedAudioIs410NamingWhy() async throws {
        let (folder, id, _) = try await Self.folderWithKeptAudio(keptAt: Date().addingTimeInterval(-8 * 86_400))
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let app = Application(router: try await APITests.makeAPI(folder: folder).router())
        try await app.test(.router) { client in
            let missing = try await get(client, "/v1/announcements/no-such-row/audio")
            #expect(missing.status == .notFound)
            let traversal = try await get(client, "/v1/announcements/..%2F..%2Fetc%2Fpasswd/audio")
            #expect(traversal.status == .notFound)
            let gone = try await get(client, "/v1/announcements/\(id)/audio")
            #expect(gone.status == .gone)
            let message = try #require((try JSONSerialization.jsonObject(with: Data(gone.body.readableBytesView)) as? [String: [String: String]])?["error"]?["message"])
            #expect(message.contains("history.audio_retention (7d)"), "\(message)")
            // The file went with it, and the history says so in place of a player.
            #expect(!FileManager.default.fileExists(atPath: KeptAudio.folder(databasePath: folder + "/herald.sqlite") + "/\(id).wav"))
            let rows = try JSONSerialization.jsonObject(with: Data(try await get(client, "/v1/announcements").body.readableBytesView)) as? [[String: Any]]
            let audio = try #require(rows?.first?["audio"] as? [String: Any])
            #expect(audio["state"] as? String == "gone")
            #expect((audio["reason"] as? String)?.contains("history.audio_retention") == true)
        }
    }

    @Test func theHistoryOffersKeptAudioToTheLogsRoles() async throws {
        let (folder, id, _) = try await Self.folderWithKeptAudio()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let announce = "announce-token-0123456789"
        let app = Application(router: try await APITests.makeAPI(folder: folder, tokens: [announce: .announce]).router())
        try await app.test(.router) { client in
            #expect(try await get(client, "/v1/announcements/\(id)/audio").status == .unauthorized)
            #expect(try await get(client, "/v1/announcements/\(id)/audio", token: announce).status == .ok,
                    "the role that reads the log hears it")
            let row = try JSONSerialization.jsonObject(with: Data(try await get(client, "/v1/announcements/\(id)", token: announce).body.readableBytesView)) as? [String: Any]
            let audio = try #require(row?["audio"] as? [String: Any])
            #expect(audio["state"] as? String == "kept" && audio["url"] as? String == "/v1/announcements/\(id)/audio")
            #expect(audio["duration_milliseconds"] as? Int == 1000)
            #expect(row?["body"] as? String == "kept", "the row's own fields are there too")
        }
    }
}
