// swift-tools-version:6.1
// Benchmarks for Ralph Mobile (issue 9). A separate package so the project's CI, which builds only the root
// package, does not build ordo-one/benchmark. Run: `swift package --package-path Benchmarks benchmark`.
import PackageDescription

let package = Package(
    name: "ralph-mobile-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "ralph-mobile", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        // Real ralph event lines shared by the micro-benchmarks.
        .target(name: "BenchCorpus", path: "Sources/BenchCorpus"),
        // JSONL event decoder: a ralph events line → RalphEvent → the `workflow` payload the server sends.
        .executableTarget(
            name: "Codec",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchCorpus",
                .product(name: "RalphFiles", package: "ralph-mobile"),
                .product(name: "RalphAPI", package: "ralph-mobile"),
            ],
            path: "Benchmarks/Codec",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // SSE frame encoder (server) and SSE parser (client SDK).
        .executableTarget(
            name: "SSE",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchCorpus",
                .product(name: "RalphFiles", package: "ralph-mobile"),
                .product(name: "RalphAPI", package: "ralph-mobile"),
                .product(name: "RalphMobileKit", package: "ralph-mobile"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/SSE",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The state fold: a run's events → RunState → session status/detail.
        .executableTarget(
            name: "StateFold",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchCorpus",
                .product(name: "RalphFiles", package: "ralph-mobile"),
                .product(name: "RalphAPI", package: "ralph-mobile"),
            ],
            path: "Benchmarks/StateFold",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Figure 6: a workspace of 1 000 runs / 10 M event lines against a release ralph-mobile-server.
        .executableTarget(
            name: "workspace-scale",
            dependencies: [],
            path: "Sources/workspace-scale"
        ),
    ]
)
