import Foundation

/// A progress bar on a terminal; plain lines otherwise (logs, pipes).
final class ProgressBar: Sendable {
    let total: Int
    let isTerminal = isatty(STDOUT_FILENO) != 0

    init(total: Int) { self.total = total }

    func update(_ done: Int, label: String) {
        if isTerminal {
            let width = 30, filled = total == 0 ? width : width * done / total
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            // Unbuffered, so the bar moves while the work goes on.
            FileHandle.standardOutput.write(Data("\r[\(bar)] \(done)/\(total) \(label.prefix(40))\u{1B}[K".utf8))
        } else {
            print("\(done)/\(total) \(label)")
        }
    }

    func finish() {
        if isTerminal { FileHandle.standardOutput.write(Data("\n".utf8)) }
    }
}
