import RuntimePaths
#if canImport(Glibc)
import Glibc
#endif

/// What `herald` does first: a `say` or `pay` goes straight to a running daemon's socket, and
/// everything else (no daemon, an option the front does not pass, a refusal to explain) runs
/// herald-full with the same arguments. Starting herald-full costs its dynamic libraries, the
/// Swift runtime and Foundation: 17 ms (the .deb's static build) to 25 ms (a dynamic release
/// build) before it does anything. This path needs none of them.
public enum Front {
    /// The daemon's socket for a command with `configPath`: the link the daemon made for that
    /// file, or the default port's socket without a file; nil when the file does not exist.
    /// Nil too when the runtime folder is not the user's own and private.
    public static func socketPath(configPath: String?, runtimeDirectory: String?, userID: uid_t) -> String? {
        let folder = RuntimePaths.folder(runtimeDirectory: runtimeDirectory, userID: userID)
        guard RuntimePaths.isPrivate(folder, userID: userID) else { return nil }
        guard let configPath else { return RuntimePaths.apiSocket(folder: folder, port: RuntimePaths.defaultAPIPort) }
        return RuntimePaths.resolved(configPath).map { RuntimePaths.configLink(folder: folder, configPath: $0) }
    }

    /// Runs the command line and exits (or becomes herald-full).
    public static func main(arguments: [String]) -> Never {
        let environmentConfig = getenv("HERALD_CONFIG").map { String(cString: $0) }
        if let command = FrontCommand(arguments: Array(arguments.dropFirst()), environmentConfig: environmentConfig),
           let socket = socketPath(configPath: command.configPath, runtimeDirectory: getenv("XDG_RUNTIME_DIR").map { String(cString: $0) },
                                   userID: getuid()) {
            switch DaemonExchange.post(socketPath: socket, path: "/v1/announcements?wait=true", body: command.requestBody) {
            case .answered(let status, let body, let isText) where (200..<300).contains(status):
                // A daemon older than this front answers JSON: the announcement was taken all the same.
                emit(isText ? body : "done: the daemon (older than this herald; restart it) answered \(status); see `herald history`\n",
                     to: STDOUT_FILENO)
                exit(0)
            case .answered(let status, let body, _) where status >= 500 && status != 503:
                // It was taken and failed: sending it again could say it twice.
                emit("herald: the daemon failed (\(status)): \(body)\n", to: STDERR_FILENO)
                exit(1)
            case .lost(let reason):
                emit("herald: \(reason); it may still play (see `herald history`)\n", to: STDERR_FILENO)
                exit(1)
            case .notSent, .answered:
                // Refused (4xx: nothing was queued) or a full queue (503): herald-full asks
                // again and explains, or plays it itself when no daemon took it.
                break
            }
        }
        runFull(arguments)
    }

    /// herald-full beside this binary (a build folder), else in `../libexec/herald` (the .deb).
    static func fullBinary() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let me = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let folder = String(me[..<(me.lastIndex(of: "/") ?? me.startIndex)])
        return [folder + "/herald-full", folder + "/../libexec/herald/herald-full"].first { access($0, X_OK) == 0 }
    }

    static func runFull(_ arguments: [String]) -> Never {
        guard let full = fullBinary() else {
            emit("herald: herald-full is missing beside this binary and in ../libexec/herald; reinstall herald (or build it: swift build --product herald-full)\n", to: STDERR_FILENO)
            exit(1)
        }
        var argv: [UnsafeMutablePointer<CChar>?] = ([full] + arguments.dropFirst()).map { strdup($0) }
        argv.append(nil)
        execv(full, argv)
        emit("herald: cannot run \(full): \(String(cString: strerror(errno)))\n", to: STDERR_FILENO)
        exit(1)
    }

    /// Writes `text` whole to `fd` (no stdio: its streams are shared mutable state to Swift 6).
    static func emit(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }
}
