import FenceEngine
import FenceGeometry
import FuzzSupport

/// Snapshot bytes: ``EvaluatorSnapshot/init(decoding:)`` and ``ZoneEvaluator/restore(_:)``.
///
/// The first byte chooses how the rest is used and the configuration restored into. With an
/// even first byte the rest is decoded as it is (almost always stopped by the checksum). With an
/// odd one the rest is a snapshot's body after its zone fingerprint: the target adds the header,
/// the fingerprint of ``FixtureZones`` and the checksum, so that the fuzzer explores what the
/// decoder and a restore do with every field. The seed corpus holds such bodies, cut from
/// snapshots of evaluators loaded with ``FixtureZones``.
///
/// Decoding must end in a snapshot or a ``SnapshotError``, never trap. A decoded snapshot must
/// encode to bytes that decode to a snapshot encoding the same. A restore must succeed or throw
/// a ``SnapshotError``; an evaluator restored from any snapshot must then process fixes and
/// advance without trapping, and snapshot and restore again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSnapshot(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  let input = Array(UnsafeBufferPointer(start: data, count: size))
  guard let mode = input.first else { return 0 }
  let configurations: [ZoneEvaluator.Configuration] = [
    .default,
    ZoneEvaluator.Configuration(skipsUnchangedFixes: true),
    ZoneEvaluator.Configuration(
      proximity: ZoneEvaluator.ProximityMonitoring(count: 2, radius: 800, triggersOnlyMonitored: true)),
    ZoneEvaluator.Configuration(maximumSpeed: 40, reportsRejections: true, cellCacheCapacity: 0),
  ]
  let configuration = configurations[Int(mode >> 1) % configurations.count]
  let zones = FixtureZones.zones()
  var engine: ZoneEvaluator
  do {
    engine = try ZoneEvaluator(configuration: configuration, zones: zones)
  } catch {
    fatalError("the fixture zones do not load: \(error)")
  }
  let bytes = mode & 1 == 0 ? Array(input.dropFirst()) : wrap(Array(input.dropFirst()), fingerprint: engine.zoneFingerprint)

  let snapshot: EvaluatorSnapshot
  do {
    snapshot = try EvaluatorSnapshot(decoding: bytes)
  } catch is SnapshotError {
    return 0
  } catch {
    fuzzCheck(false, "decoding threw \(type(of: error)): \(error)")
    return 0
  }
  let encoded = snapshot.encoded()
  do {
    let again = try EvaluatorSnapshot(decoding: encoded)
    fuzzCheck(again.encoded() == encoded, "a decoded snapshot's encoding does not encode the same after decoding")
  } catch {
    fuzzCheck(false, "a decoded snapshot's encoding does not decode: \(error)")
  }

  do {
    try engine.restore(snapshot)
  } catch is SnapshotError {
    return 0
  } catch {
    fuzzCheck(false, "restore threw \(type(of: error)): \(error)")
    return 0
  }
  exercise(&engine, devices: Array(snapshot.deviceNames.prefix(4)), from: snapshot.time)
  do {
    var fresh = try ZoneEvaluator(configuration: configuration, zones: zones.reversed())
    try fresh.restore(try EvaluatorSnapshot(decoding: engine.snapshot().encoded()))
  } catch {
    fuzzCheck(false, "a restored evaluator's own snapshot does not restore: \(error)")
  }
  return 0
}

/// A snapshot of the current format around `body`: magic, version, length, `fingerprint`,
/// the body, and the checksum.
private func wrap(_ body: [UInt8], fingerprint: UInt64) -> [UInt8] {
  var bytes: [UInt8] = Array("FKES".utf8)
  func append(_ value: UInt64, _ count: Int) {
    for index in 0..<count { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(8 * index))) }
  }
  append(UInt64(EvaluatorSnapshot.formatVersion), 2)
  append(UInt64(14 + 8 + body.count + 8), 8)
  append(fingerprint, 8)
  bytes.append(contentsOf: body)
  var hash: UInt64 = 0xcbf2_9ce4_8422_2325
  for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
  append(hash, 8)
  return bytes
}

/// Moves each device around the fixture zones for a while after the snapshot's time, then
/// advances a day.
private func exercise(_ engine: inout ZoneEvaluator, devices: [String], from time: Timestamp?) {
  var events: [ZoneEvent] = []
  let start = time ?? Timestamp(microsecondsSinceEpoch: 1_600_000_000_000_000)
  for (index, stop) in FixtureZones.stops.enumerated() {
    for device in devices + ["newcomer"] {
      let fix = LocationFix(
        device: device, time: later(start, seconds: 10 * Int64(index + 1)),
        latitude: stop.latitude, longitude: stop.longitude, speed: 3, course: 90)
      engine.process(fix, into: &events)
    }
  }
  engine.advance(to: later(start, seconds: 86_400), into: &events)
}

/// `seconds` after `time`, or the last representable instant (the snapshot's time may be any).
private func later(_ time: Timestamp, seconds: Int64) -> Timestamp {
  let (sum, overflow) = time.microsecondsSinceEpoch.addingReportingOverflow(seconds * 1_000_000)
  return Timestamp(microsecondsSinceEpoch: overflow ? .max : sum)
}

/// Runs libFuzzer on ``fuzzSnapshot(_:_:)`` (see ``FuzzSupport/runFuzzer(_:)``).
@main
enum FuzzSnapshotMain {
  static func main() { runFuzzer(fuzzSnapshot) }
}
