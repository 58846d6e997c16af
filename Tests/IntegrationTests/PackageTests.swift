import Foundation
import Testing

/// The .deb that scripts/package.sh builds, unpacked into a scratch root (`dpkg -x`) and run from
/// there with a bare environment: no Swift toolchain on PATH or the library path.
///
/// The release build behind it takes 8 to 10 minutes, so the package is not built by the test:
/// `.ci/run` builds it first and names it in `HERALD_DEB`; locally, run scripts/package.sh and
/// `HERALD_DEB=dist/herald_VERSION_ARCH.deb scripts/test.sh --filter PackageTests`. Under CI a
/// missing HERALD_DEB fails the test rather than skipping it.
@Suite(.enabled(if: PackageUnderTest.path != nil || SoundServer.environment["CI"] == "true",
                "set HERALD_DEB to a .deb built by scripts/package.sh"))
struct PackageTests {

    let root = NSTemporaryDirectory() + "herald-deb-\(UUID().uuidString)"

    /// Runs `program` with nothing of the test's environment but a plain PATH and HOME.
    func bare(_ program: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try SoundServer.run("/usr/bin/env", ["-i", "PATH=/usr/bin:/bin", "HOME=\(root)/home", program] + arguments)
    }

    @Test func theUnpackedPackageRunsWithoutASwiftToolchain() throws {
        let deb = try #require(PackageUnderTest.path, "HERALD_DEB is not set: .ci/run builds the package with scripts/package.sh and sets it")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/home", withIntermediateDirectories: true)
        #expect(try SoundServer.run("dpkg", ["-x", deb, root]).status == 0)
        let herald = root + "/usr/bin/herald"

        // Nothing of the Swift runtime is loaded from outside the binaries: the front is linked
        // statically whole, and herald-full (which it runs for every command but a say or pay a
        // daemon takes) has the Swift runtime inside.
        let front = try SoundServer.run("ldd", [herald])
        #expect(front.stdout.isEmpty && front.stderr.contains("not a dynamic executable"), "\(front.stdout)\(front.stderr)")
        let libraries = try SoundServer.run("ldd", [root + "/usr/libexec/herald/herald-full"]).stdout
        #expect(!libraries.contains("not found") && libraries.contains("libpulse"), "\(libraries)")
        for runtime in ["libswift", "libFoundation", "lib_Foundation", "libdispatch", "/opt/swift"] {
            #expect(!libraries.contains(runtime), "\(runtime) in:\n\(libraries)")
        }

        let version = try bare(herald, ["--version"])
        #expect(version.status == 0, "\(version.stderr)")
        let packaged = try SoundServer.run("dpkg-deb", ["-f", deb, "Version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == packaged)

        // The example config is valid as shipped, and its chimes are found in the package's Sounds.
        let example = root + "/usr/share/doc/herald/examples/herald.yaml"
        let check = try bare(herald, ["config", "check", example])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout.contains("\(example): OK"), "\(check.stdout)")
        #expect(check.stdout.contains("critical alert.flac"), "\(check.stdout)")
        let doctor = try bare(herald, ["doctor", "--json", "--no-tone", "--config", example])
        let checks = (try JSONSerialization.jsonObject(with: Data(doctor.stdout.utf8)) as? [String: Any])?["checks"] as? [[String: Any]] ?? []
        let pack = checks.first { $0["check"] as? String == "voice pack en" }?["detail"] as? String ?? ""
        #expect(pack.hasPrefix("\(root)/usr/share/herald/Sounds/voices/en: all"), "the voice pack is found beside the binary:\n\(doctor.stdout)")

        let depends = try SoundServer.run("dpkg-deb", ["-f", deb, "Depends"]).stdout
        for library in ["libc6", "libpulse0", "libsndfile1", "libespeak-ng1", "libmosquitto1", "libsqlite3-0", "espeak-ng-data"] {
            #expect(depends.contains(library), "Depends: \(depends)")
        }
        for file in ["usr/lib/systemd/user/herald.service", "usr/share/man/man1/herald.1.gz", "usr/share/man/man1/herald-doctor.1.gz",
                     "usr/share/bash-completion/completions/herald", "usr/share/zsh/vendor-completions/_herald",
                     "usr/share/fish/vendor_completions.d/herald.fish", "usr/share/herald/Sounds/chimes/alert.flac"] {
            #expect(FileManager.default.fileExists(atPath: root + "/" + file), "\(file) missing from the package")
        }
        // The man page is a real page: man(1) formats it without a warning.
        let man = try SoundServer.run("sh", ["-c", "zcat '\(root)/usr/share/man/man1/herald.1.gz' | groff -man -Tutf8 -ww -z 2>&1 || true"])
        #expect(man.stdout.isEmpty, "groff: \(man.stdout)")
    }
}

/// The package to test: `HERALD_DEB`, set by .ci/run after scripts/package.sh.
enum PackageUnderTest {
    static var path: String? { SoundServer.environment["HERALD_DEB"].flatMap { $0.isEmpty ? nil : $0 } }
}
