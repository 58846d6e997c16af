import Foundation
@testable import HeraldApp
import HeraldConfig
import HeraldCore
import Logging
import Testing

/// An `audio_url` is fetched and decoded once, at intake: the request carries the clip, and the
/// render says it as it is (no cache read, no second decode, no second fetch).
struct FetchedAudioTests {
    @Test func aFetchedClipIsSaidFromTheRequest() async throws {
        let folder = NSTemporaryDirectory() + "herald-fetched-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // No host is allowed and the cache is empty: only the clip in the request can be said.
        let context = try HeraldContext(configuration: .defaults(stateDirectory: folder),
                                        logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let clip = Clip(sampleRate: 8000, channelCount: 1, samples: [0, 0.25, -0.25, 0])
        let request = AnnouncementRequest(body: .fetchedAudio(url: "https://audio.example/hello.wav", clip: clip), source: .api)
        let rendered = try await AnnouncementRenderer(context: context).render(request)
        guard case .clip(let said) = rendered.source else { Issue.record("not a clip"); return }
        #expect(said.samples == clip.samples && rendered.clipSource == .url)
        let row = Turn.record(for: request, at: Date())
        #expect(row.bodyKind == .audioURL && row.body == "https://audio.example/hello.wav", "logged as its URL")
    }
}
