import HeraldCore

/// Where each room of an announcement is now: the sink its selector finds, or why it has none.
public struct RoomPlacement: Sendable, Equatable {
    /// Why a room has no sink now.
    public enum Miss: Error, Sendable, Equatable, CustomStringConvertible {
        case absent(Room.SinkSelector)
        case ambiguous(Room.SinkSelector, [String])

        public var description: String {
            switch self {
            case .absent(.serverDefault): "the sound server has no default sink"
            case .absent(let selector): "no sink is \(selector) (unplugged?)"
            case .ambiguous(let selector, let names): "\(selector) fits \(names.count) sinks (\(names.joined(separator: ", "))); none is used"
            }
        }
    }

    public let room: Room
    public let sink: Result<String, Miss>

    public var sinkName: String? { try? sink.get() }

    /// Finds every room's sink with as few requests as it needs: none for a sink named in the
    /// config (a missing one fails when the safeguard reads it), the server's default for the
    /// `default` room, the list of sinks for a match.
    public static func place(_ rooms: [Room], on sound: any SoundSystem) async throws -> [RoomPlacement] {
        var defaultSink: String??, sinks: [SinkState]?
        var placed: [RoomPlacement] = []
        for room in rooms {
            switch room.sink {
            case .named(let name):
                placed.append(RoomPlacement(room: room, sink: .success(name)))
            case .serverDefault:
                if defaultSink == nil { defaultSink = .some(try await sound.serverInfo().defaultSinkName) }
                let name = defaultSink.flatMap { $0 }.flatMap { $0.isEmpty ? nil : $0 }
                placed.append(RoomPlacement(room: room, sink: name.map { .success($0) } ?? .failure(.absent(.serverDefault))))
            case .matching:
                if sinks == nil { sinks = try await sound.sinks() }
                switch room.pick(from: sinks ?? [], defaultSink: nil) {
                case .found(let sink): placed.append(RoomPlacement(room: room, sink: .success(sink.name)))
                case .absent: placed.append(RoomPlacement(room: room, sink: .failure(.absent(room.sink))))
                case .ambiguous(let names): placed.append(RoomPlacement(room: room, sink: .failure(.ambiguous(room.sink, names))))
                }
            }
        }
        return placed
    }
}
