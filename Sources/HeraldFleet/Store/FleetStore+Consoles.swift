import Foundation
import PostgresNIO

extension FleetStore {
    /// A console's marks as the alarm rules read them (`fleet_consoles`).
    struct ConsoleMark: Sendable, Equatable {
        var console: String
        /// Everything this console received up to then is written; nil before its first mark.
        var writtenThrough: Date?
        /// Seconds since it last moved its marks, by the database's clock.
        var age: Double
    }

    /// A console with nothing waiting moves its marks on its own: everything it spooled up to
    /// `sequence` is written, and everything it received up to `writtenThrough`.
    func mark(console: String, spool: String, sequence: UInt64, writtenThrough: Date) async throws {
        try await run("""
            INSERT INTO fleet_consoles AS c (console, spool_id, spool_seq, written_through)
            VALUES (\(console), \(spool), \(Int64(sequence)), \(writtenThrough))
            ON CONFLICT (console) DO UPDATE SET spool_id = EXCLUDED.spool_id,
                spool_seq = CASE WHEN c.spool_id = EXCLUDED.spool_id THEN GREATEST(c.spool_seq, EXCLUDED.spool_seq) ELSE EXCLUDED.spool_seq END,
                written_through = GREATEST(COALESCE(c.written_through, EXCLUDED.written_through), EXCLUDED.written_through),
                seen_at = now(), active = true
            """)
    }

    /// A console stopping cleanly (everything it received written, or given up on): its mark no
    /// longer holds the alarm rules back.
    func leave(console: String) async throws {
        try await run("UPDATE fleet_consoles SET active = false WHERE console = \(console)")
    }

    /// The marks of the consoles that have not stopped cleanly.
    func consoleMarks() async throws -> [ConsoleMark] {
        var marks: [ConsoleMark] = []
        for try await (console, through, age) in try await run("""
            SELECT console, written_through, extract(epoch FROM now() - seen_at)::float8 FROM fleet_consoles WHERE active
            """).decode((String, Date?, Double).self) {
            marks.append(ConsoleMark(console: console, writtenThrough: through, age: age))
        }
        return marks
    }
}
