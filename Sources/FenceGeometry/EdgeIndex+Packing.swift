/// Reading an edge index's values, plain or packed as decimals (decision 0018).
///
/// Most of a large zone set's vertices are never read after loading: the harbor's fixes come
/// near a handful of the world's 27,743 time-zone polygons. An index of at least
/// ``EdgeIndex/smallEdgeCount`` edges whose values are exact decimals keeps them packed
/// (``DecimalPacking``, about 2 bytes a value for the time zones); the first query that reads
/// them unpacks them once and publishes the plain values (``PublishedOnce``), as the stripes
/// and chunk trees are (decision 0017). Readers that only pass through (a ring handed back, a
/// multipolygon's joined copy) unpack into a temporary array and keep nothing.
extension EdgeIndex {
  /// A packed index's values once unpacked: the object ``unpackedSlot`` holds.
  final class UnpackedEdges: Sendable {
    let values: ContiguousArray<Double>
    init(_ values: ContiguousArray<Double>) { self.values = values }
  }

  /// Calls `body` with the edge values (``valueCount`` of them, see there), unpacking and
  /// publishing them first if the index is packed and no query has unpacked it yet (on any
  /// thread). Plain: one branch more than reading the array; unpacked: one acquiring load and
  /// no reference counting.
  @inline(__always)
  func withEdges<R>(_ body: (UnsafeBufferPointer<Double>) throws -> R) rethrows -> R {
    if !isPacked { return try plainEdges.withUnsafeBufferPointer(body) }
    return try unpackedSlot.object { unpackEdges() }!._withUnsafeGuaranteedRef {
      try $0.values.withUnsafeBufferPointer(body)
    }
  }

  /// The values unpacked (for ``withEdges(_:)``'s first use).
  @inline(never)
  private func unpackEdges() -> UnpackedEdges {
    UnpackedEdges(DecimalPacking.unpacked(packedEdges, count: valueCount))
  }

  /// Calls `body` with the edge values, as ``withEdges(_:)`` does, but a packed index that no
  /// query has unpacked is unpacked into a temporary array, and stays packed: for readers that
  /// pass once (``singleChain()``, a multipolygon's joined index, equality).
  func withEdgesUnpublished<R>(_ body: (UnsafeBufferPointer<Double>) throws -> R) rethrows -> R {
    if !isPacked { return try plainEdges.withUnsafeBufferPointer(body) }
    if let unpacked = unpackedSlot.publishedObject {
      return try unpacked._withUnsafeGuaranteedRef { try $0.values.withUnsafeBufferPointer(body) }
    }
    return try withUnsafeTemporaryAllocation(of: Double.self, capacity: valueCount) { values in
      packedEdges.withUnsafeBufferPointer {
        DecimalPacking.unpack($0, count: valueCount, into: values.baseAddress!)
      }
      return try body(UnsafeBufferPointer(values))
    }
  }

  /// A copy of the edge values (tests); leaves a packed index packed.
  var edges: ContiguousArray<Double> {
    withEdgesUnpublished { ContiguousArray($0) }
  }

  /// Whether a packed index's values are unpacked (tests; a query unpacks them).
  var hasUnpackedEdges: Bool { unpackedSlot.publishedObject != nil }
}
