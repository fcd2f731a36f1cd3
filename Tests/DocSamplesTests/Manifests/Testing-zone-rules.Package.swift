// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "MyZones",
  platforms: [.macOS(.v13)],                  // FenceKit's oldest macOS
  dependencies: [
    .package(url: "https://github.com/your-org/FenceKit.git", from: "0.1.0"),
  ],
  targets: [
    .testTarget(name: "MyZoneRuleTests", dependencies: [
      .product(name: "FenceTesting", package: "FenceKit"),
    ]),
  ]
)
