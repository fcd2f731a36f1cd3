import FenceEngine

/// The engine's handle for each device of a track source (a ``FixTable``'s or a
/// ``PresortedTrackMerger``'s device index), so that the timed loop calls
/// `process(_:device:into:)` and never hashes a device name.
///
/// A handle is requested from the engine on the device's first fix in feeding order, so
/// devices register in the engine in the same order as when fixes are processed by name.
struct DeviceHandles {
  private var handles: [ZoneEvaluator.DeviceHandle?] = []

  /// The handle of the device with `index` in the source, named `name`, registering it in
  /// `evaluator` on first use.
  mutating func handle(
    forDevice index: Int, named name: @autoclosure () -> String,
    in evaluator: inout ZoneEvaluator
  ) -> ZoneEvaluator.DeviceHandle {
    if index >= handles.count {
      handles.append(contentsOf: repeatElement(nil, count: index + 1 - handles.count))
    }
    if let handle = handles[index] { return handle }
    let handle = evaluator.handle(forDevice: name())
    handles[index] = handle
    return handle
  }
}
