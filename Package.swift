// swift-tools-version:6.2
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

/// The products of the dependencies that several targets use, named once so that each target's dependency list
/// reads as one line of names.
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
let serviceLifecycle: Target.Dependency = .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let yams: Target.Dependency = .product(name: "Yams", package: "Yams")
let hummingbird: Target.Dependency = .product(name: "Hummingbird", package: "hummingbird")
let hummingbirdTesting: Target.Dependency = .product(name: "HummingbirdTesting", package: "hummingbird")
let crypto: Target.Dependency = .product(name: "Crypto", package: "swift-crypto")
let deque: Target.Dependency = .product(name: "DequeModule", package: "swift-collections")
let grdb: Target.Dependency = .product(name: "GRDB", package: "GRDB.swift")
let postgresNIO: Target.Dependency = .product(name: "PostgresNIO", package: "postgres-nio")
let asyncHTTPClient: Target.Dependency = .product(name: "AsyncHTTPClient", package: "async-http-client")
let nioSSL: Target.Dependency = .product(name: "NIOSSL", package: "swift-nio-ssl")
let argumentParser: Target.Dependency = .product(name: "ArgumentParser", package: "swift-argument-parser")
let metrics: Target.Dependency = .product(name: "Metrics", package: "swift-metrics")
let prometheus: Target.Dependency = .product(name: "Prometheus", package: "swift-prometheus")
func nio(_ name: String) -> Target.Dependency { .product(name: name, package: "swift-nio") }

