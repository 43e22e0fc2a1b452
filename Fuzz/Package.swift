// swift-tools-version:6.2
// libFuzzer targets for Ralph Mobile's parsers of untrusted input (issue 17). A separate package so the project's
// normal build never sees them: they only link with `-sanitize=fuzzer,address` (libFuzzer's runtime). Build and run
// them with `scripts/fuzz`; `scripts/fuzz --help` says how.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

/// A product of the project itself (the package one directory up).
func ralph(_ product: String) -> Target.Dependency { .product(name: product, package: "ralph-mobile") }

/// A libFuzzer executable: FuzzSupport (the driver's entry point and the shared checks) and what it fuzzes.
func fuzzer(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: ["FuzzSupport"] + dependencies, swiftSettings: swiftSettings)
}

let package = Package(
    name: "ralph-mobile-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "ralph-mobile", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        // What every target shares: the input as bytes, deterministic chunkings of it, checks that stop the fuzzer.
        .target(name: "FuzzSupport", dependencies: ["CFuzzerDriver"], swiftSettings: swiftSettings),
        // The declaration of libFuzzer's driver, which each target's main calls.
        .target(name: "CFuzzerDriver"),
        // A ralph events file: LineSplitter → EventLineDecoder (the lenient JSONParser) → RunState fold → the
        // `workflow` payload the server sends (JSONWriter), which must parse back to the same value.
        fuzzer("events-line", [ralph("RalphFiles"), ralph("RalphAPI")]),
        // The SDK's SSE parser, its source file itself (a symbolic link to Sources/RalphMobileKit/Streaming/
        // SSEParser.swift, which imports nothing): building RalphMobileKit would build AsyncHTTPClient, swift-nio
        // and BoringSSL, minutes that CI cannot spare, for one dependency-free file.
        .target(name: "SDKSSEParser", swiftSettings: swiftSettings),
        // The SSE parser: any chunking of a stream must give the same outputs as the whole stream at once.
        fuzzer("sse", ["SDKSSEParser"]),
        // Claude Code's stdout: ClaudeLineSplitter (any chunking, the oversized-line cap) → ClaudeStreamDecoder.
        fuzzer("claude-stream", [ralph("AgentRunner"), ralph("RalphAPI")]),
        // A preset or ralph.yml: RalphYAML, RalphConfigValidator, and PresetLibrary reading it from a workspace.
        fuzzer("preset-yaml", [ralph("RalphFiles"), ralph("RalphAPI")]),
        // The request body types of the server's routes, how an input picks one (its first byte), the round-trip check.
        .target(name: "FuzzRequests", dependencies: ["FuzzSupport", ralph("RalphAPI")], swiftSettings: swiftSettings),
        // Request bodies with the server's decoder settings (a default JSONDecoder); needs only RalphAPI.
        fuzzer("request-body", ["FuzzRequests", ralph("RalphAPI")]),
        // The same corpus through the server's own path: `request.decode(as:context:)` with its AppRequestContext.
        // Builds the whole server (several minutes), so CI leaves it out; `scripts/fuzz request-body-server` runs it.
        fuzzer(
            "request-body-server",
            [
                "FuzzRequests", ralph("RalphMobileServer"), ralph("RalphAPI"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)
