// swift-tools-version:6.0
import PackageDescription

// The libFuzzer targets live in their own package so the library never carries fuzzing code or
// flags. Build and run them with `Scripts/fuzz` (see Docs/Fuzzing.md): it passes
// `-sanitize=fuzzer,address` on the command line, as a manifest must not.
let package = Package(
  name: "FenceKitFuzz",
  platforms: [.macOS(.v13)],  // FenceKit's oldest macOS
  dependencies: [
    .package(name: "FenceKit", path: "..")
  ],
  targets: [
    /// libFuzzer's driver entry (`LLVMFuzzerRunDriver`), which each target's `main` calls.
    .systemLibrary(name: "CLibFuzzer"),
    /// What the fuzz targets share: scratch files, a reader of structured values from the
    /// fuzzer's bytes, the check that turns a broken property into a crash, and the brute-force
    /// reference evaluator of the differential target.
    .target(
      name: "FuzzSupport",
      dependencies: [
        "CLibFuzzer",
        .product(name: "FenceGeometry", package: "FenceKit"),
        .product(name: "FenceEngine", package: "FenceKit"),
        .product(name: "FenceFormats", package: "FenceKit"),
      ]),

    // MARK: - One executable per fuzz target (each exports LLVMFuzzerTestOneInput)

    .executableTarget(
      name: "FuzzCSV",
      dependencies: ["FuzzSupport", .product(name: "FenceFormats", package: "FenceKit")]),
    .executableTarget(
      name: "FuzzGPX",
      dependencies: ["FuzzSupport", .product(name: "FenceFormats", package: "FenceKit")]),
    .executableTarget(
      name: "FuzzNDJSON",
      dependencies: ["FuzzSupport", .product(name: "FenceFormats", package: "FenceKit")]),
    .executableTarget(
      name: "FuzzZones",
      dependencies: [
        "FuzzSupport", .product(name: "FenceFormats", package: "FenceKit"),
        .product(name: "FenceEngine", package: "FenceKit"),
      ]),
    .executableTarget(
      name: "FuzzTimestamp",
      dependencies: [
        "FuzzSupport", .product(name: "FenceFormats", package: "FenceKit"),
        .product(name: "FenceEngine", package: "FenceKit"),
      ]),
    .executableTarget(
      name: "FuzzSnapshot",
      dependencies: [
        "FuzzSupport", .product(name: "FenceEngine", package: "FenceKit"),
        .product(name: "FenceGeometry", package: "FenceKit"),
      ]),
    .executableTarget(
      name: "FuzzStore",
      dependencies: [
        "FuzzSupport", .product(name: "FenceStore", package: "FenceKit"),
        .product(name: "FenceEngine", package: "FenceKit"),
      ]),
    .executableTarget(
      name: "FuzzEvaluator",
      dependencies: [
        "FuzzSupport", .product(name: "FenceEngine", package: "FenceKit"),
        .product(name: "FenceGeometry", package: "FenceKit"),
      ]),
  ],
  swiftLanguageModes: [.v6]
)
