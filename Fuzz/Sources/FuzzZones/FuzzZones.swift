import FenceEngine
import FenceFormats
import FuzzSupport

/// Zones GeoJSON: ``ZoneLoader/loadZones(from:file:options:)`` on any bytes, with GEOS repair
/// when the plain load fails. Loading must end in zones or a ``ZoneLoadError``, never trap.
/// Loaded zones must come back equal (sorted by id) through ``ZoneSetWriter`` unless the writer
/// refuses them with a ``ZoneWriteError``; must load into an evaluator or be refused with a
/// ``ZoneError``; and the evaluator must then process fixes on every fence and GEOLINE,
/// advance, and snapshot and restore without trapping.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzZones(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  guard let zones = load(bytes, repair: false) ?? load(bytes, repair: true) else { return 0 }

  do {
    let written = try ZoneSetWriter.bytes(zones)
    let again = try ZoneLoader.loadZones(from: written)
    fuzzCheck(again == zones.sorted { $0.id < $1.id }, "zones written and loaded back differ")
  } catch is ZoneWriteError {
  } catch {
    fuzzCheck(false, "zones the writer wrote do not load back: \(error)")
  }

  var engine: ZoneEvaluator
  do {
    engine = try ZoneEvaluator(zones: zones)
  } catch is ZoneError {
    return 0
  } catch {
    fuzzCheck(false, "ZoneEvaluator.init threw \(type(of: error)): \(error)")
    return 0
  }
  var events: [ZoneEvent] = []
  var seconds: Int64 = 1_600_000_000
  for zone in zones.prefix(8) {
    var probes: [(latitude: Double, longitude: Double)] = []
    for fence in zone.fences.prefix(4) {
      switch fence.area {
      case .circle(let circle):
        probes.append((circle.center.latitude, circle.center.longitude))
      case .polygon(let multiPolygon):
        for vertex in multiPolygon.polygons.first?.exterior.prefix(3) ?? [] {
          probes.append((vertex.latitude, vertex.longitude))
        }
      }
    }
    for geoline in zone.geolines.prefix(2) {
      for vertex in geoline.line.vertices.prefix(3) {
        probes.append((vertex.latitude + 1e-4, vertex.longitude - 1e-4))
        probes.append((vertex.latitude - 1e-4, vertex.longitude + 1e-4))
      }
    }
    for probe in probes {
      seconds += 7
      engine.process(
        LocationFix(
          device: "probe", time: Timestamp(microsecondsSinceEpoch: seconds * 1_000_000),
          latitude: probe.latitude, longitude: probe.longitude, accuracy: 5, speed: 2, course: 45),
        into: &events)
    }
  }
  engine.advance(to: Timestamp(microsecondsSinceEpoch: (seconds + 86_400) * 1_000_000), into: &events)
  do {
    var fresh = try ZoneEvaluator(zones: zones.reversed())
    try fresh.restore(try EvaluatorSnapshot(decoding: engine.snapshot().encoded()))
  } catch {
    fuzzCheck(false, "the evaluator's snapshot does not restore: \(error)")
  }
  return 0
}

/// The zones of the bytes, or `nil` for a ``ZoneLoadError``; any other error breaks the
/// loader's contract.
private func load(_ bytes: [UInt8], repair: Bool) -> [Zone]? {
  do {
    return try ZoneLoader.loadZones(from: bytes, options: ZoneLoadOptions(repair: repair))
  } catch is ZoneLoadError {
    return nil
  } catch {
    fuzzCheck(false, "loadZones threw \(type(of: error)): \(error)")
    return nil
  }
}

/// Runs libFuzzer on ``fuzzZones(_:_:)`` (see ``FuzzSupport/runFuzzer(_:)``).
@main
enum FuzzZonesMain {
  static func main() { runFuzzer(fuzzZones) }
}
