import Foundation
import GRDB

/// Signatures used by requests that leave no announcement row behind (a signed reminder is said
/// later, by the daemon): kept until they expire (`t + tolerance`), so a copy sent again after a
/// restart is refused as the log refuses a copy of a signed announcement.
extension AppDatabase {
    /// Whether a signature whose HMAC is `mac` was recorded and has not expired by `now`.
    func signatureUsedNow(_ mac: String, now: Date) throws -> Bool {
        try writer.read { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM used_signature WHERE mac = ? AND expires_at > ?", arguments: [mac, now]) ?? false
        }
    }

    /// Records `mac` as used until `expiry`, forgetting those expired by `now`.
    func recordUsedSignatureNow(_ mac: String, until expiry: Date, now: Date) throws {
        try writer.write { db in
            try db.execute(sql: "DELETE FROM used_signature WHERE expires_at <= ?", arguments: [now])
            try db.execute(sql: "INSERT OR REPLACE INTO used_signature (mac, expires_at) VALUES (?, ?)", arguments: [mac, expiry])
        }
    }

    /// Every unexpired used signature: what a flush copies from a buffer to the file.
    func usedSignaturesNow(now: Date) throws -> [(mac: String, expiry: Date)] {
        try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT mac, expires_at FROM used_signature WHERE expires_at > ?", arguments: [now])
                .map { ($0["mac"], $0["expires_at"]) }
        }
    }
}
