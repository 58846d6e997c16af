import Foundation
import HeraldConfig

extension AudioURLSettings {
    /// The URL in `text`, when its scheme is http or https and its host is in `allow_hosts`: what
    /// the validator checks before anything is fetched, and the fetcher again before it fetches.
    public func allowedURL(_ text: String) throws(RemoteAudioError) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw RemoteAudioError.notHTTP(text)
        }
        guard let host = url.host?.lowercased(), allowHosts.contains(host) else {
            throw RemoteAudioError.hostNotAllowed(url.host ?? "", allowed: allowHosts)
        }
        return url
    }
}

/// Why an audio_url could not be used, worded for the client.
public enum RemoteAudioError: Error, Equatable, CustomStringConvertible {
    case notHTTP(String)
    case hostNotAllowed(String, allowed: [String])
    case status(Int)
    case tooLarge(Int64)
    case timedOut(Int)
    case unreachable(String)
    case notAudio

    public var description: String {
        switch self {
        case .notHTTP(let text): "'\(text)' is not an http or https URL"
        case .hostNotAllowed(let host, let allowed):
            "host '\(host)' is not in audio_url.allow_hosts (\(allowed.isEmpty ? "empty: every URL is refused" : allowed.joined(separator: ", ")))"
        case .status(let code): "the server answered \(code)"
        case .tooLarge(let limit): "the audio is larger than \(limit) bytes (audio_url.max_bytes)"
        case .timedOut(let milliseconds): "the server did not deliver within \(milliseconds) ms"
        case .unreachable(let detail): "the server could not be reached: \(detail)"
        case .notAudio: "what the server sent is not audio libsndfile can decode"
        }
    }
}
