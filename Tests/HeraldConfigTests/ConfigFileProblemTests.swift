import Foundation
import HeraldApp
import HeraldConfig
import HeraldCore
import Testing

/// A config file and the one problem loading it must name.
struct BadConfig: Sendable, CustomTestStringConvertible {
    var testDescription: String
    /// Text, in which `$DIR` stands for the test's folder, or raw bytes.
    var content: Either
    var line: Int?
    var key: String
    /// A distinctive part of the message; `$DIR` stands for the test's folder.
    var says: String

    enum Either: Sendable {
        case text(String)
        case bytes([UInt8])
    }

    init(_ name: String, _ text: String, line: Int?, key: String = "", says: String) {
        (testDescription, content, self.line, self.key, self.says) = (name, .text(text), line, key, says)
    }

    init(_ name: String, bytes: [UInt8], line: Int?, key: String = "", says: String) {
        (testDescription, content, self.line, self.key, self.says) = (name, .bytes(bytes), line, key, says)
    }

    func bytes(in folder: ConfigFolder) -> [UInt8] {
        switch content {
        case .text(let text): .utf8(folder.expand(text))
        case .bytes(let bytes): bytes
        }
    }
}

@Suite struct ConfigFileProblemTests {
    static let badFiles: [BadConfig] = [
        BadConfig("a dotted key at the top level", "sink: kitchen\nsafeguard.min_volume: 40%\n", line: 2,
                  key: "safeguard.min_volume", says: "write it nested, each part on its own line: 'safeguard:' then '  min_volume: 40%'"),
        BadConfig("a dotted key in a section", "safeguard:\n  ramp_ms: 100\n  lead_in_by_class.hdmi: 1s\n", line: 3,
                  key: "safeguard.lead_in_by_class.hdmi", says: "'lead_in_by_class:' then '  hdmi: 1s'"),
        BadConfig("a key dotted twice", "priorities.low.max_age: 5m\n", line: 1,
                  key: "priorities.low.max_age", says: "'priorities:' then '  low:' then '    max_age: 5m'"),
        BadConfig("a key written twice", "safeguard:\n  min_volume: 40%\n  target_volume: 70%\n  min_volume: 50%\n", line: 4,
                  key: "safeguard.min_volume", says: "written twice in the same section, on line 2 and again here ('50%'); keep one"),
        BadConfig("a key written three times", "sink: a\nsounds: x\nsink: b\nsink: c\n", line: 3,
                  key: "sink", says: "on line 1 and again here ('b')"),
        BadConfig("a key written twice in a flow mapping", "safeguard: {min_volume: 40%, duck_level: 10%, min_volume: 50%}\n",
                  line: 1, key: "safeguard.min_volume", says: "written twice"),
        BadConfig("a key written twice with CRLF line ends", "sink: a\r\nsounds: x\r\nsink: b\r\n", line: 3,
                  key: "sink", says: "on line 1 and again here ('b')"),
        BadConfig("a key written twice after a byte-order mark", bytes: [0xEF, 0xBB, 0xBF] + .utf8("sink: a\nsink: b\n"),
                  line: 2, key: "sink", says: "on line 1 and again here ('b')"),
        BadConfig("a sounds folder without the default chime", "sink: a\nsounds: $DIR/afolder\n", line: 2, key: "sounds",
                  says: "no chime file $DIR/afolder/chimes/alert.flac for critical announcements; point sounds at a folder holding chimes/"),
        BadConfig("a quoted key written twice", "\"sink\": a\n\"sink\": b\n", line: 2, key: "sink", says: "written twice"),
        BadConfig("a section written twice", "safeguard:\n  min_volume: 40%\nsafeguard:\n  max_volume: 90%\n", line: 3,
                  key: "safeguard", says: "on line 1 and again here; keep one"),
        BadConfig("the same key twice in two sections",
                  "priorities:\n  low:\n    max_age: 5m\n    max_age: 6m\n  high:\n    max_age: 1m\n    max_age: 2m\n",
                  line: 4, key: "priorities.low.max_age", says: "on line 3 and again here ('6m')"),
        BadConfig("an anchor and an alias", "safeguard:\n  min_volume: &level 40%\n  target_volume: *level\n", line: 2,
                  key: "safeguard.min_volume",
                  says: "anchors and aliases are not supported; write the value out in full instead of &level here and *level where it is used"),
        BadConfig("a merge key with an alias", "priorities:\n  low: &policy\n    max_age: 5m\n  normal:\n    <<: *policy\n",
                  line: 2, key: "priorities.low", says: "instead of &policy here"),
        BadConfig("a merge key", "safeguard:\n  <<: {min_volume: 40%}\n", line: 2, key: "safeguard.<<",
                  says: "merge keys (<<) are not supported"),
        BadConfig("an alias without its anchor", "sink: a\nsounds: *folder\n", line: 2, says: "anchors and aliases are not supported"),
        BadConfig("a binary file", bytes: .utf8("sink: a\n") + [0x7F, 0x45, 0x4C, 0x46, 0x00, 0x01], line: 2,
                  says: "not a text file (a NUL byte on this line)"),
        BadConfig("a file in Latin-1", bytes: .utf8("sink: a\nsounds: caf") + [0xE9, 0x0A], line: 2,
                  says: "not a text file, or not saved as UTF-8"),
        BadConfig("UTF-16 little-endian", bytes: .utf16("sink: a\n", bigEndian: false), line: 1,
                  says: "saved as UTF-16; save it as UTF-8"),
        BadConfig("UTF-16 big-endian", bytes: .utf16("sink: a\n", bigEndian: true), line: 1,
                  says: "saved as UTF-16; save it as UTF-8"),
        BadConfig("a control character", "sink: a\nsounds: x\u{01}y\n", line: 2, says: "control characters are not allowed"),
        BadConfig("a tab for indentation", "safeguard:\n\tmin_volume: 40%\n", line: 2, says: "indent with spaces, not tabs"),
        BadConfig("an unclosed quote", "sink: a\nsounds: \"abc\n", line: 2, says: "the quote or bracket opened on this line is not closed"),
        BadConfig("an unclosed bracket", "sink: a\ncache:\n  warm: [a, b\n", line: 3, says: "the quote or bracket opened on this line is not closed"),
        BadConfig("two documents", "sink: a\n---\nsink: b\n", line: 2, says: "more than one document"),
        BadConfig("a list at the top level", "- sink\n- sounds\n", line: 1, says: "key: value lines at the top level"),
        BadConfig("a single value", "hello\n", line: 1, says: "not the single value 'hello'"),
        BadConfig("a list inside a list", "cache:\n  warm:\n    - Payment received\n    - [a, b]\n", line: 4,
                  key: "cache.warm", says: "each item must be a single value"),
        BadConfig("database.path names a folder", "database:\n  path: $DIR/afolder\n", line: 2, key: "database.path",
                  says: "'$DIR/afolder' is a folder; name the database file inside it, like $DIR/afolder/herald.sqlite"),
        BadConfig("database.path names a folder relative to the file", "database:\n  path: afolder\n", line: 2,
                  key: "database.path", says: "'afolder' ($DIR/afolder) is a folder"),
        BadConfig("database.path ends in a slash", "database:\n  path: $DIR/new/\n", line: 2, key: "database.path",
                  says: "is a folder"),
        BadConfig("database.path under a regular file", "database:\n  path: $DIR/afile/x.sqlite\n", line: 2,
                  key: "database.path", says: "cannot be created: $DIR/afile is a file, not a folder"),
        BadConfig("history kept shorter than request ids", "queue:\n  request_id_retention_days: 7\nhistory:\n  retention_days: 3\n",
                  line: 4, key: "history.retention_days",
                  says: "3 days is shorter than queue.request_id_retention_days (7); make it at least 7, or 0 to keep every row"),
        BadConfig("history kept a negative number of days", "history:\n  retention_days: -1\n", line: 2,
                  key: "history.retention_days", says: "'-1' is not a whole number from 0 to 36500"),
        BadConfig("audio kept for a time that is not a duration", "history:\n  audio_retention: a week\n", line: 2,
                  key: "history.audio_retention", says: "'a week' is not a duration; write it like 90s, 5m or 2h"),
        BadConfig("audio kept for more than a year", "history:\n  audio_retention: 400d\n", line: 2,
                  key: "history.audio_retention", says: "400d is out of range; use 0s to 365d"),
        BadConfig("audio capped by a size that is not one", "history:\n  audio_max_bytes: lots\n", line: 2,
                  key: "history.audio_max_bytes", says: "'lots' is not a size; write it like 200MB"),
        BadConfig("database.path deeper under a regular file", "sink: a\ndatabase:\n  path: $DIR/afile/more/x.sqlite\n",
                  line: 3, key: "database.path", says: "$DIR/afile is a file, not a folder"),
    ]