let package = Package(
    name: "ralph-mobile",
    platforms: [.macOS(.v15), .iOS(.v17)],
    products: [
        .library(name: "RalphAPI", targets: ["RalphAPI"]),
        .library(name: "RalphFiles", targets: ["RalphFiles"]),
        .library(name: "AgentRunner", targets: ["AgentRunner"]),
        .library(name: "RalphMobileServer", targets: ["RalphMobileServer"]),
        .executable(name: "ralph-mobile-server", targets: ["ralph-mobile-server"]),
        .library(name: "RalphMobileKit", targets: ["RalphMobileKit"]),
        .library(name: "RalphMobilePresentation", targets: ["RalphMobilePresentation"]),
        .executable(name: "ralph-mobile", targets: ["ralph-mobile"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // `swift package generate-documentation --target RalphMobileKit`: the SDK's DocC catalog (built in CI).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        // Wire contract shared by server and clients. Foundation only.
        .target(name: "RalphAPI", swiftSettings: swiftSettings),
        // openat2(2) for Swift (Glibc does not wrap it): confined opens under the workspace roots.
        .target(name: "CFileSupport"),
        // ralph's on-disk world: events codec, discovery, tailing, liveness, state fold.
        .target(
            name: "RalphFiles",
            dependencies: ["RalphAPI", "CFileSupport", logging, serviceLifecycle, yams],
            swiftSettings: swiftSettings
        ),
        // Writes runs in ralph's real file layout: the --demo loop and the ralph test double.
        .target(name: "RalphSimulator", dependencies: ["RalphFiles"], swiftSettings: swiftSettings),
        // Processes: spawning ralph in its own process group, reaping, signals, /proc inspection.
        .target(name: "CProcessSupport"),
        // Debian's libqrencode, for the pairing QR codes (issue 26): a real encoder, not a hand-written one.
        .systemLibrary(name: "CQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .target(
            name: "AgentRunner",
            dependencies: ["RalphAPI", "RalphFiles", "CProcessSupport", logging],
            swiftSettings: swiftSettings
        ),
        // A double of `ralph run` for tests (ralph cannot be installed here): files, flock, signals, exit codes.
        .executableTarget(
            name: "fake-ralph",
            dependencies: ["RalphSimulator", "RalphFiles", "RalphAPI", yams],
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "fake-claude", dependencies: ["RalphAPI"], swiftSettings: swiftSettings),
        // What the model API doubles share: the `#model` script language, their command line, the `listening on`
        // line, the request log, streamed and broken answers.
        .target(name: "ModelAPIDouble", dependencies: ["RalphAPI", hummingbird], swiftSettings: swiftSettings),
        // A double of the Anthropic Messages API, so the real Claude Code CLI runs in tests against scripted replies.
        .executableTarget(
            name: "fake-anthropic",
            dependencies: ["RalphAPI", "ModelAPIDouble", hummingbird],
            swiftSettings: swiftSettings
        ),
        // A double of the OpenAI Responses API, so the real Codex CLI runs in tests against scripted replies.
        .executableTarget(
            name: "fake-openai",
            dependencies: ["RalphAPI", "ModelAPIDouble", hummingbird],
            swiftSettings: swiftSettings
        ),
        // A double of an OpenAI-compatible chat completions server, for the auto-reply judge's tests.
        .executableTarget(
            name: "fake-llm",
            dependencies: ["RalphAPI", "ModelAPIDouble", hummingbird],
            swiftSettings: swiftSettings
        ),
        // Notifications' cryptography and payloads, Foundation + Crypto only: Web Push (RFC 8291 aes128gcm, RFC 8292
        // VAPID), the APNs provider token, webhook signatures.
        .target(
            name: "RalphNotify",
            dependencies: ["RalphAPI", crypto],
            swiftSettings: swiftSettings
        ),
        // The stores' SQL database, embedded SQLite (GRDB) or a shared PostgreSQL (postgres-nio), behind one interface.
        .target(
            name: "SQLStore", dependencies: [grdb, postgresNIO, .product(name: "_ConnectionPoolModule", package: "postgres-nio"), logging],
            swiftSettings: swiftSettings),
        // Hummingbird application: routes, auth, SSE, event hub.
        .target(
            name: "RalphMobileServer",
            dependencies: ["RalphAPI", "RalphFiles", "RalphSimulator", "AgentRunner", "RalphNotify", "SQLStore", "CQRencode", hummingbird, crypto, logging, nio("NIOEmbedded"),
                serviceLifecycle, deque, grdb, asyncHTTPClient, nioSSL, yams, prometheus],
            // The web dashboard: plain HTML, CSS and JavaScript modules, no build step.
            resources: [.copy("Resources/web"), .copy("Resources/openapi")],
            swiftSettings: swiftSettings
        ),
        // Client SDK for every client (terminal, iOS, tests): HTTP client, SSE with resume, @Observable models.
        .target(
            name: "RalphMobileKit",
            dependencies: ["RalphAPI", asyncHTTPClient],
            swiftSettings: swiftSettings
        ),
        // What the native iOS app shows and does, as Foundation-only @Observable models and values (Apps/RalphMobile only
        // lays them out and binds them): built and tested on Linux against the real server.
        .target(
            name: "RalphMobilePresentation",
            dependencies: ["RalphMobileKit", "RalphAPI"],
            swiftSettings: swiftSettings
        ),
        // The terminal client.
        .executableTarget(
            name: "ralph-mobile",
            dependencies: ["RalphMobileKit", "RalphAPI", argumentParser],
            swiftSettings: swiftSettings
        ),
        // Load client for scripts/bench: raw NIO SSE connections against the built server and nginx + nchan.
        .executableTarget(
            name: "ralph-mobile-bench",
            dependencies: ["RalphSimulator", "RalphFiles", "RalphAPI", nio("NIOCore"), nio("NIOPosix"), nio("NIOHTTP1"),
                nio("NIOConcurrencyHelpers")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ralph-mobile-server",
            dependencies: ["RalphMobileServer", "RalphSimulator", argumentParser, metrics, yams],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "RalphAPITests", dependencies: ["RalphAPI"], swiftSettings: swiftSettings),
        .testTarget(
            name: "RalphNotifyTests",
            dependencies: ["RalphNotify", "RalphAPI", crypto],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RalphFilesTests",
            dependencies: ["RalphFiles", "RalphSimulator", serviceLifecycle],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "RalphSimulatorTests", dependencies: ["RalphSimulator", "RalphFiles"], swiftSettings: swiftSettings),
        .testTarget(name: "AgentRunnerTests", dependencies: ["AgentRunner", "RalphAPI"], swiftSettings: swiftSettings),
        .testTarget(name: "SQLStoreTests", dependencies: ["SQLStore", "TestSupport"], swiftSettings: swiftSettings),
        // Real servers on port 0, temporary directories and polling helpers, shared by the server and client tests.
        .target(
            name: "TestSupport",
            dependencies: ["RalphMobileServer", "AgentRunner", "RalphAPI", asyncHTTPClient, hummingbird,
                serviceLifecycle, logging, crypto],
            path: "Tests/TestSupport",
            swiftSettings: swiftSettings
        ),
        // The client tests' shared harness base: a real server with fake-ralph runs and, optionally, Claude chats.
        .target(
            name: "ClientTestSupport",
            dependencies: ["TestSupport", "RalphMobileKit", "RalphMobileServer", "RalphSimulator", "RalphAPI"],
            path: "Tests/ClientTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RalphMobileKitTests",
            dependencies: ["RalphMobileKit", "RalphAPI", "RalphFiles", "RalphSimulator", "AgentRunner", "TestSupport", "ClientTestSupport",
                asyncHTTPClient],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RalphMobilePresentationTests",
            dependencies: ["RalphMobilePresentation", "RalphMobileKit", "RalphAPI", "RalphFiles", "RalphSimulator",
                "AgentRunner", "TestSupport", "ClientTestSupport", asyncHTTPClient, yams, hummingbird, serviceLifecycle, nio("NIOCore"),
                logging],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RalphMobileServerTests",
            dependencies: [
                "RalphMobileServer", "RalphSimulator", "TestSupport", "AgentRunner",
                grdb, crypto, "SQLStore",
                asyncHTTPClient,
                // In-process router tests (`app.test(.router)`): request/response rules without a socket.
                hummingbirdTesting,
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
