/// The console's tables, as migrations applied in order (`FleetStore.migrate`). Never edit one
/// that has shipped: add the next.
enum FleetSchema {
    static let migrations: [[String]] = [
        [
            // One row per hub, written by its status, its heartbeat (the columns the page filters and
            // counts on, besides the heartbeat itself) and, for a hub first heard through one, an event.
            """
            CREATE TABLE hubs (
                hub text PRIMARY KEY,
                groups text[] NOT NULL DEFAULT '{}',
                version text NOT NULL DEFAULT '',
                status text,
                status_at timestamptz,
                health_at timestamptz,
                interval_s integer NOT NULL DEFAULT 60,
                health jsonb,
                rooms_muted text[] NOT NULL DEFAULT '{}',
                rooms_absent text[] NOT NULL DEFAULT '{}',
                failed_24h integer NOT NULL DEFAULT 0,
                missed_24h integer NOT NULL DEFAULT 0,
                last_error text,
                first_seen timestamptz NOT NULL DEFAULT now()
            )
            """,
            "CREATE INDEX hubs_groups ON hubs USING gin (groups)",
            // What each hub published on its events topic; a redelivered one (QoS 1) is kept once.
            """
            CREATE TABLE events (
                id bigserial PRIMARY KEY,
                hub text NOT NULL,
                at timestamptz NOT NULL,
                received_at timestamptz NOT NULL DEFAULT now(),
                outcome text NOT NULL,
                announcement text,
                request_id text,
                error text,
                body jsonb NOT NULL
            )
            """,
            "CREATE INDEX events_hub_at ON events (hub, at DESC)",
            "CREATE INDEX events_at ON events (at)",
            "CREATE UNIQUE INDEX events_once ON events (hub, announcement, outcome) WHERE announcement IS NOT NULL",
            // Alarms: at most one open per (hub, kind, subject), which is what makes two consoles open
            // it once; its webhook notices (opened, closed) are claimed by one console at a time.
            """
            CREATE TABLE alarms (
                id bigserial PRIMARY KEY,
                hub text NOT NULL,
                kind text NOT NULL,
                subject text NOT NULL DEFAULT '',
                state text NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'closed')),
                detail text NOT NULL,
                opened_at timestamptz NOT NULL DEFAULT now(),
                opened_by text NOT NULL,
                closed_at timestamptz,
                closed_by text,
                acknowledged_at timestamptz,
                acknowledged_by text,
                open_noticed_at timestamptz,
                close_noticed_at timestamptz,
                notice_attempts integer NOT NULL DEFAULT 0,
                notice_due timestamptz NOT NULL DEFAULT now(),
                notice_claimed_until timestamptz,
                notice_error text
            )
            """,
            "CREATE UNIQUE INDEX alarms_one_open ON alarms (hub, kind, subject) WHERE state = 'open'",
            "CREATE INDEX alarms_hub ON alarms (hub, opened_at DESC)",
        ],
        [
            // Each console's marks, moved by the transaction that writes its batch: how far in its
            // spool it has committed (IngestSpool, the spool's id with it), and the time up to which everything it received
            // is written, which the alarm rules read as their clock (SilenceClock). `seen_at` is the
            // database's time of its last mark; `active` false once it stopped cleanly.
            """
            CREATE TABLE fleet_consoles (
                console text PRIMARY KEY,
                spool_id text NOT NULL DEFAULT '',
                spool_seq bigint NOT NULL DEFAULT 0,
                written_through timestamptz,
                seen_at timestamptz NOT NULL DEFAULT now(),
                active boolean NOT NULL DEFAULT true
            )
            """,
        ],
    ]
}
