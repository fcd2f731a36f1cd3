/// A multipolygon's containment test that reads its stripe index without reference counting,
/// for tables of plain values on a hot path (the engine keeps one per polygon fence beside the
/// fence itself).
///
/// Calling ``MultiPolygon/contains(latitude:longitude:)`` through a copy of the multipolygon
/// retains and releases its buffers on every call (two atomic operations and about 150
/// instructions per test on the harbor workload). This value holds an unmanaged reference, so
/// copying it and testing through it touch no reference count.
///
/// - Important: it does not keep the index alive. The caller must keep the multipolygon it
///   came from (or a copy of it) alive for as long as it uses the test; the engine stores both
///   in the same evaluator value and replaces them together.
package struct UnretainedContainmentTest {
  let stripes: Unmanaged<EdgeIndex>

  /// The test whose ``address`` is `address` (non-zero).
  package init(address: UInt) {
    stripes = Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: address)!)
  }

  init(stripes: Unmanaged<EdgeIndex>) { self.stripes = stripes }

  /// The stripe index's address: never 0, so that a table of plain words can keep the test in 8
  /// bytes it shares with other kinds' values.
  package var address: UInt { UInt(bitPattern: stripes.toOpaque()) }

  /// The same answer as ``MultiPolygon/contains(latitude:longitude:)`` (boundary inside).
  @inline(__always)
  package func contains(latitude: Double, longitude: Double) -> Bool {
    stripes._withUnsafeGuaranteedRef { $0.covers(latitude: latitude, longitude: longitude) }
  }

  /// The same answer as ``MultiPolygon/relation(toCell:)``, or `nil` when the stripe index alone
  /// cannot give it (see `EdgeIndex.relation(toCell:)`): ask the multipolygon then.
  @inline(__always)
  package func relation(toCell cell: BoundingBox) -> CellRelation? {
    stripes._withUnsafeGuaranteedRef { $0.relation(toCell: cell) }
  }

  /// ``MultiPolygon/cellContainmentTest(cell:edgeLimit:edges:colours:)``, read unretained.
  package func cellContainmentTest(
    cell: BoundingBox, edgeLimit: Int, edges: inout [CellEdge], colours: inout [UInt8]
  ) -> CellContainmentTest? {
    stripes._withUnsafeGuaranteedRef {
      $0.cellContainmentTest(cell: cell, edgeLimit: edgeLimit, edges: &edges, colours: &colours)
    }
  }

  /// ``MultiPolygon/cellContainmentTest(box:within:parentEdges:parentColours:edgeLimit:edges:colours:)``,
  /// read unretained.
  package func cellContainmentTest(
    box: BoundingBox, within parent: CellContainmentTest, parentEdges: [CellEdge],
    parentColours: [UInt8], edgeLimit: Int, edges: inout [CellEdge], colours: inout [UInt8]
  ) -> CellContainmentTest? {
    stripes._withUnsafeGuaranteedRef {
      $0.cellContainmentTest(
        box: box, within: parent, parentEdges: parentEdges, parentColours: parentColours,
        edgeLimit: edgeLimit, edges: &edges, colours: &colours)
    }
  }
}

extension MultiPolygon {
  /// The unretained form of this multipolygon's containment test; nil when its parts are tested
  /// one by one (no combined stripe index). See ``UnretainedContainmentTest`` for the lifetime
  /// the caller must guarantee.
  package var unretainedContainmentTest: UnretainedContainmentTest? {
    stripes.map { UnretainedContainmentTest(stripes: Unmanaged.passUnretained($0)) }
  }
}
