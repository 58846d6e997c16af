import Foundation
import FuzzIntake
import FuzzSupport
import HeraldIntake

/// An MQTT message: the `herald-signature` user property, a newline, then the payload (no newline:
/// an unsigned payload). The payload goes through the intake with `.detect` (push when the
/// top-level object has `message` or `action`), the property through `RequestSignature.verify`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let (head, tail) = Fuzz.split(Fuzz.bytes(data, size), at: UInt8(ascii: "\n"))
    let body = tail ?? head
    IntakeCheck.run(body, format: .detect, source: .mqtt)

    if tail != nil {
        let header = String(decoding: head, as: UTF8.self)
        do throws(RequestSignature.Problem) {
            let (name, mac, _) = try RequestSignature.verify(header, body: body, secrets: secrets, tolerance: tolerance, now: now)
            Fuzz.require(secrets[name] != nil, "matched a secret that is not there: \(name)")
            Fuzz.require(header.lowercased().contains(mac), "the mac \(mac) is not in '\(header)'")
        } catch {
            Fuzz.require(!error.description.isEmpty, "a signature problem without words")
        }
    }
    // The value `herald sign` prints verifies; the same over other bytes does not.
    let signed = RequestSignature.value(body: body, secret: secrets["till"]!, time: now)
    do throws(RequestSignature.Problem) {
        let (name, _, _) = try RequestSignature.verify(signed, body: body, secrets: secrets, tolerance: tolerance, now: now)
        Fuzz.require(name == "till", "signed with till, matched \(name)")
    } catch {
        Fuzz.require(false, "a fresh signature did not verify: \(error)")
    }
    do throws(RequestSignature.Problem) {
        _ = try RequestSignature.verify(signed, body: body + [0x20], secrets: secrets, tolerance: tolerance, now: now)
        Fuzz.require(false, "a signature verified other bytes")
    } catch {
        Fuzz.require(error == .noMatch, "other bytes: \(error), not noMatch")
    }
    return 0
}

private let secrets = ["till": "s3cret-till", "hub": "another secret"]
private let tolerance = Duration.seconds(300)
/// A fixed clock, so an input's `t=` is inside or outside the tolerance the same way on every run:
/// 2026-11-23T08:00:00Z.
private let now = Date(timeIntervalSince1970: 1_795_420_800)
