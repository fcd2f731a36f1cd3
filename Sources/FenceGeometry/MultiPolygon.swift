/// One or more polygons that together form one fence's area.
///
/// A position is inside when any part covers it (boundaries included). The edges of all parts
/// are filed in one stripe index, made by the first containment query (O(*n*) for *n*
/// vertices), so containment costs the same for one part or hundreds; parts whose bounding
/// boxes overlap are kept apart in it
/// (see `EdgeIndex+Stripes.swift`), so overlapping parts still answer "covered by some part".
public struct MultiPolygon: Hashable, Sendable {
  /// One part held in the value (most fences: a million one-part fences would otherwise each
  /// hold an array of one, about 100 bytes), or several behind one shared box.
  @usableFromInline
  enum Parts: Sendable {
    case one(Polygon)
    case many(ManyParts)
  }

  /// The parts of a multipolygon of several, their box and their joined containment index.
  @usableFromInline
  final class ManyParts: Sendable {
    let polygons: [Polygon]
    /// Each part's edge extent, in part order, held flat: the cell tests skip the parts whose
    /// extent misses a cell without reading (and retaining) the part's index.
    let extents: ContiguousArray<PartExtent>
    @usableFromInline let boundingBox: BoundingBox
    /// The joined containment index (``MultiPolygon/stripes``), made by the first query that
    /// needs it (a copy of every part's edges, four values an edge: most multipolygons of a
    /// large set are never asked; decision 0017), or ``noJoinedIndex`` when the parts are
    /// tested one by one.
    let joinedSlot = PublishedOnce<EdgeIndex>()

    /// The slot's value for "no joined index" (the parts tested one by one).
    static let noJoinedIndex = PublishedOnce<EdgeIndex>.nothing

    /// The parts keep their chunk trees' nodes (``Polygon/storingTreeNodes()``): the distance
    /// search bounds and measures many parts at every call.
    init(_ polygons: [Polygon]) {
      self.polygons = polygons.map { $0.storingTreeNodes() }
      extents = ContiguousArray(polygons.map { PartExtent($0.index) })
      boundingBox = BoundingBox.union(polygons.map(\.boundingBox))
    }

    deinit { joinedSlot.releaseObject() }

    /// The joined index, made and published first if no query has yet (on any thread).
    var stripes: EdgeIndex? {
      joinedSlot.object { MultiPolygon.combinedStripes(polygons) }?.takeUnretainedValue()
    }
  }

  @usableFromInline
  let parts: Parts

  /// - Throws: ``GeometryError/Fault/empty`` when there are no polygons.
  public init(_ polygons: [Polygon], name: String = "multipolygon") throws {
    guard let first = polygons.first else { throw GeometryError(shape: name, fault: .empty) }
    parts = polygons.count == 1 ? .one(first) : .many(ManyParts(polygons))
  }

  /// A multipolygon of one polygon.
  public init(_ polygon: Polygon) {
    parts = .one(polygon)
  }

  /// The parts in order.
  ///
  /// - Complexity: O(1), but one allocation for a multipolygon of one part (whose part is not
  ///   kept in an array); internal readers use ``partCount`` and ``partIndex(_:)``.
  public var polygons: [Polygon] {
    switch parts {
    case .one(let polygon): [polygon]
    case .many(let many): many.polygons
    }
  }

  /// The number of parts.
  var partCount: Int {
    switch parts {
    case .one: 1
    case .many(let many): many.polygons.count
    }
  }

  /// The edge index of part `k`, read in place.
  func partIndex(_ k: Int) -> EdgeIndex {
    switch parts {
    case .one(let polygon): polygon.index
    case .many(let many): many.polygons[k].index
    }
  }

  /// The box of all parts.
  @usableFromInline
  var _boundingBox: BoundingBox {
    switch parts {
    case .one(let polygon): polygon.boundingBox
    case .many(let many): many.boundingBox
    }
  }

  /// The edges of every part filed by stripe in one index (a one-part multipolygon's is its
  /// part's own); nil when the parts are tested one by one (parts in different antimeridian
  /// frames, or more than 64 colours needed).
  var stripes: EdgeIndex? {
    switch parts {
    case .one(let polygon): polygon.index
    case .many(let many): many.stripes
    }
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
  fileprivate static func combinedStripes(_ polygons: [Polygon]) -> EdgeIndex? {
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
