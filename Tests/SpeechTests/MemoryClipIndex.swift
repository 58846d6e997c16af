import Foundation
import HeraldCore
import Synchronization

/// The clip cache's index in memory, as `AppDatabase` keeps it in SQLite (HeraldStoreTests checks
/// that one): the speech tests need no store.
final class MemoryClipIndex: ClipIndex {
    private struct State {
        var entries: [String: CachedClipRecord] = [:]
        var hits = 0
        var misses = 0
    }

    private let state = Mutex(State())

    func cachedClip(key: String, material: String) async throws -> CachedClipRecord? {
        state.withLock { state in state.entries[key].flatMap { $0.material == material ? $0 : nil } }
    }

    func countCacheLookup(key: String, hit: Bool, now: Date) {
        state.withLock { state in
            guard hit else { return state.misses += 1 }
            state.entries[key]?.hits += 1
            state.entries[key]?.lastUsedAt = now
            state.hits += 1
        }
    }

    func storeCachedClip(_ record: CachedClipRecord, maxBytes: Int64) async throws -> [CachedClipRecord] {
        state.withLock { state in
            state.entries[record.key] = record
            var total = state.entries.values.reduce(0) { $0 + $1.bytes }
            var evicted: [CachedClipRecord] = []
            for candidate in state.entries.values.sorted(by: { $0.lastUsedAt < $1.lastUsedAt })
            where total > maxBytes && candidate.key != record.key {
                state.entries[candidate.key] = nil
                total -= candidate.bytes
                evicted.append(candidate)
            }
            return evicted
        }
    }

    func mostUsedCachedClips(limit: Int) async throws -> [CachedClipRecord] {
        state.withLock { state in
            Array(state.entries.values.sorted { ($0.hits, $0.lastUsedAt) > ($1.hits, $1.lastUsedAt) }.prefix(limit))
        }
    }

    func removeCachedClip(key: String) async throws {
        _ = state.withLock { $0.entries.removeValue(forKey: key) }
    }

    func clipCacheTotals() async throws -> ClipCacheTotals {
        state.withLock { state in
            ClipCacheTotals(entries: state.entries.count, bytes: state.entries.values.reduce(0) { $0 + $1.bytes },
                            hits: state.hits, misses: state.misses)
        }
    }

    func clearClipCache() async throws -> [CachedClipRecord] {
        state.withLock { state in
            defer { state = State() }
            return Array(state.entries.values)
        }
    }
}
