import Benchmark
import FenceEngine
import FenceFormats
import FenceGEOS
import FenceGeometry
import FenceWorkloads
import Foundation

// The figures of Docs/Algorithms.md (boundary distance), Docs/Formats.md (CSV reading) and
// Docs/Scaling.md (snapshots) that are not per-query index or engine figures, each beside a
// simpler or GEOS method on the same data where one exists. Setup checks the answers first.

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .throughput, .mallocCountTotal],
    timeUnits: .nanoseconds,
    warmupIterations: 1,
    maxDuration: .seconds(3),
    maxIterations: 1_000
  )

  // MARK: Distance to a polygon's boundary, 1,000 queries per iteration

  for vertices in [1_000, 10_000, 100_000] {
    let fixture = DistanceFixture(vertices: vertices)
    Benchmark(
      "Boundary distance star \(vertices) vertices: FenceGeometry",
      configuration: .init(scalingFactor: .kilo)
    ) { benchmark in
      var total = 0.0
      for i in benchmark.scaledIterations {
        total += fixture.shape.distanceToBoundary(from: fixture.points[i % fixture.points.count])
      }
      blackHole(total)
    } setup: {
      fixture.prepare()
    }
    Benchmark(
      "Boundary distance star \(vertices) vertices: GEOS prepared distance (degrees)",
      configuration: .init(scalingFactor: .kilo)
    ) { benchmark in
      guard let prepared = fixture.prepared else { preconditionFailure("not prepared") }
      var total = 0.0
      for i in benchmark.scaledIterations {
        let point = fixture.points[i % fixture.points.count]
        do {
          total += try prepared.distanceToBoundary(
            latitude: point.latitude, longitude: point.longitude)
        } catch {
          preconditionFailure("GEOS: \(error)")
        }
      }
      blackHole(total)
    } setup: {
      fixture.prepare()
    }
  }

  // MARK: Reading the harbor week CSV (172,679 rows) per iteration

  // Registered only when ../shared/data is there (no empty timings otherwise).
  let week = RealPolygons.dataFolder + "/tracks/nyharbor-ais-2020-12-01-to-07.csv"
  if FileManager.default.fileExists(atPath: week) {
    Benchmark("Read CSV harbor week: TrackReader", configuration: .init(maxIterations: 20)) {
      benchmark in
      for _ in benchmark.scaledIterations {
        guard let reader = try? TrackReader(path: week) else { preconditionFailure(week) }
        var rows = 0
        while let fix = try? reader.next() {
          rows += 1
          blackHole(fix.latitude)
        }
        precondition(rows == 172_679, "read \(rows) rows")
      }
    }
  }

  // MARK: Snapshots of 10,000 devices, half of them checked in

  let snapshotFixture = SnapshotFixture(devices: 10_000)
  Benchmark("Snapshot 10k devices: snapshot + encode", configuration: .init(maxIterations: 50)) {
    benchmark in
    for _ in benchmark.scaledIterations {
      blackHole(snapshotFixture.evaluator.snapshot().encoded().count)
    }
  } setup: {
    snapshotFixture.prepare()
  }
  Benchmark("Snapshot 10k devices: decode + restore", configuration: .init(maxIterations: 50)) {
    benchmark in
    for _ in benchmark.scaledIterations {
      guard let snapshot = try? EvaluatorSnapshot(decoding: snapshotFixture.bytes) else {
        preconditionFailure("decode")
      }
      var fresh = snapshotFixture.fresh
      do { try fresh.restore(snapshot) } catch { preconditionFailure("restore: \(error)") }
      blackHole(fresh.deviceCount)
    }
  } setup: {
    snapshotFixture.prepare()
  }
}

/// A star polygon and query points around it, with GEOS's prepared geometry of it.
final class DistanceFixture {
  let vertices: Int
  private(set) var shape = MultiPolygon(StarPolygon.make(vertexCount: 10))
  private(set) var prepared: PreparedShape?
  private(set) var points: [Position] = []

  init(vertices: Int) { self.vertices = vertices }

  func prepare() {
    shape = MultiPolygon(StarPolygon.make(vertexCount: vertices))
    points = StarPolygon.points(in: shape.boundingBox, count: 1_000)
    do {
      prepared = try PreparedShape(shape, context: GEOSContext())
    } catch {
      preconditionFailure("GEOS: \(error)")
    }
    // Both answer: ours in metres, GEOS's in planar degrees (not comparable one to one), each
    // finite and not negative, and zero for both or neither (a vertex is checked too: random
    // points are almost never on the boundary).
    let vertex = Position(shape.polygons[0].exterior[0])
    for point in points.prefix(50) + [vertex] {
      let ours = shape.distanceToBoundary(from: point)
      let theirs: Double
      do {
        theirs = try prepared?.distanceToBoundary(
          latitude: point.latitude, longitude: point.longitude) ?? -1
      } catch {
        preconditionFailure("GEOS: \(error)")
      }
      precondition(
        ours.isFinite && ours >= 0 && theirs.isFinite && theirs >= 0
          && (ours == 0) == (theirs == 0),
        "distance \(ours) m, GEOS \(theirs) degrees at \(point.coordinate)")
    }
  }
}

/// An evaluator with `devices` devices (half inside one of 1,000 circles) and its encoded
/// snapshot; `fresh` is the same zones with no devices, to restore into.
final class SnapshotFixture {
  let devices: Int
  private(set) var evaluator = ZoneEvaluator()
  private(set) var fresh = ZoneEvaluator()
  private(set) var bytes: [UInt8] = []

  init(devices: Int) { self.devices = devices }

  func prepare() {
    let workload = CircleWorkload(count: 1_000, region: .metro)
    let zones = workload.circles.enumerated().map { index, circle in
      Zone(id: "z\(index)", fences: [Fence(id: "f\(index)", area: .circle(circle))],
        rules: ZoneRules(dwell: 600))
    }
    do {
      evaluator = try ZoneEvaluator(zones: zones)
      fresh = try ZoneEvaluator(zones: zones)
    } catch {
      preconditionFailure("zones: \(error)")
    }
    let outside = workload.queryPoints(count: devices)
    var events: [ZoneEvent] = []
    for device in 0..<devices {
      let position = device.isMultiple(of: 2) ? workload.circles[device % 1_000].center : outside[device].coordinate
      evaluator.process(
        LocationFix(device: "device-\(device)", time: Timestamp(secondsSinceEpoch: Double(device)),
          latitude: position.latitude, longitude: position.longitude, speed: 3, course: 90),
        into: &events)
    }
    precondition(evaluator.deviceCount == devices, "\(evaluator.deviceCount) devices")
    bytes = evaluator.snapshot().encoded()
  }
}
