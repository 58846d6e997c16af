import Foundation
import HeraldConfig
import HeraldCore
import HeraldStore
import RuntimePaths
import Speech

/// `herald doctor`: why was nothing heard? Each check says ok, warning or problem, and what to do
/// (the phone guide's troubleshooting section, for a Linux box).
///
/// A problem means an announcement made now would not be heard; a warning means it would, but
/// something is off (synthesized instead of the voice pack, not logged, slower).
public struct Doctor: Sendable {
    let context: HeraldContext
    /// Play a short tone with the safeguard and listen for it on the sink's monitor.
    let playTone: Bool

    public init(context: HeraldContext, playTone: Bool) {
        self.context = context
        self.playTone = playTone
    }

    /// Every check, the sound server's first (what most often keeps speech from being heard).
    public func run() async -> [DoctorFinding] {
        var findings = await soundChecks()
        findings.append(lockCheck())
        findings.append(await databaseCheck())
        findings.append(diskCheck())
        findings.append(privacyCheck())
        if let secrets = secretsCheck() { findings.append(secrets) }
        findings += await speechChecks()
        findings.append(timeZoneCheck())
        findings += await calendarChecks()
        return findings
    }

    // MARK: - This machine

    func lockCheck() -> DoctorFinding {
        let path: String
        do { path = try context.lockPath } catch {
            return DoctorFinding("lock", .problem, "the safeguard lock's folder cannot be used: \(error)",
                                 action: "make $XDG_RUNTIME_DIR/herald (or /tmp/herald-UID) a folder of this user with mode 0700")
        }
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, PrivateFiles.fileMode)
        guard descriptor >= 0 else {
            return DoctorFinding("lock", .problem, "cannot open the safeguard lock \(path): \(String(cString: strerror(errno)))",
                                 action: "remove \(path) if another user owns it, or fix the folder's permissions")
        }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
            return DoctorFinding("lock", .ok, "held by process \(holder), playing now; the next announcement waits its turn (\(path))")
        }
        _ = flock(descriptor, LOCK_UN)
        return DoctorFinding("lock", .ok, "free (\(path))")
    }

    func databaseCheck() async -> DoctorFinding {
        let path = context.configuration.databasePath
        do {
            try await AppDatabase(path: path).checkWritable(now: Date())
            return DoctorFinding("database", .ok, "\(path) is writable")
        } catch {
            return DoctorFinding("database", .warning, "\(path) cannot be written: \(error); announcements still play but are not logged there",
                                 action: "check the folder exists and belongs to this user, the disk is not full, or set database.path")
        }
    }

    func diskCheck() -> DoctorFinding {
        let cache = context.configuration.cache
        // The cache folder, or the nearest folder above it that exists yet.
        var folder = cache.directory
        while !FileManager.default.fileExists(atPath: folder), folder != "/" { folder = (folder as NSString).deletingLastPathComponent }
        var stats = statvfs()
        guard statvfs(folder, &stats) == 0 else {
            return DoctorFinding("disk", .warning, "cannot read the free space of \(folder): \(String(cString: strerror(errno)))")
        }
        let free = Int64(stats.f_bavail) * Int64(stats.f_frsize)
        let megabytes = { (bytes: Int64) in "\(bytes / 1_048_576) MB" }
        if free < 16 * 1_048_576 {
            return DoctorFinding("disk", .warning, "only \(megabytes(free)) free for the clip cache in \(cache.directory): sentences are synthesized each time and the log may stop",
                                 action: "free some space, or set cache.path on a larger disk")
        }
        if free < cache.maxBytes {
            return DoctorFinding("disk", .warning, "\(megabytes(free)) free, less than cache.max_bytes (\(megabytes(cache.maxBytes))) in \(cache.directory)",
                                 action: "lower cache.max_bytes or free some space")
        }
        return DoctorFinding("disk", .ok, "\(megabytes(free)) free for the clip cache (\(cache.directory), at most \(megabytes(cache.maxBytes)))")
    }

    func timeZoneCheck() -> DoctorFinding {
        let zone = TimeZone.current
        if let named = ProcessInfo.processInfo.environment["TZ"], !named.isEmpty,
           TimeZone(identifier: named.hasPrefix(":") ? String(named.dropFirst()) : named) == nil {
            return DoctorFinding("time zone", .warning, "TZ=\(named) is not an IANA time zone; reminders without time_zone run in \(zone.identifier)",
                                 action: "unset TZ or set it to a name like Europe/Berlin")
        }
        let now = Date()
        let offset = zone.secondsFromGMT(for: now) / 60
        let sign = offset < 0 ? "-" : "+"
        let detail = "\(zone.identifier) (UTC\(sign)\(String(format: "%02d:%02d", abs(offset) / 60, abs(offset) % 60))), local time \(Self.localTime(now, zone))"
        if zone.identifier == "GMT" || zone.identifier == "UTC", !FileManager.default.fileExists(atPath: "/etc/localtime") {
            return DoctorFinding("time zone", .warning, detail + "; no /etc/localtime, so reminders at 08:00 mean 08:00 UTC",
                                 action: "timedatectl set-timezone Europe/Berlin (your zone), or give each reminder a time_zone")
        }
        return DoctorFinding("time zone", .ok, detail)
    }

    static func localTime(_ date: Date, _ zone: TimeZone) -> String {
        let format = DateFormatter()
        format.timeZone = zone
        format.dateFormat = "yyyy-MM-dd HH:mm"
        return format.string(from: date)
    }
}
