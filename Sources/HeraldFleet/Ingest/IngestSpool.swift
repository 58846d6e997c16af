import Foundation
import Synchronization

/// The console's spool: every hub message it receives, appended to a file in its state folder by
/// the broker's loop thread before the message goes on to be batched, numbered in order.
///
/// libmosquitto acknowledges a QoS 1 message as it hands it over, so the broker forgets it long
/// before its batch commits; a console killed in between lost what it held in memory. Now each
/// batch's transaction also records how far in the spool this console has committed
/// (`FleetStore.record`), and at start the console replays what lies beyond: exactly once, as
/// the mark and the rows change together. A plain write(2), no fsync: a killed process leaves
/// its writes in the page cache; a machine that loses power loses the last moments (the broker's
/// own persistence is no better).
///
/// The file: an 8-byte magic, the spool's id (16 random bytes: a spool lost and begun afresh has
/// another, so the database's mark of the old one skips nothing of it) and the first sequence
/// number it may hold (so numbers keep rising across rotations), then records `[length u32][sequence u64][received at, f64 bits][retained u8]
/// [topic length u16][topic][payload]`, little-endian. A torn last record (a crash of the machine)
/// is ignored on reading.
final class IngestSpool: Sendable {
    /// A message as the spool holds it.
    struct Record: Sendable, Equatable {
        var sequence: UInt64
        var topic: String
        var payload: [UInt8]
        var retained: Bool
        var receivedAt: Date
    }

    private struct State {
        var descriptor: Int32
        /// The number the next record gets.
        var next: UInt64
        var bytes: Int
        var failed: String?
    }

    static let magic: [UInt8] = Array("HSPOOL01".utf8)
    static let headerSize = 32
    let path: String
    /// This spool's id, hex: the database keeps each console's mark with the id it belongs to.
    let id: String
    private let idBytes: [UInt8]
    private let state: Mutex<State>

    /// Opens (creating it) the spool at `path` and returns it with what it holds, in order.
    static func open(_ path: String) throws -> (IngestSpool, [Record]) {
        let records = Self.read(path)
        var (id, next) = ((0..<16).map { _ in UInt8.random(in: 0...255) }, UInt64(1))
        if let data = FileManager.default.contents(atPath: path), data.count >= headerSize, Array(data.prefix(8)) == magic {
            id = Array(data[8..<24])
            next = data[24..<32].withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
        }
        // Numbers go on from the clock too (microseconds, far above any count of messages): a
        // spool whose tail a power cut took must not number anew what the database has marked done.
        next = max(next, (records.last?.sequence ?? 0) + 1, UInt64(Date().timeIntervalSince1970 * 1_000_000))
        let spool = try IngestSpool(path: path, id: id, next: next, keeping: records)
        return (spool, records)
    }

    private init(path: String, id: [UInt8], next: UInt64, keeping records: [Record]) throws {
        self.path = path
        idBytes = id
        self.id = id.map { String(format: "%02x", $0) }.joined()
        // A fresh file with the records still owed: a torn tail is gone, and the file starts small.
        let descriptor = try Self.rewrite(path, id: id, next: next, records: records)
        var bytes = Self.headerSize
        for record in records { bytes += Self.encode(record).count }
        state = Mutex(State(descriptor: descriptor, next: next, bytes: bytes))
    }

    deinit { state.withLock { _ = close($0.descriptor) } }

    /// Appends a message and returns its sequence number; on a failed write (a full disk) the
    /// message still goes on, unspooled, and `failure` says why once.
    func append(topic: String, payload: [UInt8], retained: Bool, receivedAt: Date) -> UInt64 {
        state.withLock { state in
            let record = Record(sequence: state.next, topic: topic, payload: payload, retained: retained, receivedAt: receivedAt)
            state.next += 1
            let bytes = Self.encode(record)
            let written = bytes.withUnsafeBytes { write(state.descriptor, $0.baseAddress, $0.count) }
            if written == bytes.count { state.bytes += written } else {
                if state.failed == nil { state.failed = "could not write to the spool \(path): \(String(cString: strerror(errno)))" }
                // No torn record left behind for the next one to follow.
                _ = ftruncate(state.descriptor, off_t(state.bytes))
            }
            return record.sequence
        }
    }

