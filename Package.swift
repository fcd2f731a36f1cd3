// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "FenceKit",
  // The oldest macOS with what the code uses: ContinuousClock, Duration and Task.sleep(for:)
  // (FenceStore, FenceDaemon) and swift-prometheus need macOS 13. Other Apple platforms are
  // not listed: GEOS comes from the system (pkg-config), which only Linux and macOS provide.
  platforms: [.macOS(.v13)],
  products: [
    .library(name: "FenceGeometry", targets: ["FenceGeometry"]),
    .library(name: "FenceGEOS", targets: ["FenceGEOS"]),
    .library(name: "FenceIndex", targets: ["FenceIndex"]),
    .library(name: "FenceEngine", targets: ["FenceEngine"]),
    .library(name: "FenceFormats", targets: ["FenceFormats"]),
    .library(name: "FenceTesting", targets: ["FenceTesting"]),
    .library(name: "FenceStore", targets: ["FenceStore"]),
    .library(name: "FenceStorePostgres", targets: ["FenceStorePostgres"]),
    .executable(name: "fencebench", targets: ["fencebench"]),
    .executable(name: "fenced", targets: ["fenced"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    // The store and the daemon only; the engine modules need nothing but GEOS and the toolchain.
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.21.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.65.0"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
    .package(url: "https://github.com/apple/swift-metrics", from: "2.4.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.20.0"),
  ],
  targets: [
    // MARK: - C: system libraries, and the cache hints

    /// GEOS C API from the system (`apt-get install libgeos-dev`).
    .systemLibrary(name: "CGEOS", pkgConfig: "geos", providers: [.apt(["libgeos-dev"])]),
    /// zlib from the system, for `.gz` inputs (`apt-get install zlib1g-dev`).
    .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

    /// Cache and allocator hints Swift cannot express, as inline C: the batch evaluator asks
    /// for a later fix's tables while it works on the current one (`__builtin_prefetch`); a
    /// large load gives freed pages back as it goes (`malloc_trim`, glibc).
    .target(name: "CMemoryHints"),

    // MARK: - Library, bottom layer first

    .target(name: "FenceGeometry"),
    .target(name: "FenceGEOS", dependencies: ["FenceGeometry", "CGEOS"]),
    .target(name: "FenceIndex", dependencies: ["FenceGeometry", "CMemoryHints"]),
    .target(
      name: "FenceEngine", dependencies: ["FenceGeometry", "FenceIndex", "FenceGEOS", "CMemoryHints"]),
    .target(name: "FenceFormats", dependencies: ["FenceEngine", "FenceGEOS", "CZlib", "CMemoryHints"]),
    .target(name: "FenceTesting", dependencies: ["FenceEngine", "FenceGeometry"]),
    /// The engine made durable: command log, events, snapshots, recovery (SQLite through GRDB).
    .target(
      name: "FenceStore",
      dependencies: ["FenceEngine", "FenceFormats", .product(name: "GRDB", package: "GRDB.swift")]),
    /// `FenceStore` on PostgreSQL (postgres-nio), and the partitions, leases and inbox of the
    /// scale-out: apart, so that an embedder of the SQLite store does not build a TLS stack.
    .target(
      name: "FenceStorePostgres",
      dependencies: [
        "FenceStore", "FenceEngine", "FenceFormats",
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]),

    // MARK: - Command-line tool

    /// The options `fencebench` and `fenced` share (zone files, engine settings), checked once.
    .target(
      name: "FenceCommandLine",
      dependencies: [
        "FenceEngine", "FenceFormats", .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]),
    .executableTarget(
      name: "fencebench",
      dependencies: [
        "FenceFormats", "FenceEngine", "FenceGEOS", "FenceIndex", "FenceGeometry", "FenceCommandLine",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]),

    /// The reference daemon's HTTP layer, webhooks and metrics, over `FenceStore`.
    .target(
      name: "FenceDaemon",
      dependencies: [
        "FenceStore", "FenceStorePostgres", "FenceEngine", "FenceFormats", "FenceGEOS",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "Prometheus", package: "swift-prometheus"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
      ]),
    .executableTarget(
      name: "fenced",
      dependencies: [
        "FenceDaemon", "FenceStore", "FenceStorePostgres", "FenceEngine", "FenceFormats",
        "FenceCommandLine",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ]),

    // MARK: - Tests

    .target(
      name: "FenceTestSupport", dependencies: ["FenceGeometry", "FenceGEOS"],
      path: "Tests/FenceTestSupport"),
    .testTarget(
      name: "FenceGeometryTests", dependencies: ["FenceGeometry", "FenceTestSupport"]),
    .testTarget(
      name: "FenceGEOSTests", dependencies: ["FenceGEOS", "FenceGeometry", "FenceTestSupport"]),
    .testTarget(name: "FenceIndexTests", dependencies: ["FenceIndex", "FenceTestSupport"]),
    .testTarget(
      name: "FenceEngineTests",
      dependencies: ["FenceEngine", "FenceTesting", "FenceFormats", "FenceTestSupport"]),
    .testTarget(
      name: "FenceFormatsTests", dependencies: ["FenceFormats", "FenceTestSupport", "CMemoryHints"]),
    .testTarget(
      name: "fencebenchTests", dependencies: ["FenceTestSupport"]),
    .testTarget(name: "FenceTestingTests", dependencies: ["FenceTesting", "FenceEngine"]),
    .testTarget(
      name: "FenceStoreTests",
      dependencies: [
        "FenceStore", "FenceStorePostgres", "FenceEngine", "FenceFormats", "FenceTesting",
        "FenceTestSupport",
        // PostgresFailedQueryTests drives the store's connections directly.
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    /// The Swift samples of README.md, Docs/ and the DocC catalogs (Scripts/check-doc-samples
    /// checks that each has its copy here); Manifests/ holds manifest samples, not compiled.
    .testTarget(
      name: "DocSamplesTests",
      dependencies: [
        "FenceEngine", "FenceFormats", "FenceGEOS", "FenceGeometry", "FenceStore", "FenceTesting",
      ],
      exclude: ["Manifests"]),
    .testTarget(
      name: "fencedTests",
      dependencies: [
        "FenceStore", "FenceEngine", "FenceFormats", "FenceTestSupport",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
      ]),
  ],
  swiftLanguageModes: [.v6]
)
