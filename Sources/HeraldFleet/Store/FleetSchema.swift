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
        [
            // The page's counts and filters at any size (issue 48): each hub's state changes with
            // time alone, so the rows carry when it turns stale and offline (what
            // `HubPresence.state(at:)` judges, set by the trigger below), indexed: the hubs stale
            // or offline at a moment are an index range, not every row.
            // `±infinity` for a hub that said offline (or only ever an unknown status) or that has
            // said online without a heartbeat yet.
            "ALTER TABLE hubs ADD COLUMN stale_from timestamptz NOT NULL DEFAULT '-infinity'",
            "ALTER TABLE hubs ADD COLUMN offline_from timestamptz NOT NULL DEFAULT '-infinity'",
            // When a hub last changed in what the page shows (`GET /v1/hubs?since=`). Not at each
            // heartbeat (100,000 hubs beat 1,700 times a second: every row would be "changed"), only
            // when a shown column changes, or a heartbeat ends a silence (stale or offline to online).
            "ALTER TABLE hubs ADD COLUMN changed_at timestamptz NOT NULL DEFAULT now()",
            """
            CREATE FUNCTION herald_hub_row() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.status = 'offline' OR (NEW.health_at IS NULL AND NEW.status IS DISTINCT FROM 'online') THEN
                    NEW.stale_from := '-infinity';
                    NEW.offline_from := '-infinity';
                ELSIF NEW.health_at IS NULL THEN
                    NEW.stale_from := 'infinity';
                    NEW.offline_from := 'infinity';
                ELSE
                    NEW.stale_from := NEW.health_at + GREATEST(NEW.interval_s, 1) * interval '1.5 seconds';
                    NEW.offline_from := NEW.health_at + GREATEST(NEW.interval_s, 1) * interval '3 seconds';
                END IF;
                IF TG_OP = 'INSERT'
                    OR NEW.status IS DISTINCT FROM OLD.status OR NEW.status_at IS DISTINCT FROM OLD.status_at
                    OR NEW.groups IS DISTINCT FROM OLD.groups OR NEW.version IS DISTINCT FROM OLD.version
                    OR NEW.interval_s IS DISTINCT FROM OLD.interval_s
                    OR NEW.rooms_muted IS DISTINCT FROM OLD.rooms_muted OR NEW.rooms_absent IS DISTINCT FROM OLD.rooms_absent
                    OR NEW.failed_24h IS DISTINCT FROM OLD.failed_24h OR NEW.missed_24h IS DISTINCT FROM OLD.missed_24h
                    OR NEW.last_error IS DISTINCT FROM OLD.last_error
                    OR (NEW.health_at IS NOT NULL AND (OLD.health_at IS NULL OR NEW.health_at >= OLD.stale_from))
                THEN
                    NEW.changed_at := clock_timestamp();
                END IF;
                RETURN NEW;
            END
            $$
            """,
            "CREATE TRIGGER hubs_row BEFORE INSERT OR UPDATE ON hubs FOR EACH ROW EXECUTE FUNCTION herald_hub_row()",
            // The rows there are now, through the trigger.
            "UPDATE hubs SET hub = hub",
            "CREATE INDEX hubs_stale_from ON hubs (stale_from)",
            "CREATE INDEX hubs_offline_from ON hubs (offline_from)",
            "CREATE INDEX hubs_changed_at ON hubs (changed_at)",
            // How many hubs in all ('') and in each group, kept as hubs are added, regrouped or
            // deleted: the totals without counting rows. Counted at commit (deferred), after the
            // transaction has taken every hub row it locks, and always the '' row first, then the
            // groups in name order: two consoles' batches wait for each other, never deadlock.
            "CREATE TABLE hub_counts (grp text PRIMARY KEY, hubs bigint NOT NULL)",
            """
            INSERT INTO hub_counts SELECT '', count(*) FROM hubs
            UNION ALL SELECT g, count(DISTINCT hub) FROM hubs, unnest(groups) AS g GROUP BY g
            """,
            """
            CREATE FUNCTION herald_hub_counts() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                old_groups text[] := '{}';
                new_groups text[] := '{}';
                added bigint := 0;
            BEGIN
                IF TG_OP IN ('UPDATE', 'DELETE') THEN old_groups := OLD.groups; END IF;
                IF TG_OP IN ('UPDATE', 'INSERT') THEN new_groups := NEW.groups; END IF;
                IF TG_OP = 'INSERT' THEN added := 1; ELSIF TG_OP = 'DELETE' THEN added := -1; END IF;
                INSERT INTO hub_counts (grp, hubs)
                SELECT grp, sum(k)::bigint FROM (
                    SELECT '' AS grp, added AS k
                    UNION ALL SELECT g, -1 FROM (SELECT DISTINCT unnest(old_groups) AS g) AS o
                    UNION ALL SELECT g, 1 FROM (SELECT DISTINCT unnest(new_groups) AS g) AS n) AS c
                GROUP BY grp HAVING grp = '' OR sum(k) <> 0 ORDER BY grp
                ON CONFLICT (grp) DO UPDATE SET hubs = hub_counts.hubs + EXCLUDED.hubs;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE CONSTRAINT TRIGGER hubs_counted AFTER INSERT OR DELETE ON hubs DEFERRABLE INITIALLY DEFERRED
            FOR EACH ROW EXECUTE FUNCTION herald_hub_counts()
            """,
            """
            CREATE CONSTRAINT TRIGGER hubs_regrouped AFTER UPDATE OF groups ON hubs DEFERRABLE INITIALLY DEFERRED
            FOR EACH ROW WHEN (OLD.groups IS DISTINCT FROM NEW.groups) EXECUTE FUNCTION herald_hub_counts()
            """,
        ],
    ]
}