    /// The sequence number of the last record appended (0: none yet).
    var last: UInt64 { state.withLock { $0.next - 1 } }

    /// Why the last append failed, once.
    func takeFailure() -> String? { state.withLock { state in defer { state.failed = nil }; return state.failed } }

    /// Starts the file afresh when everything it holds is committed (`committed` is its last
    /// record) and it has grown past `over` bytes. Atomic by rename: a kill at any moment leaves
    /// either file whole.
    func rotate(committed: UInt64, over: Int = 8 << 20) throws {
        try state.withLock { state in
            guard committed == state.next - 1, state.bytes > over else { return }
            let descriptor = try Self.rewrite(path, id: idBytes, next: state.next, records: [])
            close(state.descriptor)
            state.descriptor = descriptor
            state.bytes = Self.headerSize
        }
    }

    private static func rewrite(_ path: String, id: [UInt8], next: UInt64, records: [Record]) throws -> Int32 {
        var bytes = magic + id
        withUnsafeBytes(of: next.littleEndian) { bytes += $0 }
        for record in records { bytes += encode(record) }
        let fresh = path + ".new"
        guard FileManager.default.createFile(atPath: fresh, contents: Data(bytes), attributes: [.posixPermissions: 0o600]),
              rename(fresh, path) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        let descriptor = Foundation.open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
        return descriptor
    }

    static func encode(_ record: Record) -> [UInt8] {
        let topic = Array(record.topic.utf8.prefix(Int(UInt16.max)))
        var body: [UInt8] = []
        body.reserveCapacity(23 + topic.count + record.payload.count)
        withUnsafeBytes(of: record.sequence.littleEndian) { body += $0 }
        withUnsafeBytes(of: record.receivedAt.timeIntervalSince1970.bitPattern.littleEndian) { body += $0 }
        body.append(record.retained ? 1 : 0)
        withUnsafeBytes(of: UInt16(topic.count).littleEndian) { body += $0 }
        body += topic
        body += record.payload
        var framed: [UInt8] = []
        withUnsafeBytes(of: UInt32(body.count).littleEndian) { framed += $0 }
        return framed + body
    }

    /// Every whole record of the file at `path`, in order; none for a missing or foreign file.
    static func read(_ path: String) -> [Record] {
        guard let data = FileManager.default.contents(atPath: path), data.count >= headerSize, Array(data.prefix(8)) == magic else { return [] }
        let bytes = [UInt8](data)
        func integer<T: FixedWidthInteger>(_ at: Int, _: T.Type) -> T {
            bytes[at..<(at + MemoryLayout<T>.size)].withUnsafeBytes { T(littleEndian: $0.loadUnaligned(as: T.self)) }
        }
        var records: [Record] = []
        var at = headerSize
        while at + 4 <= bytes.count {
            let length = Int(integer(at, UInt32.self))
            let start = at + 4
            guard length >= 19, start + length <= bytes.count else { break }
            let topicLength = Int(integer(start + 17, UInt16.self))
            guard 19 + topicLength <= length else { break }
            let topicStart = start + 19
            records.append(Record(sequence: integer(start, UInt64.self),
                                  topic: String(decoding: bytes[topicStart..<(topicStart + topicLength)], as: UTF8.self),
                                  payload: Array(bytes[(topicStart + topicLength)..<(start + length)]),
                                  retained: bytes[start + 16] != 0,
                                  receivedAt: Date(timeIntervalSince1970: Double(bitPattern: integer(start + 8, UInt64.self)))))
            at = start + length
        }
        return records
    }
}
