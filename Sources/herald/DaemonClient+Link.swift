import AsyncHTTPClient
import Foundation
import HeraldServer

extension DaemonClient {
    /// The running daemon's MQTT link, from its `/v1/status`; nil when no daemon answers or it
    /// has no link.
    func link() async -> LinkStatus? {
        struct Status: Decodable { var mqtt: LinkStatus? }
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { _ = client.shutdown() }
        var request = HTTPClientRequest(url: settings.baseURL + "/v1/status")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        guard let response = try? await client.execute(request, timeout: .milliseconds(500)), response.status == .ok,
              let body = try? await response.body.collect(upTo: 1 << 20) else { return nil }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        return (try? decoder.decode(Status.self, from: Data(body.readableBytesView)))?.mqtt
    }
}
