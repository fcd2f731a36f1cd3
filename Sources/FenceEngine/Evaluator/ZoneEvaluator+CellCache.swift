import FenceGeometry
import FenceIndex

extension ZoneEvaluator {
  /// The filed fence lists of the cell holding a coordinate: from the cache, or made now and
  /// filed. `nil` when the cache is off, does not serve the coordinate (near a pole or
  /// longitude ±180) or cannot hold the cell's lists; the caller then searches the index.
  @inline(__always)
  mutating func cellEntry(latitude: Double, longitude: Double) -> ContainmentCellCache.Entry? {
    guard cellCache.isOn else { return nil }
    let key = ContainmentCellCache.key(latitude: latitude, longitude: longitude)
    guard key != 0 else { return nil }
    if cellCacheGeneration != zoneGeneration {
      cellCache.removeAll()
      cellCacheGeneration = zoneGeneration
    }
    if let entry = cellCache.lookup(key) { return entry }
    return fileCell(key)
  }

  /// Sorts the fences whose boxes meet the cell `key` and files the cell.
  mutating func fileCell(_ key: UInt64) -> ContainmentCellCache.Entry? {
    var inside: [Int32] = []
    var test: [Int32] = []
    swap(&inside, &scratchCellInside)
    swap(&test, &scratchCellTest)
    classifyFences(in: ContainmentCellCache.cell(key), inside: &inside, test: &test)
    let entry = cellCache.file(key, inside: inside, test: test)
    inside.empty()
    test.empty()
    swap(&inside, &scratchCellInside)
    swap(&test, &scratchCellTest)
    return entry
  }

  /// Appends the fences that cover every point of `cell` to `inside` and those that may cover
  /// part of it to `test` (see `CellRelation`). Not mutating, so that the search's closure
  /// borrows the evaluator.
  func classifyFences(in cell: BoundingBox, inside: inout [Int32], test: inout [Int32]) {
    let frame = Cell(cell)
    fenceIndex.search(intersecting: cell) { slot in
      let core = elementCores[Int(slot)]
      let relation: CellRelation
      switch core.kind {
      case .circle:
        relation = Circle.cellRelation(
          centerECEF: core.center, chordSquaredLimit: core.chordSquaredLimit, cell: frame)
      case .polygon:
        relation = polygonFences[Int(slot)]?.shape.relation(toCell: cell) ?? .outside
      case .geoline, .vacant:
        relation = .outside
      }
      switch relation {
      case .inside: inside.append(slot)
      case .mixed: test.append(slot)
      case .outside: break
      }
    }
  }

  /// Cells answered from the cache, and cells filed (both since the evaluator was made).
  public var cellCacheStatistics: (hits: Int, fills: Int) {
    (cellCache.hits, cellCache.fills)
  }
}
