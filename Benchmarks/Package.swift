// swift-tools-version:6.1
import PackageDescription

// The benchmarks live in their own package so the library never depends on package-benchmark.
// Run from this folder: `swift package benchmark` (see README.md here and Docs/Performance.md).
let package = Package(
  name: "FenceKitBenchmarks",
  platforms: [.macOS(.v13)],
  dependencies: [
    .package(name: "FenceKit", path: ".."),
    .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
    // DaemonLoad only: the HTTP load client for the `fenced` daemon (Scripts/daemon-bench).
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.20.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.0.0"),
  ],
  targets: [
    // MARK: - Seeded workloads and real data, shared by the benchmark targets

    .target(
      name: "FenceWorkloads",
      dependencies: [
        .product(name: "FenceGeometry", package: "FenceKit"),
        .product(name: "FenceIndex", package: "FenceKit"),
        .product(name: "FenceEngine", package: "FenceKit"),
        .product(name: "FenceFormats", package: "FenceKit"),
        .product(name: "FenceTesting", package: "FenceKit"),
      ],
      path: "Workloads"
    ),

    /// GEOS's C API for baselines FenceGEOS does not wrap (an STRtree queried with a box).
    .systemLibrary(name: "CGEOSBaseline", path: "CGEOSBaseline", pkgConfig: "geos"),
    .target(name: "GEOSBaseline", dependencies: ["CGEOSBaseline"], path: "GEOSBaseline"),

    // MARK: - Benchmarks (each beside plain GEOS on the same data)

    .executableTarget(
      name: "IndexBenchmarks",
      dependencies: [
        "FenceWorkloads",
        "GEOSBaseline",
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "FenceGeometry", package: "FenceKit"),
        .product(name: "FenceGEOS", package: "FenceKit"),
        .product(name: "FenceIndex", package: "FenceKit"),
      ],
      path: "Benchmarks/IndexBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    .executableTarget(
      name: "GeometryBenchmarks",
      dependencies: [
        "FenceWorkloads",
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "FenceGeometry", package: "FenceKit"),
        .product(name: "FenceGEOS", package: "FenceKit"),
      ],
      path: "Benchmarks/GeometryBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    .executableTarget(
      name: "EngineBenchmarks",
      dependencies: [
        "FenceWorkloads",
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "FenceEngine", package: "FenceKit"),
        .product(name: "FenceGeometry", package: "FenceKit"),
        .product(name: "FenceGEOS", package: "FenceKit"),
        .product(name: "FenceTesting", package: "FenceKit"),
      ],
      path: "Benchmarks/EngineBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    .executableTarget(
      name: "SupportBenchmarks",
      dependencies: [
        "FenceWorkloads",
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "FenceEngine", package: "FenceKit"),
        .product(name: "FenceFormats", package: "FenceKit"),
        .product(name: "FenceGeometry", package: "FenceKit"),
        .product(name: "FenceGEOS", package: "FenceKit"),
      ],
      path: "Benchmarks/SupportBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),

    // MARK: - Load client for the daemon (not a package-benchmark target: it drives a real
    // `fenced` process over loopback; see Scripts/daemon-bench and Docs/Daemon-Performance.md).
    // Its sources sit one folder deeper than DaemonLoad/ because `swift package benchmark`
    // runs every executable target whose folder's parent is named "Benchmarks".

    .executableTarget(
      name: "DaemonLoad",
      dependencies: [
        .product(name: "FenceEngine", package: "FenceKit"),
        .product(name: "FenceFormats", package: "FenceKit"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
      ],
      path: "DaemonLoad/Sources"
    ),
  ],
  swiftLanguageModes: [.v6]
)