    @Test(arguments: badFiles)
    func aBadFileIsNamedWithItsLineAndKey(_ bad: BadConfig) async throws {
        let folder = try ConfigFolder()
        let found = try await folder.problems(bad.bytes(in: folder))
        try #require(found.count == 1, "\(found)")
        #expect(found[0].file == folder.configPath)
        #expect(found[0].line == bad.line)
        #expect(found[0].key == bad.key)
        #expect(found[0].message.contains(folder.expand(bad.says)), "\(found[0].message)")
    }

    @Test(arguments: ["", "# Only comments:\n# delete what you do not change.\n", "---\n", "---\n# nothing\n...\n",
                      "~\n", "\n   \n\n", "\u{FEFF}# a byte-order mark, then comments\n"])
    func aFileWithoutKeysGivesTheDefaults(_ text: String) async throws {
        let folder = try ConfigFolder()
        let configuration = try await folder.load(.utf8(text))
        let defaults = HeraldConfiguration.defaults(stateDirectory: folder.path + "/state",
                                                    soundsDirectory: configuration.soundsDirectory)
        #expect(configuration.file == folder.configPath)
        #expect(configuration.safeguard == defaults.safeguard)
        #expect(configuration.databasePath == defaults.databasePath)
        #expect(configuration.speech == defaults.speech && configuration.api == defaults.api)
        #expect(configuration.chimes == defaults.chimes && configuration.priorities == defaults.priorities)
    }

