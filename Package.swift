// swift-tools-version: 6.2
import PackageDescription

/// Applied to every target, as hummingbird's Package.swift does: the language features the
/// whole package agrees on in one place.
let swiftSettings: [SwiftSetting] = [
    // https://github.com/swiftlang/swift-evolution/blob/main/proposals/0335-existential-any.md
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Herald",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "herald", targets: ["herald"]),
        .executable(name: "herald-full", targets: ["herald-full"]),
        .executable(name: "herald-bench", targets: ["herald-bench"]),
        .executable(name: "herald-soak", targets: ["herald-soak"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // C libraries from Debian, one module each.
        .systemLibrary(
            name: "CPulse", pkgConfig: "libpulse",
            providers: [.apt(["libpulse-dev"])]),
        .systemLibrary(
            name: "CSndFile", pkgConfig: "sndfile",
            providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(
            name: "CEspeakNG", pkgConfig: "espeak-ng",
            providers: [.apt(["libespeak-ng-dev"])]),
        .systemLibrary(
            name: "CMosquitto", pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]),
        .systemLibrary(
            name: "CICal", pkgConfig: "libical",
            providers: [.apt(["libical-dev"])]),

        // Where the daemon and the CLI meet on this machine (runtime folder, sockets): no Foundation,
        // so the lean front below can use it.
        .target(name: "RuntimePaths"),
        // A serial executor on a dispatch queue of its own, for actors whose work blocks.
        .target(name: "Executors"),
        // Pure policy and models: no C, no I/O.
        .target(
            name: "HeraldCore",
            dependencies: [.product(name: "Logging", package: "swift-log"), .product(name: "Metrics", package: "swift-metrics")]),
        .target(
            name: "PulseAudio",
            dependencies: ["CPulse", "HeraldCore", .product(name: "Logging", package: "swift-log")]),
        .target(name: "SoundFile", dependencies: ["CSndFile", "HeraldCore"]),
        // Synthesizers, amount grammars, voice packs, the clip cache.
        .target(
            name: "Speech",
            dependencies: [
                "CEspeakNG", "HeraldCore", "Executors", "SoundFile", "RuntimePaths",
                .product(name: "Logging", package: "swift-log"), .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Subprocess", package: "swift-subprocess"),
            ]),
        .target(
            name: "HeraldStore",
            dependencies: ["HeraldCore", "Executors", "RuntimePaths", .product(name: "GRDB", package: "GRDB.swift")]),
        .target(
            name: "HeraldConfig",
            dependencies: [
                "HeraldCore", "RuntimePaths",
                .product(name: "Yams", package: "Yams"),
            ]),
        // The libmosquitto client (MQTT 5, its own reconnecting loop): the hub's link and the
        // fleet console both talk to the broker through it.
        .target(name: "HeraldMQTTClient", dependencies: ["CMosquitto", "HeraldConfig", "HeraldCore"]),
        // What the hub's and the console's web edges share: the browser rules, the pages' head and
        // style, and the webhook POST (reminder escalations, alarm notices).
        .target(
            name: "HeraldWeb",
            dependencies: [
                "HeraldConfig", "HeraldCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]),
        // The one way in for announcements, under the daemon and both edges: strict JSON, the
        // validator, signatures, and the intake error the edges answer with (the wire types it
        // decodes are HeraldCore's, shared with the CLI and the fleet console).
        .target(
            name: "HeraldIntake",
            dependencies: [
                "HeraldConfig", "HeraldCore", "HeraldStore", "Speech",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // Wiring: lock, state directory, the play/status/restore use cases.
        .target(
            name: "HeraldApp",
            dependencies: [
                "HeraldCore", "HeraldIntake", "PulseAudio", "SoundFile", "HeraldStore", "HeraldConfig", "Speech", "RuntimePaths", "HeraldWeb",
                "HeraldCalendar",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]),
        // The HTTP API of `herald serve`.
        .target(
            name: "HeraldServer",
            dependencies: [
                "HeraldApp", "HeraldConfig", "HeraldCore", "HeraldIntake", "HeraldStore", "HeraldWeb", "Speech",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]),
        // MQTT intake for hubs behind NAT: the link, the topics, events and presence.
        .target(
            name: "HeraldMQTT",
            dependencies: [
                "HeraldMQTTClient", "HeraldApp", "HeraldConfig", "HeraldCore", "HeraldIntake", "HeraldStore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        // `herald fleet serve`: the console of many hubs (their heartbeats, events and alarms through
        // the broker's shared subscriptions, kept in PostgreSQL), and the simulator of hubs. A floor
        // of its own: none of the hub's daemon, edges or audio (scripts/module-graph.sh refuses them).
        .target(
            name: "HeraldFleet",
            dependencies: [
                "HeraldMQTTClient", "HeraldWeb", "HeraldConfig", "HeraldCore", "RuntimePaths",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        // Calendars as a source of reminders: CalDAV and .ics read (async-http-client), parsed and
        // expanded by libical, planned into firings. No daemon: the app carries the firings out.
        .target(
            name: "HeraldCalendar",
            dependencies: [
                "CICal", "HeraldCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        // `herald`: a lean front (no Foundation, linked statically: no dynamic loader at all) that
        // hands `say` and `pay` to a running daemon's socket at once, and runs herald-full for
        // everything else.
        .target(name: "HeraldFront", dependencies: ["RuntimePaths"]),
        .executableTarget(
            name: "herald",
            dependencies: ["HeraldFront"],
            linkerSettings: [.unsafeFlags(["-static-executable"])]),
        // Every command: the parser, the safeguard, the daemon.
        .executableTarget(
            name: "herald-full",
            dependencies: [
                "HeraldApp", "RuntimePaths", "HeraldConfig", "HeraldStore", "HeraldCore", "HeraldIntake", "HeraldServer", "HeraldMQTT", "HeraldFleet", "HeraldWeb", "PulseAudio", "Speech",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]),
        // Latency and memory figures against baselines in the same run (scripts/bench.sh).
        .executableTarget(
            name: "herald-bench",
            dependencies: [
                "CPulse", "HeraldApp", "HeraldConfig", "HeraldCore", "HeraldFleet", "HeraldTesting", "PulseAudio", "Speech", "SoundFile",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]),
        // The soak (scripts/soak.sh): a real `herald serve` left alone with faults; talks to it only
        // from outside (HTTP, MQTT, pactl, its SQLite file): of Herald's modules it links only
        // HeraldTesting (the seeded generator and free ports the tests use too).
        .executableTarget(
            name: "herald-soak",
            dependencies: [
                "HeraldTesting",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Subprocess", package: "swift-subprocess"),
            ]),

        // The in-memory sound system, journal and clocks the tests of every layer use; never a
        // dependency of a production target (scripts/module-graph.sh puts it above them all).
        .target(name: "HeraldTesting", dependencies: ["HeraldCore"]),
        .testTarget(
            name: "HeraldCoreTests",
            dependencies: ["HeraldCore", "HeraldTesting", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "HeraldFrontTests", dependencies: ["HeraldFront", "RuntimePaths"]),
        .testTarget(
            name: "HeraldStoreTests",
            dependencies: [
                "HeraldStore", "HeraldCore",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(name: "HeraldConfigTests", dependencies: ["HeraldConfig", "HeraldCore", "HeraldApp", "Speech"]),
        .testTarget(name: "SoundFileTests", dependencies: ["SoundFile", "HeraldCore"]),
        .testTarget(
            name: "SpeechTests",
            dependencies: ["Speech", "HeraldCore", "SoundFile", .product(name: "Logging", package: "swift-log")]),
        .testTarget(
            name: "HeraldAppTests",
            dependencies: ["HeraldApp", "HeraldCore", "HeraldConfig", "HeraldStore", "HeraldTesting",
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                           .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle")]),
        .testTarget(name: "HeraldIntakeTests", dependencies: ["HeraldIntake", "HeraldCore"]),
        .testTarget(
            name: "HeraldCalendarTests",
            dependencies: ["HeraldCalendar", "HeraldCore", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                           .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "HeraldMQTTTests", dependencies: ["HeraldMQTT", "HeraldCore"]),
        .testTarget(name: "HeraldFleetTests", dependencies: ["HeraldFleet", "HeraldCore", "HeraldConfig"]),
        .testTarget(
            name: "HeraldServerTests",
            dependencies: ["HeraldServer", "HeraldIntake", "HeraldApp", "HeraldConfig", "HeraldCore", "HeraldTesting", "HeraldWeb", "SoundFile",
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "HummingbirdTesting", package: "hummingbird"),
                           .product(name: "HTTPTypes", package: "swift-http-types"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOEmbedded", package: "swift-nio"),
                           .product(name: "AsyncHTTPClient", package: "async-http-client")]),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["SoundFile", "HeraldCore", "HeraldStore", "PulseAudio", "HeraldTesting",
                           .product(name: "Logging", package: "swift-log")]),
    ]
)

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + swiftSettings
}

// libFuzzer targets (scripts/fuzz.sh, Sources/Fuzz, seeds in Tests/FuzzCorpus): only with
// HERALD_FUZZ=1. They have no entry point of their own (libFuzzer's driver is their main, linked
// only with -sanitize=fuzzer), so a plain `swift build`, which builds every product, could not
// link them. Built in debug: they reach internal symbols with `@testable import`.
if Context.environment["HERALD_FUZZ"] == "1" {
    let fuzzers: [(name: String, dependencies: [Target.Dependency])] = [
        ("FuzzIntakeJSON", ["FuzzIntake", "HeraldIntake"]),
        ("FuzzAmount", ["HeraldCore", "Speech"]),
        ("FuzzConfig", ["HeraldConfig", "HeraldCore", "HeraldApp"]),
        ("FuzzMQTTPayload", ["FuzzIntake", "HeraldIntake", "HeraldCore"]),
    ]
    package.targets += [
        // SwiftPM renames an executable's entry point to `<Target>_main`; this C file defines
        // those, each handing over to libFuzzer's `LLVMFuzzerRunDriver`.
        .target(name: "CFuzzerDriver", path: "Sources/Fuzz/CFuzzerDriver"),
        .target(name: "FuzzSupport", path: "Sources/Fuzz/FuzzSupport", swiftSettings: swiftSettings),
        // The intake's properties, shared by the HTTP and the MQTT fuzzer.
        .target(
            name: "FuzzIntake",
            dependencies: ["FuzzSupport", "HeraldIntake", "HeraldConfig", "HeraldCore", "Speech"],
            path: "Sources/Fuzz/FuzzIntake", swiftSettings: swiftSettings),
    ]
    for fuzzer in fuzzers {
        package.targets.append(.executableTarget(
            name: fuzzer.name, dependencies: ["CFuzzerDriver", "FuzzSupport"] + fuzzer.dependencies,
            path: "Sources/Fuzz/\(fuzzer.name)",
            // No top-level code, so no `main` of Swift's beside the driver's.
            swiftSettings: swiftSettings + [.unsafeFlags(["-parse-as-library"])]))
        package.products.append(.executable(name: fuzzer.name, targets: [fuzzer.name]))
    }
}
