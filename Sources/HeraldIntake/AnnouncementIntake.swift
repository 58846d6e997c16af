import Foundation
import HeraldConfig
import HeraldCore
import HeraldStore
import Speech

/// The one way in for announcements sent as JSON, over HTTP or MQTT: strict syntax, decoding
/// that names the field at fault, validation, and the signature (DESIGN.md "One path for every
/// announcement"). What it returns is checked; the daemon's `submit` then fetches an `audio_url`,
/// deduplicates, logs and queues it. Every call reads the config in force now.
public struct AnnouncementIntake: Sendable {
    /// Which of the API's payloads a body is.
    public enum Format: Sendable {
        /// `POST /v1/announcements`: one of text, payment, clip, audio_url.
        case native
        /// `POST /v1/push`: the speak_tts message, alone or in an FCM v1 wrapper.
        case push
        /// A push payload when it has `message` or `action` at the top, else a native one (MQTT,
        /// where one topic carries both).
        case detect
    }

    /// What one call reads: the config and the log in force (a reload swaps both at once).
    public struct Context: Sendable {
        public var configuration: HeraldConfiguration
        /// The announcement log: the signatures already used.
        public var store: AnnouncementStore

        public init(configuration: HeraldConfiguration, store: AnnouncementStore) {
            self.configuration = configuration
            self.store = store
        }
    }

    /// The context in force now (the daemon's `LiveContext`, `AnnouncementIntake(live:)`).
    let current: @Sendable () -> Context

    public init(current: @escaping @Sendable () -> Context) {
        self.current = current
    }

    /// The validator with the config in force now.
    public var validator: PayloadValidator {
        PayloadValidator(configuration: current().configuration)
    }

    /// The checked request in `bytes`; throws an `IntakeError` naming the field when anything is wrong.
    /// `signature` is the `Herald-Signature` value (or the MQTT user property) that came with the
    /// bytes; `trusted` says the sender is the daemon's own user (the local socket), who may send
    /// unsigned what `api.require_signature` names (it can read the secrets anyway).
    public func request(from bytes: [UInt8], format: Format, source: AnnouncementSource, client: String,
                        signature: String? = nil, trusted: Bool = false) async throws -> AnnouncementRequest {
        // One config for the whole request: a reload during its awaits applies to the next one.
        let context = current()
        let validator = PayloadValidator(configuration: context.configuration)
        var request: AnnouncementRequest
        if try Self.isPush(checkSyntax(bytes), format) {
            request = try await validator.request(from: try decodeChecked(PushPayload.self, from: bytes), source: source)
        } else {
            request = try await validator.request(from: try decodeChecked(NativeAnnouncement.self, from: bytes), source: source)
        }
        request.client = client
        let owner = request.requestID.map { Self.owner(source: source, client: client, requestID: $0) }
        let signed = try await checkSignature(signature, over: bytes, kind: SignedKind(request.body), trusted: trusted,
                                              owner: owner, via: source == .mqtt ? "mqtt" : "http", in: context)
        request.signedBy = signed?.secret
        request.signatureMAC = signed?.mac
        if signed == nil, case .text(let text) = request.body {
            try refusePaymentWording(text, trusted: trusted, via: source == .mqtt ? "mqtt" : "http", in: context)
        }
        return request
    }

    /// Refuses an unsigned `text` that says a payment's words where payments must be signed
    /// (`api.require_signature` names `payment`): to the clerk it is a payment (PaymentWording).
    /// - Parameter context: the config the request is checked with (the one in force now by default).
    public func refusePaymentWording(_ text: String, trusted: Bool, via: String, in context: Context? = nil) throws {
        let configuration = (context ?? current()).configuration
        guard !trusted, configuration.api.requireSignature.contains(.payment),
              let template = PaymentWording.cached(overrides: configuration.speech.phraseOverrides).template(saidBy: text) else { return }
        throw refusal(.paymentWording(template: template), via: via)
    }

