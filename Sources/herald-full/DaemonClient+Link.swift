import Foundation
import HeraldApp
import HeraldCore

extension DaemonClient {
    /// The MQTT link in a daemon's `/v1/status`; nil when it has none.
    static func link(in status: [String: Any]) -> LinkStatus? {
        guard let mqtt = status["mqtt"] as? [String: Any], let data = try? JSONSerialization.data(withJSONObject: mqtt) else {
            return nil
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(LinkStatus.self, from: data)
    }

    /// What `room`'s microphone hears, in a daemon's `/v1/status` (only the daemon listens); nil
    /// for a room without `noise:`.
    static func noise(of room: String, in status: [String: Any]) -> NoiseReading? {
        let rooms = (status["sound"] as? [String: Any])?["rooms"] as? [[String: Any]] ?? []
        guard let noise = rooms.first(where: { $0["room"] as? String == room })?["noise"] as? [String: Any],
              let data = try? JSONSerialization.data(withJSONObject: noise) else { return nil }
        // Its keys are spelled out (floor_dbfs): no snake-case conversion.
        return try? JSONDecoder().decode(NoiseReading.self, from: data)
    }
}
