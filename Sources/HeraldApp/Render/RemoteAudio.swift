import AsyncHTTPClient
import Foundation
import HeraldConfig
import HeraldCore
import HeraldIntake
import RuntimePaths
import SoundFile
import Speech

/// Fetches `audio_url` clips: http and https only, allowed hosts only, bounded in size and time,
/// decoded through libsndfile and kept in the clip cache by URL.
public struct RemoteAudio: Sendable {
    let settings: AudioURLSettings
    let cache: ClipCache
    /// The daemon's client (redirects refused, `HTTPClient.Configuration.herald`); nil: nothing
    /// is fetched, only the cache is read.
    let client: HTTPClient?

    public init(settings: AudioURLSettings, cache: ClipCache, client: HTTPClient?) {
        self.settings = settings
        self.cache = cache
        self.client = client
    }

    /// The decoded clip at `text`, from the cache when it was fetched before.
    public func clip(for text: String) async throws -> Clip {
        let url = try settings.allowedURL(text)
        let key = SpeechRequest(text: url.absoluteString, language: "", voice: "", rate: 0, pitch: 0)
        if let cached = try await cache.clip(engine: "url", request: key) { return cached }
        let clip = try await fetch(url)
        try await cache.store(clip, engine: "url", request: key)
        return clip
    }

    private func fetch(_ url: URL) async throws -> Clip {
        guard let client else { throw RemoteAudioError.unreachable("this process has no HTTP client") }
        let file = NSTemporaryDirectory() + "herald-url-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: file) }
        let settings = self.settings
        do {
            // One deadline for connect, headers and body: AsyncHTTPClient's own timeout ends at the
            // response head, and a server dripping its body would hold the request for minutes.
            let data = try await withDeadline(.milliseconds(settings.timeoutMilliseconds),
                                              timeoutError: { RemoteAudioError.timedOut(settings.timeoutMilliseconds) }) {
                let response = try await client.execute(HTTPClientRequest(url: url.absoluteString),
                                                        timeout: .milliseconds(Int64(settings.timeoutMilliseconds)))
                guard response.status.code == 200 else { throw RemoteAudioError.status(Int(response.status.code)) }
                if let length = response.headers.first(name: "content-length").flatMap(Int64.init), length > settings.maxBytes {
                    throw RemoteAudioError.tooLarge(settings.maxBytes)
                }
                var data = Data()
                for try await chunk in response.body {
                    data.append(contentsOf: chunk.readableBytesView)
                    if Int64(data.count) > settings.maxBytes { throw RemoteAudioError.tooLarge(settings.maxBytes) }
                }
                return data
            }
            try PrivateFiles.write(Array(data), to: file)  // 0600: in /tmp, what was fetched is no one else's
        } catch let error as RemoteAudioError {
            throw error
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw RemoteAudioError.timedOut(settings.timeoutMilliseconds)
        } catch {
            throw RemoteAudioError.unreachable("\(error)")
        }
        do {
            return try SoundFileDecoder.decode(path: file)
        } catch {
            throw RemoteAudioError.notAudio
        }
    }
}
