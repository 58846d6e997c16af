import HeraldCore
import HeraldIntake

extension AnnouncementDaemon {
    /// The one way a checked request enters the daemon, from every source: HTTP and MQTT (after
    /// `AnnouncementIntake`), reminders, and the CLI's `--local` run (`announceOnce`).
    ///
    /// An `audio_url` is fetched first, so an unusable one is the sender's error (an `IntakeError`,
    /// 422) rather than a failed row later; the request then carries the decoded clip. Then the
    /// request is deduplicated, logged and queued (`admit`).
    public func submit(_ request: AnnouncementRequest) async throws -> Submission {
        var request = request
        if case .audioURL(let url) = request.body {
            let remote = RemoteAudio(settings: context.configuration.audioURL, cache: context.clipCache, client: context.httpClient)
            do { request.body = .fetchedAudio(url: url, clip: try await remote.clip(for: url)) } catch {
                throw IntakeError(.unprocessable, field: "audio_url", "\(error)")
            }
        }
        return try await admit(request)
    }
}
