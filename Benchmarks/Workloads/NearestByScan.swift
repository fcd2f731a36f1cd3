import FenceGeometry
import FenceIndex

/// The brute-force reference for nearest-N: measure every circle, keep the `count` nearest
/// within `radius` (by distance, then id) in a buffer reused across calls.
public struct NearestByScan {
  public let circles: [Circle]

  public init(circles: [Circle]) {
    self.circles = circles
  }

  /// Fills `results` (cleared first; its capacity is reused) with up to `count` circles nearest
  /// to `position` within `radius` metres, sorted by distance then id.
  ///
  /// - Complexity: O(*n* · *count*) for *n* circles in the worst case; O(*n*) when few are near.
  public func nearest(
    to position: Position, count: Int, within radius: Double,
    into results: inout [RTree.Neighbor]
  ) {
    results.removeAll(keepingCapacity: true)
    guard count > 0 else { return }
    circles.withUnsafeBufferPointer { circles in
      for index in circles.indices {
        let distance = circles[index].distance(from: position.ecef)
        guard distance <= radius else { continue }
        let candidate = RTree.Neighbor(id: Int32(index), distance: distance)
        if results.count == count {
          guard let last = results.last, Self.precedes(candidate, last) else { continue }
          results.removeLast()
        }
        // Insertion into the short sorted buffer.
        var slot = results.count
        results.append(candidate)
        while slot > 0, Self.precedes(candidate, results[slot - 1]) {
          results[slot] = results[slot - 1]
          slot -= 1
        }
        results[slot] = candidate
      }
    }
  }

  static func precedes(_ a: RTree.Neighbor, _ b: RTree.Neighbor) -> Bool {
    a.distance != b.distance ? a.distance < b.distance : a.id < b.id
  }
}
