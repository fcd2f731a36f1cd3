// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "FenceKit",
  products: [
    .library(name: "FenceGeometry", targets: ["FenceGeometry"]),
    .library(name: "FenceGEOS", targets: ["FenceGEOS"]),
    .library(name: "FenceIndex", targets: ["FenceIndex"]),
    .library(name: "FenceEngine", targets: ["FenceEngine"]),
    .library(name: "FenceFormats", targets: ["FenceFormats"]),
    .library(name: "FenceTesting", targets: ["FenceTesting"]),
    .executable(name: "fencebench", targets: ["fencebench"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
  ],
  targets: [
    // MARK: - System libraries (the only places C is visible)

    /// GEOS C API from the system (`apt-get install libgeos-dev`).
    .systemLibrary(name: "CGEOS", pkgConfig: "geos", providers: [.apt(["libgeos-dev"])]),
    /// zlib from the system, for `.gz` inputs (`apt-get install zlib1g-dev`).
    .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

    // MARK: - Library, bottom layer first

    .target(name: "FenceGeometry"),
    .target(name: "FenceGEOS", dependencies: ["FenceGeometry", "CGEOS"]),
    .target(name: "FenceIndex", dependencies: ["FenceGeometry"]),
    .target(name: "FenceEngine", dependencies: ["FenceGeometry", "FenceIndex", "FenceGEOS"]),
    .target(name: "FenceFormats", dependencies: ["FenceEngine", "FenceGEOS", "CZlib"]),
    .target(name: "FenceTesting", dependencies: ["FenceEngine", "FenceGeometry"]),

    // MARK: - Command-line tool

    .executableTarget(
      name: "fencebench",
      dependencies: [
        "FenceFormats", "FenceEngine", "FenceGEOS", "FenceIndex", "FenceGeometry",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
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
      name: "FenceFormatsTests", dependencies: ["FenceFormats", "FenceTestSupport"]),
    .testTarget(
      name: "fencebenchTests", dependencies: ["FenceTestSupport"]),
    .testTarget(name: "FenceTestingTests", dependencies: ["FenceTesting", "FenceEngine"]),
  ],
  swiftLanguageModes: [.v6]
)