    /// Who may carry a signature again: the same request (source, client and request id), which
    /// the dedup answers with the original.
    static func owner(source: AnnouncementSource, client: String, requestID: String) -> String {
        "\(source.rawValue)\u{1F}\(client)\u{1F}\(requestID)"
    }

    /// The secret that signed `bytes` and the signature's HMAC, nil when unsigned and allowed to
    /// be; throws 401 naming what was wrong when a signature is wrong, stale or reused, or missing
    /// where `api.require_signature` asks for one. A wrong signature is refused even where none is
    /// required: it means the body was changed, or the sender holds no secret of this hub's.
    /// - Parameters:
    ///   - owner: the request's source, client and request id; nil when it has no request id. A
    ///     signature already used by another owner (or by any request without an id) is refused:
    ///     in this process's memory, and in the log, so a restart forgets nothing.
    ///   - keptByRow: the announcement row this request makes carries the signature (an
    ///     announcement's does); false records it apart until it expires (a reminder's).
    ///   - context: the config and log the request is checked with (those in force now by default).
    public func checkSignature(_ signature: String?, over bytes: [UInt8], kind: SignedKind, trusted: Bool,
                               owner: String?, keptByRow: Bool = true, via: String,
                               in context: Context? = nil) async throws -> (secret: String, mac: String)? {
        let context = context ?? current()
        let api = context.configuration.api
        guard let signature else {
            guard trusted || !api.requireSignature.contains(kind) else {
                throw refusal(.missing(kind: kind.rawValue), via: via)
            }
            return nil
        }
        let (name, mac, time): (String, String, Int64)
        do throws(RequestSignature.Problem) {
            (name, mac, time) = try RequestSignature.verify(signature, body: bytes, secrets: api.signingSecrets,
                                                            tolerance: api.signatureTolerance)
        } catch {
            throw refusal(error, via: via)
        }
        // A signed request sent again (captured, or retried) by any way in is refused, unless it
        // is the same request again. The log holds every signature an announcement carried (it
        // outlives t + tolerance: rows are kept for days).
        let store = context.store
        if let logged = try await store.announcement(signatureMAC: mac) {
            let loggedOwner = logged.requestID.map { Self.owner(source: logged.source, client: logged.client, requestID: $0) }
            guard owner != nil, loggedOwner == owner else { throw refusal(.reused, via: via) }
        }
        if try await store.signatureRecorded(mac) { throw refusal(.reused, via: via) }
        // Then claimed in memory, with no await between the claim and the answer: a copy sent at
        // once over another connection, whose row is not written yet. Kept until the signature
        // itself expires: t + tolerance (t may be ahead of this clock).
        let expiry = Date(timeIntervalSince1970: Double(time) + api.signatureTolerance.inSeconds + 1)
        guard Self.seen.firstUse(mac, owner: owner, until: expiry) else { throw refusal(.reused, via: via) }
        if !keptByRow { try await store.recordUsedSignature(mac, until: expiry) }
        return (name, mac)
    }

    private func refusal(_ problem: RequestSignature.Problem, via: String) -> IntakeError {
        HeraldMetrics.refused(.signature, via: via)
        return IntakeError(.unauthorized, field: via == "mqtt" ? RequestSignature.propertyName : RequestSignature.headerName, "\(problem)")
    }

    /// Signatures seen within their tolerance, for every way in of this process.
    static let seen = SeenSignatures()

    /// Whether a body whose syntax check saw `topLevel` is a push payload when read as `format`
    /// (internal, not private, so the fuzzer in Sources/Fuzz reaches it through `@testable import`).
    static func isPush(_ topLevel: StrictJSON.TopLevel, _ format: Format) -> Bool {
        switch format {
        case .native: false
        case .push: true
        case .detect: topLevel.holdsMessageOrAction
        }
    }
}

extension SignedKind {
    /// The kind `api.require_signature` names for a body: a clip plays a file.
    public init(_ body: AnnouncementRequest.Body) {
        switch body {
        case .text: self = .text
        case .payment: self = .payment
        case .file: self = .clip
        case .audioURL, .fetchedAudio: self = .audioURL
        }
    }
}
