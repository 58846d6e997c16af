/// A failure of a Herald use case, worded for the person at the terminal.
public enum HeraldFailure: Error, CustomStringConvertible {
    case busy(String)
    case io(String)
    case restoreIncomplete([String])
    /// An announcement logged `failed`, with its row's error.
    case announcementFailed(String)

    public var description: String {
        switch self {
        case .busy(let message), .io(let message), .announcementFailed(let message): message
        case .restoreIncomplete(let failures):
            "could not restore everything (\(failures.joined(separator: "; "))); the journal is kept, run 'herald restore'"
        }
    }
}
