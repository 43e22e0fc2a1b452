// swift-tools-version:6.1
// Benchmarks for Ralph Mobile (issue 9). A separate package so the project's CI, which builds only the root
// package, does not build ordo-one/benchmark. Run: `swift package --package-path Benchmarks benchmark`.
import PackageDescription

/// A product of the project itself (the package one directory up).
func ralph(_ product: String) -> Target.Dependency { .product(name: product, package: "ralph-mobile") }

/// A micro-benchmark (`Benchmarks/<name>/`), run by ordo-one/benchmark's plugin; each one reads the shared corpus of
/// real ralph event lines.
func benchmark(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(
        name: name,
        dependencies: [.product(name: "Benchmark", package: "benchmark"), "BenchCorpus"] + dependencies,
        path: "Benchmarks/\(name)",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    )
}

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
        benchmark("Codec", [ralph("RalphFiles"), ralph("RalphAPI")]),
        // SSE frame encoder (server) and SSE parser (client SDK).
        benchmark(
            "SSE",
            [
                ralph("RalphFiles"), ralph("RalphAPI"), ralph("RalphMobileKit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The state fold: a run's events → RunState → session status/detail.
        benchmark("StateFold", [ralph("RalphFiles"), ralph("RalphAPI")]),
        // Figure 6: a workspace of 1 000 runs / 10 M event lines against a release ralph-mobile-server.
        .executableTarget(
            name: "workspace-scale",
            dependencies: [],
            path: "Sources/workspace-scale"
        ),
    ]
)
