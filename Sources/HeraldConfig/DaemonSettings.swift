import Foundation
import HeraldCore
import RuntimePaths

/// The queue of `herald serve`.
public struct QueueSettings: Sendable, Equatable {
    /// Normal and low announcements are refused (503) past this many waiting.
    public var queueLimit = 100
    /// More payments than this waiting are said as one summary.
    public var coalescePaymentsOver = 3
    /// How long a request id keeps answering with its original announcement.
    public var requestIDRetentionDays = 7

    public init() {}
}

/// How long the announcement log keeps its rows.
public struct HistorySettings: Sendable, Equatable {
    /// Rows finished longer ago than this many days are deleted by the daemon (at start and
    /// daily) and by `herald history --prune`; 0 keeps them forever.
    public var retentionDays = 365
    /// How long the audio each announcement played is kept for listening back
    /// (`history.audio_retention`); zero keeps none.
    public var audioRetention: Duration = .seconds(7 * 86_400)
    /// The most bytes of kept audio (`history.audio_max_bytes`): past it the oldest goes first.
    public var audioMaxBytes: Int64 = 200_000_000

    public init() {}
}

/// The kinds of announcement `api.require_signature` can name.
public enum SignedKind: String, Sendable, CaseIterable, Hashable {
    case payment, text, clip
    case audioURL = "audio_url"
}

/// The HTTP API of `herald serve`.
public struct APISettings: Sendable, Equatable {
    public enum Role: String, Sendable, CaseIterable {
        /// May create announcements and read them.
        case announce
        /// May also skip, pause, replay and read status.
        case admin
    }

    public var host = "127.0.0.1"
    public var port = RuntimePaths.defaultAPIPort
    /// Token -> role. Empty: no tokens, and only a loopback address may be bound.
    public var tokens: [String: Role] = [:]
    public var maxBodyBytes = 65_536
    public var maxTextCharacters = 1000
    /// Requests a minute (`api.rate_per_minute`): per token when tokens are configured; without
    /// them, the requests that change something (announce, pause, skip, remind) per client
    /// address. The local socket has no limit.
    public var ratePerMinute = 600
    /// A connection with no complete request for this long is closed; this also bounds how long
    /// a client may take to send its headers (a slow-header client is cut off).
    public var idleTimeout: Duration = .seconds(30)
    /// The whole body must arrive within this, however slowly it drips.
    public var bodyTimeout: Duration = .seconds(10)
    /// Connections beyond this wait in the kernel's backlog until one closes.
    public var maxConnections = 512
    /// Connections at once from one client address: beyond it the address's idle connections
    /// are closed first, so one process cannot starve the rest.
    public var maxConnectionsPerClient = 64
    /// Host names a request's `Host` may carry besides `localhost` and IP addresses (lowercased,
    /// no trailing dot). Any other name is refused 421: it is how a DNS-rebinding page arrives.
    public var hostnames: Set<String> = []
    /// Secret name -> secret, for `Herald-Signature` (HMAC-SHA256).
    public var signingSecrets: [String: String] = [:]
    /// The kinds of announcement that must carry a valid signature.
    public var requireSignature: Set<SignedKind> = []
    /// How far a signature's `t` may be from now.
    public var signatureTolerance: Duration = .seconds(300)

    public init() {}

    /// `Herald.Local.` -> `herald.local`.
    public static func normalizedHostname(_ name: String) -> String {
        var name = name.trimmingCharacters(in: .whitespaces).lowercased()
        while name.hasSuffix(".") { name.removeLast() }
        return name
    }

    /// True for 127.0.0.0/8, ::1 and localhost.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// `http://127.0.0.1:7370`, for the CLI.
    public var baseURL: String {
        let shownHost = host == "0.0.0.0" || host == "::" ? "127.0.0.1" : (host.contains(":") ? "[\(host)]" : host)
        return "http://\(shownHost):\(port)"
    }
}

/// Where `audio_url` announcements may come from, and how much Herald fetches.
public struct AudioURLSettings: Sendable, Equatable {
    /// Host names allowed in audio_url; empty refuses every URL.
    public var allowHosts: [String] = []
    public var maxBytes: Int64 = 5_000_000
    public var connectTimeoutMilliseconds = 2000
    public var timeoutMilliseconds = 10_000

    public init() {}
}

/// Reminders (`reminders:`): the admin's list, how late one may still be said, whom to tell.
public struct ReminderSettings: Sendable, Equatable {
    /// A reminder due while the hub was off is still said this long after its due time (`late`);
    /// beyond it, it is logged `missed`.
    public var grace: Duration = .seconds(15 * 60)
    /// The webhook for reminders without their own `escalate`; nil for none.
    public var escalate: String?
    /// How many times a webhook POST is tried before it is given up (backoff doubling from 1 s).
    public var escalateAttempts = 5
    /// `reminders.list`, owned by the config file.
    public var list: [Reminder] = []

    public init() {}
}
