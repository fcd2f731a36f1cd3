import FenceGeometry
import FenceTestSupport
import Foundation
import Testing

/// `fencebench run --compare-geos`: the plain GEOS loop beside the engine, and its containment
/// self-check, on the harbor's first hour.
@Suite struct CompareGEOSTests {
  static let zones = RunCommandTests.zones
  static let firstHour = RunCommandTests.firstHour

  /// (fix, fence) containments of the first hour, by brute force: every fix against every
  /// fence, circles with FenceGeometry's `Circle`, polygons by a plain even-odd ray cast (no
  /// index, no FenceKit polygon code, no GEOS).
  static func bruteForceContainments() throws -> Int {
    let zonesData = try Data(contentsOf: URL(fileURLWithPath: fixturePath("zones/nyharbor-zones.geojson")))
    let collection = try #require(try JSONSerialization.jsonObject(with: zonesData) as? [String: Any])
    let features = try #require(collection["features"] as? [[String: Any]])
    var circles: [Circle] = []
    var rings: [[[Double]]] = []
    for feature in features {
      let geometry = try #require(feature["geometry"] as? [String: Any])
      switch geometry["type"] as? String {
      case "Point":
        let point = try #require(geometry["coordinates"] as? [Double])
        let radius = try #require((feature["properties"] as? [String: Any])?["radius"] as? Double)
        circles.append(try Circle(center: Coordinate(latitude: point[1], longitude: point[0]), radius: radius))
      case "Polygon":
        let polygon = try #require(geometry["coordinates"] as? [[[Double]]])
        #expect(polygon.count == 1, "the harbor polygons have no holes")
        rings.append(polygon[0])
      default:
        continue
      }
    }
    #expect(circles.count == 2 && rings.count == 2)

    let csv = try String(contentsOfFile: fixturePath("tracks/nyharbor-ais-2020-06-30-first-hour.csv"), encoding: .utf8)
    var total = 0
    for line in csv.split(separator: "\n").dropFirst() {
      let columns = line.split(separator: ",", omittingEmptySubsequences: false)
      let lon = try #require(Double(columns[1])), lat = try #require(Double(columns[2]))
      let position = ECEFPosition(latitude: lat, longitude: lon)
      total += circles.filter { $0.contains(position) }.count
      total += rings.filter { Self.rayCastContains($0, x: lon, y: lat) }.count
    }
    return total
  }

  /// Even-odd rule over a closed ring of [lon, lat] vertices.
  static func rayCastContains(_ ring: [[Double]], x: Double, y: Double) -> Bool {
    var inside = false
    for i in 1..<ring.count {
      let (x0, y0, x1, y1) = (ring[i - 1][0], ring[i - 1][1], ring[i][0], ring[i][1])
      if (y0 > y) != (y1 > y), x < x0 + (y - y0) * (x1 - x0) / (y1 - y0) { inside.toggle() }
    }
    return inside
  }

  @Test func textSummaryShowsBothLoopsAndTheirAgreement() throws {
    let result = try FenceBenchProcess.run(["run", "--zones", Self.zones, Self.firstHour, "--compare-geos"])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(result.standardError == "")
    let lines = result.standardOutput.split(separator: "\n")
    let labels = lines.map { $0.split(separator: "  ").first.map(String.init) ?? "" }
    #expect(
      labels == [
        "fixes read", "accepted", "rejected", "devices", "zones", "load", "index build",
        "read + sort", "events", "evaluation", "throughput", "latency", "cell cache", "GEOS build",
        "GEOS loop", "GEOS throughput", "GEOS latency", "speed-up", "containments", "peak memory",
      ])
    let expected = try Self.bruteForceContainments()
    #expect(expected == 273)
    #expect(lines.contains("containments     273 (FenceKit and GEOS agree on every fix)"))
    #expect(lines.contains { $0.hasPrefix("speed-up         ") && $0.hasSuffix("x the GEOS loop") })
    #expect(lines.contains { $0.hasPrefix("read + sort      ") && $0.hasSuffix(" rows/s)") })
  }

  @Test(arguments: [[String](), ["--presorted"], ["--no-latency"]])
  func jsonSummaryCountsTheSameContainmentsAsBruteForce(_ options: [String]) throws {
    let result = try FenceBenchProcess.run(
      ["run", "--zones", Self.zones, Self.firstHour, "--compare-geos", "--json"] + options)
    #expect(result.status == 0, "\(result.standardError)")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    let geos = try #require(object["compareGEOS"] as? [String: Any])
    #expect(
      Set(geos.keys) == [
        "buildSeconds", "evaluationSeconds", "throughputFixesPerSecond", "latencyMicroseconds",
        "speedup", "fenceKitContainments", "geosContainments", "disagreeingFixes", "agree",
      ])
    let expected = try Self.bruteForceContainments()
    #expect(geos["fenceKitContainments"] as? Int == expected)
    #expect(geos["geosContainments"] as? Int == expected)
    #expect(geos["disagreeingFixes"] as? Int == 0)
    #expect(geos["agree"] as? Bool == true)
    #expect((geos["throughputFixesPerSecond"] as? Double ?? 0) > 0)
    #expect((geos["speedup"] as? Double ?? 0) > 0)
    if options.contains("--no-latency") {
      #expect(geos["latencyMicroseconds"] is NSNull)
    } else {
      let latency = try #require(geos["latencyMicroseconds"] as? [String: Double])
      let p50 = try #require(latency["p50"]), p99 = try #require(latency["p99"])
      #expect(0 < p50 && p50 <= p99)
    }
    // The engine's own events are untouched by the comparison.
    #expect(object["events"] as? Int == 57)
  }
}
