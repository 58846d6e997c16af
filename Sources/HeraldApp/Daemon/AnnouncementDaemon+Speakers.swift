import HeraldCore

/// Later parts of a row waiting for their rooms' speakers (a speaker unplugged while it played
/// there): held aside by the machine, so the queue goes on for the other rooms, and given back
/// once a speaker is there again.
extension AnnouncementDaemon {
    /// Looks once at the server's sinks and gives back to the queue the waiting parts one of
    /// whose rooms has its speaker again; the others wait on, until their max age.
    func giveBackWhereSpeakersAreBack(_ entries: [Entry]) async {
        guard let sound = try? await connector.current(), let sinks = try? await sound.sinks() else { return }
        let defaultSink = try? await sound.serverInfo().defaultSinkName
        let present = Set(sinks.map(\.name))
        let back = entries.filter { entry in
            turnKit.rooms(for: entry.item).contains { room in
                room.sinkName(among: sinks, defaultSink: defaultSink).map(present.contains) ?? false
            }
        }
        guard !back.isEmpty else { return }
        for entry in back {
            logger.notice("announcement \(entry.id): a speaker of \((entry.item.rooms ?? []).joined(separator: ", ")) is back; said there now")
        }
        machine.turns.speakersBack(ids: back.map(\.id))
    }
}
