import Foundation
@testable import HeraldApp
import HeraldConfig
import HeraldCore
import HeraldStore
import Testing

/// A turn keeps what it played for listening back (issue 46), after the playback and off its
/// path: the chime and the streamed speech, privately, with where the chime ends; and nothing
/// when `history.audio_retention` is 0.
@Suite struct KeptAudioTurnTests {
    @Test func aTurnKeepsTheChimeAndTheSpeechItPlayed() async throws {
        let harness = try await DaemonHarness { configuration in
            configuration.chimes[.critical] = HeraldConfiguration.chimePath("alert", in: configuration.soundsDirectory)
        }
        defer { Task { await harness.stop() } }
        let record = try await harness.submit(AnnouncementRequest(body: .text("The back door is open"), priority: .critical))
        let played = try #require(try await harness.outcome(of: record.id))
        #expect(played.outcome == .played)
        await KeptAudio.drained()
        let kept = try #require(try await harness.context.database.keptAudio(ids: [record.id])[record.id])
        let file = KeptAudio(context: harness.context).path(for: record.id)!
        #expect(kept.bytes > 1000 && kept.goneAt == nil && !kept.partial)
        #expect((try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int).map(Int64.init) == kept.bytes)
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)
        #expect(try FileManager.default.attributesOfItem(atPath: (file as NSString).deletingLastPathComponent)[.posixPermissions] as? Int == 0o700)
        // Every sample the sound system was handed (the alert chime, a breath, the streamed
        // speech), as 16-bit PCM after a WAV header; where the chime ends, and speech after it.
        let heard = await harness.sound.samplesPlayed
        #expect(abs(kept.bytes - Int64(44 + 2 * heard)) <= 64, "kept \(kept.bytes) bytes of \(heard) samples")
        #expect(kept.chimeEndMilliseconds > 500 && kept.durationMilliseconds - kept.chimeEndMilliseconds > 500, "\(kept)")
        await harness.stop()
    }

    @Test func noAudioIsKeptWhenItsRetentionIsZero() async throws {
        let harness = try await DaemonHarness { $0.history.audioRetention = .zero }
        defer { Task { await harness.stop() } }
        let record = try await harness.submit(AnnouncementRequest(body: .text("Nothing to keep")))
        #expect(try await harness.outcome(of: record.id)?.outcome == .played)
        await KeptAudio.drained()
        #expect(try await harness.context.database.keptAudio(ids: [record.id]).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: KeptAudio(context: harness.context).path(for: record.id)!))
        let lookup = try await KeptAudio(context: harness.context).lookup(try #require(try await harness.context.store.announcement(id: record.id)), now: Date())
        guard case .never(let reason) = lookup else { Issue.record("\(lookup)"); return }
        #expect(reason.contains("history.audio_retention is 0"))
        await harness.stop()
    }
}
