import HeraldConfig
import HeraldCore
import Logging
import PulseAudio

extension ConfigDraft {
    /// `config check` only: each room's microphone (`rooms.<room>.noise`) against the sound server
    /// as it is now, reported at its `source:` or `match:` line. The daemon does not refuse a
    /// config for it (a microphone unplugged at start leaves its room on the plain safeguard).
    /// - Returns: notes: the sources could not be looked at (no server), or a microphone is there
    ///   but muted or turned down (a state of the box, not of the file).
    public mutating func checkNoiseSources(logger: Logger) async -> [String] {
        let rooms = (configuration.configuredRooms?.rooms ?? []).compactMap { room in room.noise.map { (room.name, $0) } }
        guard !rooms.isEmpty else { return [] }
        let sources: [SourceState]
        do {
            let sound = try await PulseConnection(applicationName: "Herald noise meter", timeout: .seconds(2), logger: logger)
            sources = try await sound.sources()
        } catch {
            return ["the rooms' microphones were not looked for: no sound server answers (\(error))"]
        }
        var notes: [String] = []
        for (room, noise) in rooms {
            let field = if case .named = noise.source { "source" } else { "match" }
            switch noise.pick(among: sources) {
            case .success(let source):
                if let problem = source.problem { notes.append("room \(room): \(problem); it is not raised for noise until then") }
            case .failure(let problem):
                report("rooms.\(room).noise.\(field)", "\(noise.describe(problem)); plug the microphone in or name one that is there")
            }
        }
        return notes
    }
}
