import Metrics

/// What the daemon counts, for `GET /metrics` (docs/operations.md, "Metrics"): the names and
/// their help in one place, here below every part that counts (the intake, the edges, the daemon).
///
/// Recorded through swift-metrics: `herald serve` bootstraps the Prometheus backend, every other
/// command bootstraps none, so the same code paths (`herald say --local`, `herald restore`) count
/// into swift-metrics' no-op backend and pay nothing. Each metric has one fixed set of label
/// names (a Prometheus family must not mix them).
public enum HeraldMetrics {
    /// Metric names and their `# HELP` text, in the order `/metrics` documents them.
    public static let help: [(name: String, text: String)] = [
        ("herald_announcements_total", "Announcements logged with an outcome, by outcome, priority and source (the rows of `herald history`)."),
        ("herald_duplicates_total", "Requests answered with the original row because their request_id was seen before; nothing played."),
        ("herald_onset_latency_seconds", "From the request (its turn in the queue) to the first audible sample, for announcements that played."),
        ("herald_queue_depth", "Announcements waiting in the queue, by priority."),
        ("herald_queue_deferred", "Announcements held by quiet hours until they end."),
        ("herald_cache_lookups_total", "Sentences looked up in the clip cache by announcements: hit (played from the cache) or miss (synthesized)."),
        ("herald_safeguard_actions_total", "What the safeguard did: unmute, raise, duck (per stream), restore, user_change_kept, journal_replay."),
        ("herald_sound_server_reconnects_total", "Connections to the sound server made again after one was lost or never came."),
        ("herald_reminder_firings_total", "Reminder occurrences: said on time, late (within reminders.grace) or missed."),
        ("herald_reminder_acks_total", "Reminders acknowledged."),
        ("herald_calendar_reads_total", "Reads of each calendar (calendars:), by calendar and result (ok, or failed: the last good copy kept)."),
        ("herald_calendar_last_read_timestamp_seconds", "When each calendar was last read and parsed, in Unix seconds."),
        ("herald_calendar_planned_firings", "Firings each calendar's last read planned for the next 8 days."),
        ("herald_reminder_escalations_total", "Caregiver webhooks sent for unanswered or missed reminders, by result (delivered or failed)."),
        ("herald_refusals_total", "Requests and messages refused before anything was queued, by reason (content_type, host, origin, signature, token, rate, connections, retained) and way in (http, mqtt)."),
        ("herald_room_announcements_total", "Each room's part of announcements to rooms (houses with rooms: only), by room and outcome (played, missed, failed, suppressed_muted, interrupted)."),
        ("herald_button_presses_total", "Button presses (buttons:), by action (none for an unknown button or event) and result (done, nothing, ignored, refused, failed)."),
        ("herald_room_noise_dbfs", "Each room's noise floor as its microphone hears it (rooms.<room>.noise), in dBFS in the speech band; absent until heard."),
        ("herald_room_noise_gain_db", "The gain in dB an announcement opening the room now would get for its noise (0 without a floor)."),
        ("herald_decoded_clips_bytes", "Bytes of decoded audio kept in memory (voice pack words, chimes, cached sentences), bounded at 64 MiB: memory that grows to this bound is the cache, not a leak."),
        ("herald_build_info", "Always 1; the version label is `herald --version`."),
    ]

    /// Onset buckets: from a warm stream's few milliseconds to a sink waking from suspend.
    public static let onsetBuckets: [Duration] = [5, 10, 20, 35, 50, 75, 100, 150, 250, 500, 1000, 2500, 5000]
        .map { .milliseconds($0) }

    /// Safeguard actions, as the `action` label says them.
    public enum SafeguardAction: String, CaseIterable, Sendable {
        case unmute, raise, duck, restore
        case userChangeKept = "user_change_kept"
        case journalReplay = "journal_replay"
    }

    /// Sets the counters that have a small fixed label set to zero, so a scrape shows them (and
    /// `rate()` works) before the first event.
    public static func start(version: String) {
        for action in SafeguardAction.allCases { safeguard(action, count: 0) }
        Counter(label: "herald_sound_server_reconnects_total").increment(by: 0)
        Counter(label: "herald_reminder_acks_total").increment(by: 0)
        for kind in ["on_time", "late", "missed"] { Counter(label: "herald_reminder_firings_total", dimensions: [("kind", kind)]).increment(by: 0) }
        for result in ["hit", "miss"] { Counter(label: "herald_cache_lookups_total", dimensions: [("result", result)]).increment(by: 0) }
        Gauge(label: "herald_build_info", dimensions: [("version", version)]).record(1)
        for reason in Refusal.allCases { refused(reason, via: reason == .retained ? "mqtt" : "http", count: 0) }
    }

    /// One press of a button.
    public static func buttonPressed(action: String, result: String) {
        Counter(label: "herald_button_presses_total", dimensions: [("action", action), ("result", result)]).increment()
    }

