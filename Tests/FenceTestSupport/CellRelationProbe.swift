import FenceGeometry

/// Checks a cell relation's claim (`.inside`: every point of the cell is covered; `.outside`:
/// none is) at (n + 1)² points of the closed cell, its corners and edges included.
public enum CellRelationProbe {
  /// The number of points at which `contains(latitude, longitude)` contradicts `relation` (0
  /// for `.mixed`, which claims nothing).
  public static func contradictions(
    _ relation: CellRelation, cell: BoundingBox, n: Int = 8,
    contains: (Double, Double) -> Bool
  ) -> Int {
    guard relation != .mixed else { return 0 }
    var wrong = 0
    for i in 0...n {
      for j in 0...n {
        let latitude =
          i == n ? cell.north : cell.south + (cell.north - cell.south) * Double(i) / Double(n)
        let longitude =
          j == n ? cell.east : cell.west + (cell.east - cell.west) * Double(j) / Double(n)
        if contains(latitude, longitude) != (relation == .inside) { wrong += 1 }
      }
    }
    return wrong
  }
}
