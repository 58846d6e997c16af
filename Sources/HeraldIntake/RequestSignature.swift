import Crypto
import Foundation
import Synchronization

/// `Herald-Signature: t=UNIX_SECONDS,v1=HEX`: HMAC-SHA256 with a shared secret over
/// `"{t}.{raw body}"`, the scheme payment processors use to sign their webhooks (docs/signing.md). Over MQTT the same value is the MQTT 5 user property `herald-signature`.
public enum RequestSignature {
    /// The header's name over HTTP; the user property's over MQTT.
    public static let headerName = "Herald-Signature"
    public static let propertyName = "herald-signature"

    /// What was wrong with a signature, in words for the sender.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        case missing(kind: String)
        case malformed(String)
        case outsideTolerance(seconds: Int64, tolerance: Int64)
        case noMatch
        case reused
        case paymentWording(template: String)

        public var description: String {
            switch self {
            case .missing(let kind):
                "a \(kind) announcement must be signed (api.require_signature): send Herald-Signature: t=UNIX_SECONDS,v1=HMAC-SHA256 hex of \"t.body\" (herald sign prints one)"
            case .malformed(let detail):
                "is not t=UNIX_SECONDS,v1=HEX: \(detail)"
            case .outsideTolerance(let seconds, let tolerance):
                "was made \(seconds < 0 ? "\(-seconds) s in the future" : "\(seconds) s ago"), beyond the \(tolerance) s allowed (api.signature_tolerance); sign the request just before sending it, with a clock that is right"
            case .noMatch:
                "does not match the body with any of api.signing_secrets; sign the exact bytes sent, with the secret this hub has"
            case .reused:
                "was already used by an earlier request; sign each request anew, and give it a request_id so a retry answers with the original"
            case .paymentWording(let template):
                "is missing: this text says a payment's words (\"\(template)\"), and payments must be signed (api.require_signature); send the payment as {\"payment\": ...} signed, or sign the text"
            }
        }
    }

    /// The header's value for `body`, signed with `secret` at `time`.
    public static func value(body: some Sequence<UInt8>, secret: String, time: Date = Date()) -> String {
        let t = Int64(time.timeIntervalSince1970.rounded(.down))
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(t).".utf8) + Data(body), using: SymmetricKey(data: Data(secret.utf8)))
        return "t=\(t),v1=" + mac.map { String(format: "%02x", $0) }.joined()
    }

    /// The name of the secret that signed `body`, checking each of `secrets` in constant time
    /// (swift-crypto's `isValidAuthenticationCode`); throws what was wrong.
    public static func verify(_ header: String, body: [UInt8], secrets: [String: String], tolerance: Duration,
                              now: Date = Date()) throws(Problem) -> (secret: String, mac: String, time: Int64) {
        var time: Int64?
        var macs: [String] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { throw .malformed("'\(part)' has no '='") }
            switch pair[0] {
            case "t":
                guard let value = Int64(pair[1]) else { throw .malformed("t '\(pair[1])' is not a whole number of seconds") }
                time = value
            case "v1":
                // ASCII only: a fullwidth digit is a hex digit to Character, and would give one MAC
                // many spellings (and the replay check many keys).
                guard pair[1].utf8.count == 64, pair[1].allSatisfy({ $0.isASCII && $0.isHexDigit }) else {
                    throw .malformed("v1 must be 64 hex digits (HMAC-SHA256)")
                }
                macs.append(pair[1].lowercased())
            default:
                continue  // Other schemes, for a later version: ignored, as webhook signers do.
            }
        }
        guard let time else { throw .malformed("t= is missing") }
        guard !macs.isEmpty else { throw .malformed("v1= is missing") }
        // t is the sender's: t=-9223372036854775808 must be refused, not overflow and stop the daemon.
        let (age, overflow) = Int64(now.timeIntervalSince1970.rounded(.down)).subtractingReportingOverflow(time)
        let allowed = tolerance.components.seconds
        guard !overflow, age.magnitude <= allowed.magnitude else {
            throw .outsideTolerance(seconds: overflow ? (time < 0 ? .max : .min) : age, tolerance: allowed)
        }
        let signed = Data("\(time).".utf8) + Data(body)
        for mac in macs {
            let bytes = Data(hex: mac)
            // Every secret is tried, in a fixed order, so the time taken does not tell which matched.
            var matched: String?
            for (name, secret) in secrets.sorted(by: { $0.key < $1.key }) {
                if HMAC<SHA256>.isValidAuthenticationCode(bytes, authenticating: signed, using: SymmetricKey(data: Data(secret.utf8))),
                   matched == nil {
                    matched = name
                }
            }
            if let matched { return (matched, mac, time) }
        }
        throw .noMatch
    }
}

/// The signatures accepted within their tolerance, so a captured signed request sent again is
/// refused, by any way in. Only the same request again (the same source, client and request id,
/// which the dedup answers with the original) may carry the same signature.
final class SeenSignatures: Sendable {
    private let seen = Mutex<[String: (owner: String?, until: Date)]>([:])

    /// Records `mac` for `owner` (nil: a request without a request id, never to be sent again)
    /// until `expiry`; false when another request used it and it has not expired.
    func firstUse(_ mac: String, owner: String?, until expiry: Date, now: Date = Date()) -> Bool {
        seen.withLock { seen in
            if seen.count > 10_000 { seen = seen.filter { $0.value.until > now } }
            if let earlier = seen[mac], earlier.until > now {
                return owner != nil && earlier.owner == owner
            }
            seen[mac] = (owner, expiry)
            return true
        }
    }
}

extension Data {
    /// Bytes from an even number of hex digits (already checked).
    init(hex: String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hex.utf8.count / 2)
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        self.init(bytes)
    }
}
