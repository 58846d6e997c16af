import Foundation

/// The program of a `speech.command` template: where it is, and whether handing it announcement
/// text could run that text as code.
///
/// A shell or interpreter given `{text}` (`sh -c -- {text}`, `python3 -c {text}`) runs the text of
/// every announcement, which comes from the API, MQTT and push backends. The program's name is
/// checked as written and as its symbolic links resolve (`/usr/bin/python3` -> `python3.11`,
/// `/bin/sh` -> `dash`), so a path or an alias does not get around the check.
public struct CommandProgram: Sendable, Equatable {
    /// The name as the template writes it (`piper`, `/usr/bin/espeak-ng`).
    public var name: String
    /// The executable found: the path as written, or the match on PATH; nil when there is none.
    public var path: String?
    /// `path` with every symbolic link resolved.
    public var resolved: String?

    /// What a program does with what it is handed, as far as the template's safety goes.
    enum Kind: Equatable {
        /// Runs another program named in its arguments (env, xargs, sudo, timeout): Herald cannot
        /// know what that program does with the text.
        case runsPrograms
        /// A shell or interpreter: code in its arguments runs, and with no script named it reads
        /// its program from standard input.
        case interpreter
        /// Takes its program as an argument and reads data on standard input (awk, sed).
        case programInArguments
    }

    /// Programs that run other programs or commands they are handed.
    static let runsPrograms: Set<String> = [
        "env", "xargs", "nohup", "nice", "ionice", "renice", "timeout", "stdbuf", "setsid", "sudo", "doas", "su",
        "runuser", "sg", "newgrp", "chroot", "flock", "taskset", "chrt", "strace", "ltrace", "time", "watch",
        "script", "ssh", "parallel", "find", "busybox", "toybox", "unbuffer", "systemd-run", "nsenter", "unshare",
        "firejail", "bwrap", "expect", "ed", "ex", "vi", "vim", "nvim", "view", "emacs", "gdb", "make", "cmake",
        "exec", "eval", "command", "builtin", "trap", "caffeinate", "launchctl", "at", "batch", "crontab",
    ]

    /// Shells and interpreters by exact name.
    static let interpreters: Set<String> = [
        "sh", "bash", "rbash", "dash", "ash", "zsh", "ksh", "ksh93", "mksh", "pdksh", "oksh", "loksh", "yash",
        "posh", "fish", "csh", "tcsh", "rc", "es", "elvish", "nu", "xonsh", "pwsh", "powershell",
        "wish", "osascript", "irb", "deno", "bun", "racket", "scheme", "sbcl", "clisp", "ecl", "Rscript", "R",
        "julia", "m4", "dc", "bc", "jshell", "groovy", "scala", "swift", "tclsh", "jjs", "qjs", "gjs", "cscript",
        "wscript", "ipython", "ipython3",
    ]

    /// Interpreter families whose names carry versions (`python3.11`, `perl5.36.0`, `lua5.4`,
    /// `nodejs`, `php8.2`): any name starting with one of these.
    static let interpreterFamilies = [
        "python", "pypy", "perl", "ruby", "node", "php", "lua", "tclsh", "wish", "guile", "pwsh", "ipython",
    ]

    /// Programs whose first argument is a program (awk's and sed's scripts can run commands).
    static let programInArguments: Set<String> = ["awk", "gawk", "mawk", "nawk", "busybox-awk", "sed", "gsed"]

    /// What `name` (a file name without its folder) is, or nil for an ordinary program.
    static func kind(of name: String) -> Kind? {
        if runsPrograms.contains(name) { return .runsPrograms }
        if interpreters.contains(name) || interpreterFamilies.contains(where: { name.hasPrefix($0) }) { return .interpreter }
        if programInArguments.contains(name) { return .programInArguments }
        return nil
    }

    /// Finds `name`: a path must name an executable file; a bare name is searched in `searchPath`
    /// (PATH's folders, in order), as execvp would.
    public static func locate(_ name: String, searchPath: String?) -> CommandProgram {
        var program = CommandProgram(name: name)
        if name.contains("/") {
            if isExecutableFile(name) { program.path = name }
        } else {
            for folder in (searchPath ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") where folder.hasPrefix("/") {
                let candidate = "\(folder)/\(name)"
                if isExecutableFile(candidate) {
                    program.path = candidate
                    break
                }
            }
        }
        if let path = program.path, let real = realpath(path, nil) {
            program.resolved = String(cString: real)
            free(real)
        }
        return program
    }

