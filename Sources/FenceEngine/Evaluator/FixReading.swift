/// What the per-fix step reads of a ``LocationFix``: its time, position, accuracy, speed and
/// course, without its device name (the step knows the device by its slot, and events take the
/// name from the device's state).
///
/// A plain value: copying it retains nothing. The batch loop handed each `LocationFix` of its
/// buffer to the mutating per-fix step, and the compiler copied it there (a borrow from a
/// buffer cannot be lent across a call that mutates the evaluator), retaining and releasing its
/// name through the type's outlined copy: 8 % of the samples of a million devices' evaluation in
/// `perf`. The loop now reads each fix's fields in place into one of these.
struct FixReading {
  // Latitude and longitude first: the per-fix step reads them as one 16-byte pair, and copies
  // of the value are written 16 bytes at a time from its start. At offsets 8 and 16 (after the
  // time) that load spanned two such writes and could not be served from them: it waited for
  // both to reach the cache: 17 % of the step's own samples with a million devices (`perf
  // annotate` of `process`, session of 2026-12-03 late).
  var latitude: Double
  var longitude: Double
  var time: Timestamp
  var accuracy: Double?
  var speed: Double?
  var course: Double?

  /// The fields of `fix`.
  @inline(__always)
  init(_ fix: LocationFix) {
    self = withUnsafePointer(to: fix) { FixReading(at: $0) }
  }

  /// The fields of the fix at `fix`, read in place (no copy of its name).
  @inline(__always)
  init(at fix: UnsafePointer<LocationFix>) {
    latitude = fix.pointee.latitude
    longitude = fix.pointee.longitude
    time = fix.pointee.time
    accuracy = fix.pointee.accuracy
    speed = fix.pointee.speed
    course = fix.pointee.course
  }
}
