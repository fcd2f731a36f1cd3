import FenceEngine
import FuzzSupport

/// The differential target: random fix streams (``DifferentialCase``) go to a
/// ``ZoneEvaluator`` and to the brute-force ``ReferenceEvaluator``, which must give the same
/// check-ins and check-outs for every fix, and the same accepted and rejected counts, whatever
/// the evaluator's configuration (cell cache size, skipping unchanged fixes, GEOS or native
/// polygons, speed and accuracy limits) and however often it is snapshotted and restored into
/// a fresh evaluator. `advance(to:)` must emit nothing (the zones have no dwell).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEvaluator(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  var input = FuzzBytes(UnsafeBufferPointer(start: data, count: size))
  let scenario = DifferentialCase(&input)
  guard !scenario.zones.isEmpty else { return 0 }
  var engine: ZoneEvaluator
  do {
    engine = try ZoneEvaluator(configuration: scenario.configuration, zones: scenario.zones)
  } catch {
    fuzzCheck(false, "the case's zones do not load: \(error)")
    return 0
  }
  var reference = ReferenceEvaluator(zones: scenario.zones, configuration: scenario.configuration)
  var events: [ZoneEvent] = []
  for (index, step) in scenario.steps.enumerated() {
    events.removeAll(keepingCapacity: true)
    switch step {
    case .fix(let fix):
      engine.process(fix, into: &events)
      let expected = reference.process(fix)
      let actual = events.map(ReferenceEvaluator.Event.init)
      fuzzCheck(
        actual == expected,
        "step \(index), \(fix): the evaluator gave \(actual), the reference \(expected)")
    case .advance(let time):
      engine.advance(to: time, into: &events)
      fuzzCheck(events.isEmpty, "step \(index): advance emitted \(events)")
    case .snapshotRoundTrip:
      do {
        let bytes = engine.snapshot().encoded()
        var fresh = try ZoneEvaluator(
          configuration: scenario.configuration, zones: scenario.zones.reversed())
        try fresh.restore(try EvaluatorSnapshot(decoding: bytes))
        engine = fresh
      } catch {
        fuzzCheck(false, "step \(index): the snapshot does not restore: \(error)")
      }
    }
  }
  fuzzCheck(
    engine.acceptedFixCount == reference.acceptedFixCount,
    "accepted \(engine.acceptedFixCount), the reference \(reference.acceptedFixCount)")
  for reason in RejectionReason.allCases {
    fuzzCheck(
      engine.rejections[reason] == reference.rejections[reason, default: 0],
      "\(reason) rejections: \(engine.rejections[reason]), the reference \(reference.rejections[reason, default: 0])")
  }
  return 0
}

/// Runs libFuzzer on ``fuzzEvaluator(_:_:)`` (see ``FuzzSupport/runFuzzer(_:)``).
@main
enum FuzzEvaluatorMain {
  static func main() { runFuzzer(fuzzEvaluator) }
}