    /// `public` for tests: a Sendable description of what the program is.
    public init(name: String, path: String? = nil, resolved: String? = nil) {
        self.name = name
        self.path = path
        self.resolved = resolved
    }

    /// The names the program goes by: as written and as resolved, without folders.
    var names: [String] {
        [name, resolved].compactMap { $0.map { ($0 as NSString).lastPathComponent } }
    }

    /// The first shell, interpreter or program runner among `names`, with its kind.
    var risk: (name: String, kind: Kind)? {
        for name in names { if let kind = Self.kind(of: name) { return (name, kind) } }
        return nil
    }

    /// Why running this program with `arguments` (the template's words after the program) could
    /// run announcement text as code; nil when it cannot.
    func safetyProblem(arguments: [String]) -> String? {
        guard let (riskyName, kind) = risk else { return nil }
        let shown = riskyName == (name as NSString).lastPathComponent ? "'\(name)'" : "'\(name)' (\(resolved ?? riskyName))"
        let instead = "give a TTS program and send it the text on standard input instead, e.g. \"piper --model voice.onnx --output_file -\" or \"espeak-ng --stdout -v {voice}\""
        if kind == .runsPrograms {
            return "\(shown) runs another program or command it is handed, which Herald cannot check; \(instead) (speech.command_timeout_ms already bounds how long it runs)"
        }
        if let placeholder = arguments.lazy.compactMap(Self.textPlaceholder(in:)).first {
            let what = kind == .interpreter ? "a shell or interpreter" : "a program that runs the script it is given"
            let carried = ["{text}": "the text of every announcement", "{voice}": "the voice an announcement names",
                           "{lang}": "the language an announcement names"][placeholder] ?? placeholder
            return "\(shown) is \(what), and \(placeholder) in its arguments would run \(carried) as code; \(instead)"
        }
        if kind == .interpreter, !Self.namesItsProgram(arguments, interpreter: riskyName) {
            return "\(shown) is a shell or interpreter and no script is named, so it would read the text of every announcement on standard input as code; \(instead), or name the script after \(name)"
        }
        return nil
    }

    /// The placeholder in `word` that carries words from outside (text, voice, language); the
    /// numbers Herald itself writes ({rate}, {pitch}) are not.
    static func textPlaceholder(in word: String) -> String? {
        ["{text}", "{voice}", "{lang}"].first { word.contains($0) }
    }

    /// Shells, whose options differ from other interpreters' (`-e` is errexit, `-o` takes a name).
    static let shells: Set<String> = [
        "sh", "bash", "rbash", "dash", "ash", "zsh", "ksh", "ksh93", "mksh", "pdksh", "oksh", "loksh", "yash",
        "posh", "fish", "csh", "tcsh", "rc", "es",
    ]

    /// True when an interpreter's arguments give it its program (a script file, `-m module`,
    /// `-c code`), so standard input is data; false when it would read its program there
    /// (no arguments, `-`, `-s`, `-i`).
    static func namesItsProgram(_ arguments: [String], interpreter: String) -> Bool {
        let shell = shells.contains(interpreter)
        // Options whose value is the next word, not a script.
        let takesValue: Set<String> = shell ? ["-o", "+o", "-O", "+O"] : ["-X", "-W", "-I", "-M", "-r", "--require"]
        let givesProgram: Set<String> = shell ? ["-c", "--command"] : ["-c", "-m", "-e", "-E", "--eval", "-p", "--print"]
        var skipNext = false
        for word in arguments {
            if skipNext { skipNext = false; continue }
            if word == "-" || word == "-s" || word == "-i" || word == "--stdin" || word == "--interactive" { return false }
            if word == "--" { continue }
            if givesProgram.contains(word) { return true }
            if takesValue.contains(word) { skipNext = true; continue }
            if !word.hasPrefix("-") && !word.hasPrefix("+") { return true }
        }
        return false
    }

    private static func isExecutableFile(_ path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return false }
        return access(path, X_OK) == 0
    }
}
