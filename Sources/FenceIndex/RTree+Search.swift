import FenceGeometry

extension RTree {
  /// Calls `visit` with the id of every item whose box holds the position (edges included).
  ///
  /// Longitudes 180 and -180 name the same meridian. Each id is reported once, in no particular
  /// order. Nothing is reported for a NaN position. Allocates nothing.
  ///
  /// - Complexity: O(log *n* + *k*) for *k* results in the packed tree, plus a scan of the tail
  ///   of recent inserts (at most 128 entries).
  ///
  /// A copy of the tree is searched (its arrays retained and released once): a caller that
  /// holds the tree in mutable storage and searches it often calls
  /// ``searchInPlace(containing:longitude:_:)`` instead.
  public func search(containing latitude: Double, longitude: Double, _ visit: (Int32) -> Void) {
    var tree = self
    tree.searchInPlace(containing: latitude, longitude: longitude, visit)
  }

  /// ``search(containing:longitude:_:)`` on the tree where it lies. It changes nothing:
  /// `mutating` only so that the tree is passed by reference. Passed as a value, the tree (about
  /// 640 bytes) is copied to the stack at every call that is not inlined; see
  /// `Docs/Decisions/0013-large-values-in-place.md`.
  @inlinable
  public mutating func searchInPlace(
    containing latitude: Double, longitude: Double, _ visit: (Int32) -> Void
  ) {
    guard abs(longitude) != 180 else {
      // The meridian is both ends of the planar range: search it as a crossing box, which
      // reports items touching either end once.
      search(
        intersecting: BoundingBox(south: latitude, west: 180, north: latitude, east: -180), visit)
      return
    }
    // Away from the antimeridian a point meets at most one part of a crossing item.
    if mainGrid != nil {
      main.entries.boxes.withUnsafeBufferPointer { boxes in
        guard let boxes = boxes.baseAddress else { return }
        mainGrid!.forEachID(containingX: longitude, y: latitude, boxes: boxes, visit)
      }
      if mainWide.entryCount > 0 {
        mainWide.forEachLiveID(containingX: longitude, y: latitude, visit)
      }
    } else {
      main.forEachLiveID(containingX: longitude, y: latitude, visit)
    }
    if delta.entryCount > 0 {
      delta.forEachLiveID(containingX: longitude, y: latitude, visit)
    }
    if tail.count > 0 {
      tail.boxes.withUnsafeBufferPointer { boxes in
        for slot in 0..<tail.count {
          let b = 4 * slot
          if longitude >= boxes[b] && latitude >= boxes[b + 1] && longitude <= boxes[b + 2]
            && latitude <= boxes[b + 3]
          {
            visit(tail.id(at: slot))
          }
        }
      }
    }
  }

  /// Calls `visit` with the id of every item whose box shares a point with `box`.
  ///
  /// `box` may cross the antimeridian (`west > east`); longitudes 180 and -180 name the same
  /// meridian, so a box ending at 180 meets one starting at -180. Boundaries count: touching
  /// boxes intersect. Each id is reported once. Nothing is reported for a box with NaN edges.
  /// Allocates nothing.
  ///
  /// - Complexity: O(log *n* + *k*) for *k* results, plus a scan of the tail.
  public func search(intersecting box: BoundingBox, _ visit: (Int32) -> Void) {
    guard let queries = QueryParts(box) else { return }
    for part in 0..<queries.count {
      let q = queries[part]
      // A local function, not a closure value, so that its context stays on the stack.
      func accepts(_ b: UnsafePointer<Double>) -> Bool {
        b[0] <= q.east && b[2] >= q.west && b[1] <= q.north && b[3] >= q.south
      }
      main.forEachEntry(where: accepts(_:)) { slot in
        if reports(slot, in: .main, queryPart: part, of: queries) { visit(main.entries.id(at: slot)) }
      }
      delta.forEachEntry(where: accepts(_:)) { slot in
        if reports(slot, in: .delta, queryPart: part, of: queries) {
          visit(delta.entries.id(at: slot))
        }
      }
      tail.boxes.withUnsafeBufferPointer { boxes in
        guard let base = boxes.baseAddress else { return }
        for slot in 0..<tail.count where accepts(base + 4 * slot) {
          if reports(slot, in: .tail, queryPart: part, of: queries) { visit(tail.id(at: slot)) }
        }
      }
    }
  }

  /// Calls `visit` with the id of every item whose box may lie within `radius` metres of
  /// `position`: those whose ``lowerBoundDistance(from:to:)`` is at most `radius`.
  ///
  /// The bound never exceeds the true WGS84 distance, so no item closer than `radius` is missed;
  /// items a little farther may be reported (the caller tests the exact shape). A negative or
  /// NaN radius reports nothing. Each id is reported once. Allocates nothing.
  public func search(within radius: Double, of position: Position, _ visit: (Int32) -> Void) {
    let probe = SphericalBoxDistance(latitude: position.latitude, longitude: position.longitude)
    let limit = SphericalBoxDistance.haversineLimit(metres: radius)
    guard limit >= 0 else { return }
    // Any point of a box whose latitudes all differ from the position's by more than this is
    // farther than the radius (the meridian arc is the shortest way between latitudes).
    let band = radius / SphericalBoxDistance.radius * 180 / .pi
    let low = position.latitude - band
    let high = position.latitude + band
    // Local functions, not closure values, so that their contexts stay on the stack.
    func accepts(_ b: UnsafePointer<Double>) -> Bool {
      b[3] >= low && b[1] <= high
        && probe.haversine(west: b[0], south: b[1], east: b[2], north: b[3]) <= limit
    }
    func reports(_ entries: EntryList, _ slot: Int, _ layer: Layer) -> Bool {
      let flags = entries.flags[slot]
      if flags.isEmpty || flags == .firstPart { return true }
      if flags.contains(.removed) { return false }
      // The eastern part reports only when the western part does not.
      let first = self.partner(of: slot, in: layer)
      let b = 4 * first
      let h = probe.haversine(
        west: entries.boxes[b], south: entries.boxes[b + 1], east: entries.boxes[b + 2],
        north: entries.boxes[b + 3])
      return !(h <= limit)
    }
    main.forEachEntry(where: accepts(_:)) { slot in
      if reports(main.entries, slot, .main) { visit(main.entries.id(at: slot)) }
    }
    delta.forEachEntry(where: accepts(_:)) { slot in
      if reports(delta.entries, slot, .delta) { visit(delta.entries.id(at: slot)) }
    }
    tail.boxes.withUnsafeBufferPointer { boxes in
      guard let base = boxes.baseAddress else { return }
      for slot in 0..<tail.count where accepts(base + 4 * slot) {
        if reports(tail, slot, .tail) { visit(tail.id(at: slot)) }
      }
    }
  }

