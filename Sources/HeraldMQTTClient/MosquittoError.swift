import CMosquitto
import Foundation

/// A libmosquitto call that did not return `MOSQ_ERR_SUCCESS`, with the library's own message.
public struct MosquittoError: Error, CustomStringConvertible, Sendable {
    /// The `mosq_err_t` code.
    public var code: Int32
    /// What Herald was doing: "connect to mqtt://broker:1883", "subscribe to herald/shop-1/announce".
    public var operation: String
    public var message: String

    init(_ code: Int32, _ operation: String) {
        self.code = code
        self.operation = operation
        // MOSQ_ERR_ERRNO means the reason is in errno ("Connection refused"), not in the code.
        if code == Int32(MOSQ_ERR_ERRNO.rawValue) {
            message = String(cString: strerror(errno))
        } else {
            message = String(cString: mosquitto_strerror(code))
        }
    }

    public var description: String { "\(operation): \(message)" }

    static let success = Int32(MOSQ_ERR_SUCCESS.rawValue)
    package static let noConnection = Int32(MOSQ_ERR_NO_CONN.rawValue)
}

/// Throws unless `code` is `MOSQ_ERR_SUCCESS`.
func check(_ code: Int32, _ operation: @autoclosure () -> String) throws(MosquittoError) {
    guard code == MosquittoError.success else { throw MosquittoError(code, operation()) }
}
