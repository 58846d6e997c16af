import Foundation
import HeraldApp

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
}
