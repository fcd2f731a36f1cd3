/// One or more polygons that together form one fence's area.
///
/// A position is inside when any part covers it (boundaries included). The edges of all parts
/// are filed in one stripe index at construction (O(*n*) for *n* vertices), so containment costs
/// the same for one part or hundreds; parts whose bounding boxes overlap are kept apart in it
/// (see `EdgeIndex+Stripes.swift`), so overlapping parts still answer "covered by some part".
public struct MultiPolygon: Hashable, Sendable {
  public let polygons: [Polygon]
  @usableFromInline
  let _boundingBox: BoundingBox
  /// The edges of every part filed by stripe in one index (a one-part multipolygon's is its
  /// part's own); nil when the parts are tested one by one (parts in different antimeridian
  /// frames, or more than 64 colours needed).
  let stripes: EdgeIndex?

  /// - Throws: ``GeometryError/Fault/empty`` when there are no polygons.
  public init(_ polygons: [Polygon], name: String = "multipolygon") throws {
    guard !polygons.isEmpty else { throw GeometryError(shape: name, fault: .empty) }
    self.polygons = polygons
    self._boundingBox = BoundingBox.union(polygons.map(\.boundingBox))
    self.stripes = MultiPolygon.combinedStripes(polygons)
  }

  /// A multipolygon of one polygon.
  public init(_ polygon: Polygon) {
    self.polygons = [polygon]
    self._boundingBox = polygon.boundingBox
    self.stripes = polygon.index
  }

  /// The number of vertices over all parts and rings.
  public var vertexCount: Int { polygons.reduce(0) { $0 + $1.vertexCount } }

  public static func == (lhs: MultiPolygon, rhs: MultiPolygon) -> Bool {
    lhs.polygons == rhs.polygons
  }
  public func hash(into hasher: inout Hasher) { hasher.combine(polygons) }

  /// One stripe index over the edges of all parts, coloured so that parts with overlapping
  /// boxes keep separate parities; nil when the parts do not share one longitude frame or need
  /// more than 64 colours.
  private static func combinedStripes(_ polygons: [Polygon]) -> EdgeIndex? {
    if polygons.count == 1 { return polygons[0].index }
    let parts = polygons.map(\.index)
    guard parts.allSatisfy({ $0.isUnwrapped == parts[0].isUnwrapped }) else { return nil }
    let boxes = parts.map { ($0.minX, $0.minY, $0.maxX, $0.maxY) }
    guard let colours = EdgeIndex.colouring(of: boxes) else { return nil }
    return EdgeIndex(joining: parts, colours: colours)
  }
}

extension BoundingBox {
  /// The smaller of two boxes holding all `boxes`: one with plain longitudes, and one that
  /// crosses the antimeridian (when no box spans longitude 0 without crossing).
  static func union(_ boxes: [BoundingBox]) -> BoundingBox {
    precondition(!boxes.isEmpty, "union of no boxes")
    let south = boxes.map(\.south).min() ?? 0
    let north = boxes.map(\.north).max() ?? 0
    var west = Double.infinity
    var east = -Double.infinity
    var unwrappedWest = Double.infinity
    var unwrappedEast = -Double.infinity
    var canUnwrap = true
    for box in boxes {
      if box.crossesAntimeridian {
        west = -180
        east = 180
        unwrappedWest = min(unwrappedWest, box.west)
        unwrappedEast = max(unwrappedEast, box.east + 360)
      } else {
        west = min(west, box.west)
        east = max(east, box.east)
        if box.west < 0 && box.east >= 0 { canUnwrap = false }
        let shift = box.east < 0 ? 360.0 : 0
        unwrappedWest = min(unwrappedWest, box.west + shift)
        unwrappedEast = max(unwrappedEast, box.east + shift)
      }
    }
    let plain = BoundingBox(south: south, west: west, north: north, east: east)
    guard canUnwrap, unwrappedEast - unwrappedWest < east - west else { return plain }
    if unwrappedEast - unwrappedWest >= 360 { return .allLongitudes(south: south, north: north) }
    let w = unwrappedWest > 180 ? unwrappedWest - 360 : unwrappedWest
    let e = unwrappedEast > 180 ? unwrappedEast - 360 : unwrappedEast
    return BoundingBox(south: south, west: w, north: north, east: e)
  }
}
