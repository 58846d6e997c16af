import Foundation

/// A broker written as `mqtt://host:port` or `mqtts://host:port` (TLS), read once for the hub's
/// `mqtt.broker`, the console's `fleet.broker` and `herald fleet simulate --broker`.
public struct BrokerAddress: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var tls: Bool

    /// Why a text is not a broker address, worded for the person who wrote it.
    public enum Invalid: Error, CustomStringConvertible {
        case notAnAddress(String)
        case portOutOfRange(Int)

        public var description: String {
            switch self {
            case .notAnAddress(let text):
                "'\(text)' is not a broker address; write it like mqtt://broker.example.com:1883 or mqtts://broker.example.com:8883"
            case .portOutOfRange(let port): "port \(port) is out of range; use 1 to 65535"
            }
        }
    }

    /// Reads `text`; the port defaults to 1883 (8883 with TLS). Credentials in the address are
    /// refused: they belong in the config's username and password, not in logs.
    public init(_ text: String) throws(Invalid) {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(), ["mqtt", "mqtts"].contains(scheme),
              let host = url.host, !host.isEmpty, url.path.isEmpty || url.path == "/", url.user == nil else {
            throw .notAnAddress(text)
        }
        tls = scheme == "mqtts"
        port = url.port ?? (tls ? 8883 : 1883)
        guard (1...65_535).contains(port) else { throw .portOutOfRange(port) }
        self.host = host
    }
}

extension MQTTSettings {
    /// Settings for `hub` on the broker at `address`, with the defaults for everything else.
    public init(broker address: BrokerAddress, hub: String) {
        self.init(host: address.host, port: address.port, tls: address.tls, hub: hub)
    }
}