  // MARK: - Reporting each id once

  /// The slot of the other part of the crossing item whose part is at `slot`.
  func partner(of slot: Int, in layer: Layer) -> Int {
    let entries = entries(in: layer)
    let flags = entries.flags[slot]
    precondition(!flags.isDisjoint(with: .crossingPart), "Entry \(slot) in \(layer) has no partner")
    switch layer {
    case .tail:
      return flags.contains(.firstPart) ? slot + 1 : slot - 1
    case .main, .delta:
      let tree = layer == .main ? main : delta
      guard let (a, b) = tree.slots(of: entries.id(at: slot)), let b else {
        preconditionFailure("Crossing item \(entries.id(at: slot)) has one part in \(layer)")
      }
      return a == slot ? b : a
    }
  }

  /// Whether the entry at `slot`, found by query part `queryPart`, is where its item is reported.
  ///
  /// The rule that reports every id once without remembering what was reported: an item is
  /// reported at the first (query part, item part) pair that intersects, in the order (first
  /// query part, western item part), (first, eastern), (second, western), (second, eastern).
  /// Every earlier pair is tested again from the boxes at hand.
  private func reports(_ slot: Int, in layer: Layer, queryPart: Int, of queries: QueryParts)
    -> Bool
  {
    let entries = entries(in: layer)
    let flags = entries.flags[slot]
    if flags.contains(.removed) { return false }
    let own = PlanarBox(entries, slot)
    if flags.isEmpty {
      return queryPart == 0 || !own.intersects(queries[0])
    }
    let other = PlanarBox(entries, partner(of: slot, in: layer))
    let isWestern = flags.contains(.firstPart)
    let western = isWestern ? own : other
    let eastern = isWestern ? other : own
    for q in 0...queryPart {
      if western.intersects(queries[q]) { return q == queryPart && isWestern }
      if q == queryPart { return true }  // reached the eastern part at the current query part
      if eastern.intersects(queries[q]) { return false }
    }
    return true
  }
}

/// A planar box (`west <= east`) in degrees.
struct PlanarBox: Sendable {
  var west: Double
  var south: Double
  var east: Double
  var north: Double

  init(west: Double, south: Double, east: Double, north: Double) {
    self.west = west
    self.south = south
    self.east = east
    self.north = north
  }

  init(_ entries: EntryList, _ slot: Int) {
    let b = 4 * slot
    self.init(
      west: entries.boxes[b], south: entries.boxes[b + 1], east: entries.boxes[b + 2],
      north: entries.boxes[b + 3])
  }

  func intersects(_ other: PlanarBox) -> Bool {
    west <= other.east && east >= other.west && south <= other.north && north >= other.south
  }
}

/// A search box as one or two planar boxes, with the antimeridian's two names joined.
///
/// A crossing box gives its two planar parts. A box that reaches 180 (or -180) without crossing
/// also touches the same meridian at -180 (or 180): a degenerate second part stands for it, so
/// planar intersection finds items stored on the other side.
struct QueryParts: Sendable {
  let first: PlanarBox
  let second: PlanarBox?

  /// The parts of `box`, or `nil` when an edge is NaN or south is above north.
  init?(_ box: BoundingBox) {
    guard box.south <= box.north, box.west.isFinite, box.east.isFinite, box.south.isFinite,
      box.north.isFinite
    else { return nil }
    let s = box.south
    let n = box.north
    if box.west > box.east {
      first = PlanarBox(west: box.west, south: s, east: 180, north: n)
      second = PlanarBox(west: -180, south: s, east: box.east, north: n)
    } else if box.west <= -180 && box.east >= 180 {
      first = PlanarBox(west: box.west, south: s, east: box.east, north: n)
      second = nil
    } else if box.east >= 180 {
      first = PlanarBox(west: box.west, south: s, east: box.east, north: n)
      second = PlanarBox(west: -180, south: s, east: -180, north: n)
    } else if box.west <= -180 {
      first = PlanarBox(west: box.west, south: s, east: box.east, north: n)
      second = PlanarBox(west: 180, south: s, east: 180, north: n)
    } else {
      first = PlanarBox(west: box.west, south: s, east: box.east, north: n)
      second = nil
    }
  }

  var count: Int { second == nil ? 1 : 2 }

  subscript(index: Int) -> PlanarBox {
    if index == 0 { return first }
    guard let second else { preconditionFailure("Query part \(index) of \(count)") }
    return second
  }
}