    /// The decoded-clip store's size after a change (`DecodedClips`).
    public static func decodedClips(bytes: Int) {
        Gauge(label: "herald_decoded_clips_bytes").record(bytes)
    }

    /// Why a request or message was refused before it reached the queue.
    public enum Refusal: String, CaseIterable, Sendable {
        case contentType = "content_type"
        case host, origin, signature, token, rate, connections, retained
    }

    /// One refusal (logged by the caller, which knows what was wrong).
    public static func refused(_ reason: Refusal, via: String, count: Int64 = 1) {
        Counter(label: "herald_refusals_total", dimensions: [("reason", reason.rawValue), ("via", via)]).increment(by: count)
    }

    /// One row logged with its final outcome: counted once, with its onset and cache use.
    public static func announcement(_ record: AnnouncementRecord) {
        guard let outcome = record.outcome else { return }
        Counter(label: "herald_announcements_total", dimensions: [
            ("outcome", outcome.rawValue), ("priority", record.priority.rawValue), ("source", record.source.rawValue),
        ]).increment()
        if let onset = record.onsetLatencyMilliseconds {
            Metrics.Timer(label: "herald_onset_latency_seconds").recordMilliseconds(onset)
        }
        for room in record.rooms ?? [] {
            Counter(label: "herald_room_announcements_total", dimensions: [("room", room.room), ("outcome", room.outcome.rawValue)]).increment()
        }
        switch record.clipSource {
        case .cache?: Counter(label: "herald_cache_lookups_total", dimensions: [("result", "hit")]).increment()
        case .synth?, .piper?: Counter(label: "herald_cache_lookups_total", dimensions: [("result", "miss")]).increment()
        default: break
        }
    }

    /// A request whose request_id was seen before.
    public static func duplicate(source: AnnouncementSource) {
        Counter(label: "herald_duplicates_total", dimensions: [("source", source.rawValue)]).increment()
    }

    public static func queue(depth: [Priority: Int], deferred: Int) {
        for priority in Priority.allCases {
            Gauge(label: "herald_queue_depth", dimensions: [("priority", priority.rawValue)]).record(depth[priority] ?? 0)
        }
        Gauge(label: "herald_queue_deferred").record(deferred)
    }

    public static func safeguard(_ action: SafeguardAction, count: Int = 1) {
        Counter(label: "herald_safeguard_actions_total", dimensions: [("action", action.rawValue)]).increment(by: count)
    }

    /// What one safeguard open changed on the sink.
    public static func opened(_ entry: JournalEntry) {
        if entry.unmuted { safeguard(.unmute) }
        if entry.setVolumes != nil { safeguard(.raise) }
    }

    /// What one close (or a journal applied after a crash) put back, and what it left to the user.
    /// Ducks are counted here: the closing journal also holds the streams that appeared meanwhile.
    public static func restored(_ restoration: Safeguard.Restoration, replayingJournal: Bool) {
        safeguard(replayingJournal ? .journalReplay : .restore)
        if !replayingJournal && !restoration.entry.ducks.isEmpty { safeguard(.duck, count: restoration.entry.ducks.count) }
        if !restoration.actions.keptUserChanges.isEmpty {
            safeguard(.userChangeKept, count: restoration.actions.keptUserChanges.count)
        }
    }

    public static func reconnected() { Counter(label: "herald_sound_server_reconnects_total").increment() }

    /// - Parameter kind: `on_time`, `late` or `missed`.
    public static func reminderFired(_ kind: String) {
        Counter(label: "herald_reminder_firings_total", dimensions: [("kind", kind)]).increment()
    }

    public static func reminderAcknowledged() { Counter(label: "herald_reminder_acks_total").increment() }

    /// A calendar read: its outcome counted, and (when it worked) when, and how many firings it planned.
    public static func calendarRead(_ calendar: String, ok: Bool, at secondsSince1970: Double, firings: Int) {
        Counter(label: "herald_calendar_reads_total", dimensions: [("calendar", calendar), ("result", ok ? "ok" : "failed")]).increment()
        guard ok else { return }
        Gauge(label: "herald_calendar_last_read_timestamp_seconds", dimensions: [("calendar", calendar)]).record(secondsSince1970)
        Gauge(label: "herald_calendar_planned_firings", dimensions: [("calendar", calendar)]).record(firings)
    }

    public static func reminderEscalated(delivered: Bool) {
        Counter(label: "herald_reminder_escalations_total", dimensions: [("result", delivered ? "delivered" : "failed")]).increment()
    }

    /// A room's noise now (`NoiseMonitor`, every second): its floor, when heard, and its gain.
    public static func roomNoise(_ room: String, floorDBFS: Double?, gainDB: Double) {
        if let floorDBFS { Gauge(label: "herald_room_noise_dbfs", dimensions: [("room", room)]).record(floorDBFS) }
        Gauge(label: "herald_room_noise_gain_db", dimensions: [("room", room)]).record(gainDB)
    }
}
