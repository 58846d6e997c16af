import Foundation
import Testing

/// Config/herald.service, as systemd itself reads it (`systemd-analyze verify`).
@Suite struct ServiceUnitTests {
    static let unit = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Config/herald.service").standardized.path

    @Test func systemdAcceptsTheUnitWithoutAWarning() throws {
        let text = try String(contentsOfFile: Self.unit, encoding: .utf8)
        #expect(text.contains("ExecStart=/usr/bin/herald serve"), "the path the .deb installs the binary at")
        // verify insists that ExecStart's program exists: the built binary stands in for /usr/bin/herald.
        let folder = NSTemporaryDirectory() + "herald-unit-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let copy = folder + "/herald.service"
        try text.replacingOccurrences(of: "/usr/bin/herald", with: HeraldHarness.binary)
            .write(toFile: copy, atomically: true, encoding: .utf8)
        // Not installed: a failing test says what is missing rather than skipping.
        let result = try SoundServer.run("systemd-analyze", ["verify", "--man=no", copy])
        #expect(result.status == 0, "\(result.stderr)")
        // verify exits 0 on unknown keys and bad values too, and only warns: any output is a finding.
        #expect(result.stderr.isEmpty && result.stdout.isEmpty, "systemd-analyze said:\n\(result.stderr)\(result.stdout)")
    }

    @Test func verifyWouldCatchAMistake() throws {
        // The check above is only worth something if verify speaks up about a bad unit.
        let folder = NSTemporaryDirectory() + "herald-unit-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let text = try String(contentsOfFile: Self.unit, encoding: .utf8)
            .replacingOccurrences(of: "/usr/bin/herald", with: HeraldHarness.binary)
            .replacingOccurrences(of: "RestartSec=2s", with: "RestartSec=two seconds")
        try text.write(toFile: folder + "/herald.service", atomically: true, encoding: .utf8)
        let result = try SoundServer.run("systemd-analyze", ["verify", "--man=no", folder + "/herald.service"])
        #expect(result.stderr.contains("RestartSec") || result.stderr.contains("sec value"), "\(result.stderr)")
    }

    @Test func theUnitRestartsOnFailureStopsGracefullyAndReloadsWithSIGHUP() throws {
        let lines = Set(try String(contentsOfFile: Self.unit, encoding: .utf8).split(separator: "\n").map(String.init))
        #expect(lines.contains("Restart=on-failure"))
        #expect(lines.contains("KillSignal=SIGTERM"))
        #expect(lines.contains("ExecReload=/bin/kill -HUP $MAINPID"))
        #expect(lines.contains("WantedBy=default.target"))
    }
}
