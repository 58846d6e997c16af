import FuzzIntake
import FuzzSupport
import HeraldIntake

/// The strict JSON intake of `POST /v1/announcements` and `POST /v1/push`: the input is a body,
/// read as each (`IntakeCheck` says what must hold).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    IntakeCheck.run(bytes, format: .native, source: .api)
    IntakeCheck.run(bytes, format: .push, source: .push)
    return 0
}
