import Foundation
import HeraldConfig
import HeraldCore
import HeraldServer
import Hummingbird
import HummingbirdTesting
import SoundFile
import Testing

/// audio_url against a real upstream HTTP server on loopback: good audio, text, slow, too big.
struct AudioURLTests {
    /// An upstream on a random loopback port; `body` runs while it serves.
    func withUpstream(_ body: @escaping @Sendable (Int) async throws -> Void) async throws {
        let folder = NSTemporaryDirectory() + "herald-upstream-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tone = Clip(sampleRate: 8000, channelCount: 1, samples: (0..<4000).map { Float(0.4 * sin(Double($0) * 0.5)) })
        try SoundFileEncoder.write(tone, to: folder + "/tone.wav", format: .wav)
        let wav = try Data(contentsOf: URL(fileURLWithPath: folder + "/tone.wav"))
        let router = Router()
        router.get("/tone.wav") { _, _ in Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: wav))) }
        router.get("/page.html") { _, _ in "<html>not audio</html>" }
        router.get("/slow.wav") { _, _ -> Response in
            try await Task.sleep(for: .seconds(3))
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: wav)))
        }
        router.get("/drip.wav") { _, _ -> Response in
            // 100 bytes every half second: each read is quick, the whole would take 20 s.
            Response(status: .ok, body: ResponseBody { writer in
                for _ in 0..<40 {
                    try await writer.write(ByteBuffer(repeating: 0, count: 100))
                    try await Task.sleep(for: .milliseconds(500))
                }
                try await writer.finish(nil)
            })
        }
        router.get("/big.wav") { _, _ in Response(status: .ok, body: .init(byteBuffer: ByteBuffer(repeating: 0, count: 200_000))) }
        router.get("/missing.wav") { _, _ -> Response in Response(status: .notFound) }
        let upstream = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await upstream.test(.live) { client in
            try await body(client.port!)
        }
    }

    @Test func urlsAreFetchedOnlyFromAllowedHostsAndMustBeAudio() async throws {
        try await withUpstream { port in
            var settings = AudioURLSettings()
            settings.allowHosts = ["127.0.0.1"]
            settings.maxBytes = 100_000
            // 2 s: the good fetch must fit beside every other suite starting at once; slow.wav takes 3 s.
            settings.timeoutMilliseconds = 2000
            let folder = APITests.folder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let app = Application(router: try await APITests.makeAPI(folder: folder, audioURL: settings).router())
            try await app.test(.router) { client in
                func post(_ path: String) async throws -> (Int, [String: String]?, [String: Any]) {
                    let response = try await client.execute(
                        uri: "/v1/announcements", method: .post, headers: [.contentType: "application/json"],
                        body: ByteBuffer(string: #"{"audio_url": "http://127.0.0.1:\#(port)\#(path)"}"#))
                    let json = try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any] ?? [:]
                    return (Int(response.status.code), json["error"] as? [String: String], json)
                }
                let (okStatus, _, ok) = try await post("/tone.wav")
                #expect(okStatus == 202)
                #expect(ok["body_kind"] as? String == "audio_url")
                let (textStatus, textError, _) = try await post("/page.html")
                #expect(textStatus == 422 && textError?["message"]?.contains("not audio") == true)
                let started = ContinuousClock.now
                let (slowStatus, slowError, _) = try await post("/slow.wav")
                #expect(slowStatus == 422 && slowError?["message"]?.contains("within 2000 ms") == true, "\(slowError ?? [:])")
                #expect(ContinuousClock.now - started < .seconds(2.5), "the time limit held")
                let dripStarted = ContinuousClock.now
                let (dripStatus, dripError, _) = try await post("/drip.wav")
                #expect(dripStatus == 422 && dripError?["message"]?.contains("within 2000 ms") == true, "\(dripError ?? [:])")
                #expect(ContinuousClock.now - dripStarted < .seconds(2.5), "one deadline for the whole fetch")
                let (bigStatus, bigError, _) = try await post("/big.wav")
                #expect(bigStatus == 422 && bigError?["message"]?.contains("larger than 100000 bytes") == true)
                let (missingStatus, missingError, _) = try await post("/missing.wav")
                #expect(missingStatus == 422 && missingError?["message"]?.contains("404") == true)
                #expect(textError?["field"] == "audio_url")
            }
        }
    }
}