    @Test func aFileWithAByteOrderMarkIsRead() async throws {
        let folder = try ConfigFolder()
        let configuration = try await folder.load(.utf8("\u{FEFF}sink: kitchen\nsafeguard:\n  min_volume: 40%\n"))
        #expect(configuration.safeguard.sinkName == "kitchen")
        #expect(configuration.safeguard.minVolume == Volume(percent: 40))
    }

    @Test func namesInOpenSectionsMayHoldDots() async throws {
        let folder = try ConfigFolder()
        let configuration = try await folder.load(.utf8("""
            speech:
              voices:
                front.desk: en-gb+f2
            safeguard:
              lead_in_sinks:
                alsa_output.pci-0000_00_1f.3.analog-stereo: 300ms
            """))
        #expect(configuration.speech.voiceAliases["front.desk"] == "en-gb+f2")
        #expect(configuration.safeguard.leadInBySink["alsa_output.pci-0000_00_1f.3.analog-stereo"] == 300)
    }

    @Test func aDatabaseInFoldersStillToBeMadeIsAccepted() async throws {
        let folder = try ConfigFolder()
        let configuration = try await folder.load(.utf8(folder.expand("database:\n  path: $DIR/new/deeper/herald.sqlite\n")))
        #expect(configuration.databasePath == folder.path + "/new/deeper/herald.sqlite")
    }

    @Test(.enabled(if: getuid() != 0, "root may write in any folder, so access() cannot refuse"))
    func aFolderHeraldMayNotWriteInIsNamed() async throws {
        let folder = try ConfigFolder()
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.path + "/afolder")
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path + "/afolder") }
        let found = try await folder.problems(.utf8(folder.expand("database:\n  path: $DIR/afolder/new/herald.sqlite\n")))
        #expect(found.map(\.line) == [2])
        #expect(found.first?.message.contains("may not write in \(folder.path)/afolder") == true)
    }

    @Test func aFolderGivenAsTheConfigFileIsNamed() async throws {
        let folder = try ConfigFolder()
        await #expect {
            _ = try await HeraldConfiguration.load(file: folder.path, stateDirectory: folder.path)
        } throws: { error in
            "\(error)".contains("\(folder.path): is a folder, not a config file")
        }
    }
}
