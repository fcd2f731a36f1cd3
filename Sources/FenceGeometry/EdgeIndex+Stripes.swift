/// The stripes of an edge index: its edges bucketed into horizontal stripes for the
/// point-in-polygon test, so that a query reads only the edges filed in its stripe.
///
/// Stripe `s` holds the numbers of the edges whose latitude range overlaps it, one after the
/// other in `edgeNumbers[offsets[s] ..< offsets[s + 1]]`; the edges themselves are the index's
/// own, kept once. A stripe's edges are mostly runs of neighbours along a ring, so reading them
/// through their numbers stays close in memory. This is the "y-stripes" idea of tidwall/tg,
/// written for this project. (The entries were copies of the edges, 32 bytes each and up to
/// four per edge: most of the memory of large polygons.) One stripe over one part needs no
/// table: its entries are all the edges.
///
/// The numbers take 2 bytes each when the index has at most 65,536 edges (every number fits a
/// `UInt16`: almost every polygon), else 4 (two `UInt16` halves read as one `UInt32`): the
/// time-zone polygons' stripes held about four 4-byte entries an edge. The offsets likewise take
/// 2 bytes each while the entries number at most 65,535, else 4 in two halves
/// (``stripeOffset(_:)``): with up to two stripes an edge they were 6.1 MB of the time zones'
/// 21 MB of stripes at 4 bytes.
///
/// Every edge carries a *colour* (0 to 63): the crossing parity is kept per colour, and a
/// point is covered when any colour's parity is odd. One polygon, or the parts of a valid
/// multipolygon, need a single colour; parts whose bounding boxes overlap get different colours
/// (see ``colouring(of:)``), so that parts which overlap (an invalid multipolygon that was
/// accepted part by part) still answer "covered by some part" exactly.
extension EdgeIndex {
  /// Shapes with fewer edges than this are scanned whole: a stripe would not pay for itself.
  static let smallEdgeCount = 32

  /// Colour 0 for up to 65,536 edges, shared by every index of one part of colour 0 with no
  /// more edges than that: a query reads only as many as the index has edges. 64 KB once, where
  /// 4,096 left each of the time zones' larger polygons a zero colour per edge (0.99 MB).
  static let zeroColours = ContiguousArray<UInt8>(repeating: 0, count: 65_536)

  /// The stripe table of some edges: how many stripes, their scale, and per stripe the numbers
  /// of its edges (see the type's notes).
  struct Stripes: Sendable {
    var count = 1
    var scale = 0.0
    /// `count + 1` offsets, 2 bytes each, or 4 in two halves (see the type's notes).
    var offsets: ContiguousArray<UInt16> = []
    var edgeNumbers: ContiguousArray<UInt16> = []
  }

  /// An index's stripes once filed: the object its ``stripeSlot`` holds.
  final class StripeTable: Sendable {
    let stripes: Stripes
    init(_ stripes: Stripes) { self.stripes = stripes }
  }

  /// The table of one stripe over one part (no offsets, no numbers), shared by every index that
  /// small (most polygons), never released.
  static let emptyStripeTable = UInt(
    bitPattern: Unmanaged.passRetained(StripeTable(Stripes())).toOpaque())

  /// What a new index's stripe slot holds: the shared empty table when `edgeCount` edges of one
  /// part are scanned whole anyway (``fileStripes`` would file one stripe), else 0 (filed on
  /// first use).
  static func initialStripeSlot(edgeCount: Int, parts: Int) -> UInt {
    edgeCount < smallEdgeCount && parts == 1 ? emptyStripeTable : 0
  }

  /// Calls `body` with the stripes, filing them first if no query has yet (on any thread):
  /// once filed, one acquiring load and no reference counting (``PublishedOnce``).
  @inline(__always)
  func withStripes<R>(_ body: (Stripes) -> R) -> R {
    stripeSlot.object { makeStripeTable() }!._withUnsafeGuaranteedRef { body($0.stripes) }
  }

  /// The stripes filed (for ``withStripes(_:)``'s first use).
  @inline(never)
  private func makeStripeTable() -> StripeTable {
    withEdges(makeStripeTable(edges:))
  }

  /// The stripes of this index's `edges` (its values, unpacked): for ``withStripes(_:)`` and
  /// ``buildTablesAhead(stripes:tree:)``.
  func makeStripeTable(edges: UnsafeBufferPointer<Double>) -> StripeTable {
    StripeTable(
      EdgeIndex.fileStripes(
        edges: edges, stride: edgeStride, edgeCount: edgeCount, minY: minY, maxY: maxY,
        parts: partCount))
  }

  /// Whether the stripes are filed (tests; a query files them).
  var hasFiledStripes: Bool { stripeSlot.isPublished }

  /// Number of latitude stripes, at least 1 (files the stripes when not yet filed).
  var stripeCount: Int { withStripes { $0.count } }
  /// Stripes per degree, 0 for one stripe (files the stripes when not yet filed).
  var stripeScale: Double { withStripes { $0.scale } }
  /// `stripeCount + 1` offsets into ``edgeNumbers``, 2 bytes each or (more than 65,535 entries)
  /// 4 in two halves (``stripeOffset(_:)``); empty when one stripe holds every edge of one part
  /// (its entries are then all the edges: most small polygons).
  var offsets: ContiguousArray<UInt16> { withStripes { $0.offsets } }
  /// The entries: per stripe, the numbers of its edges, 2 bytes each or (more than 65,536
  /// edges) 4 in two halves (``stripeEntry(_:)``). Empty when one stripe holds every edge of one
  /// part.
  var edgeNumbers: ContiguousArray<UInt16> { withStripes { $0.edgeNumbers } }

  /// The most edges whose numbers are stored in 2 bytes (see the type's notes).
  static let narrowEdgeLimit = 1 << 16

  /// The most stripe entries whose offsets are stored in 2 bytes (see the type's notes).
  static let narrowOffsetLimit = Int(UInt16.max)

  /// Where stripe `s`'s entries start (`s` up to ``stripeCount``, whose offset is the number
  /// of entries); only for an index with offsets (more than one stripe, or several parts).
  func stripeOffset(_ s: Int) -> Int {
    withStripes { stripes in
      stripes.offsets.withUnsafeBufferPointer {
        Self.value($0, s, narrow: $0.count == stripes.count + 1)
      }
    }
  }

  /// Value `k` of an array of 2-byte words holding values of one width: word `k` when
  /// `narrow`, else words `2k` and `2k + 1` read as one `UInt32` (the stripes' edge numbers and
  /// offsets).
  @inline(__always)
  static func value(_ words: UnsafeBufferPointer<UInt16>, _ k: Int, narrow: Bool) -> Int {
    if narrow { return Int(words[k]) }
    return Int(UnsafeRawBufferPointer(words).load(fromByteOffset: 4 &* k, as: UInt32.self))
  }

  /// Stores `value` as value `k` of such an array (see ``value(_:_:narrow:)``).
  @inline(__always)
  static func store(
    _ value: Int, _ k: Int, in words: UnsafeMutableBufferPointer<UInt16>, narrow: Bool
  ) {
    if narrow {
      words[k] = UInt16(truncatingIfNeeded: value)
    } else {
      UnsafeMutableRawBufferPointer(words).storeBytes(
        of: UInt32(value), toByteOffset: 4 * k, as: UInt32.self)
    }
  }

  /// Whether an index of `edgeCount` edges stores its stripes' edge numbers in 2 bytes.
  @inline(__always)
  static func hasNarrowEdgeNumbers(edgeCount: Int) -> Bool { edgeCount <= narrowEdgeLimit }

  /// Files `edgeCount` edges (at `stride` in `edges`) whose latitudes span `minY ... maxY`, of
  /// `parts` parts, by latitude stripe.
  static func fileStripes(
    edges e: UnsafeBufferPointer<Double>, stride edgeStride: Int, edgeCount: Int, minY: Double,
    maxY: Double, parts: Int
  ) -> Stripes {
    precondition(edgeCount < Int(UInt32.max), "too many edges")
    var heightSum = 0.0
    for k in 0..<edgeCount { heightSum += abs(e[edgeStride * k + 3] - e[edgeStride * k + 1]) }
    let height = maxY - minY
    // A horizontal line crosses about heightSum / height edges whatever the stripe count, and a
    // stripe holds those plus edgeCount / stripes edges that end inside it: aim for two stripes
    // per edge, but cap the entries at about four per edge for jagged outlines, where every
    // stripe is crossed by many tall edges.
    var stripes = 1
    if edgeCount >= smallEdgeCount, height > 0 {
      let byMemory = heightSum > 0 ? 3 * Double(edgeCount) * height / heightSum : 1
      stripes = Int(max(1, min(2 * Double(edgeCount), byMemory, Double(1 << 22))))
    }
    let scale = stripes > 1 ? Double(stripes) / height : 0
    // One stripe over one part: its entries are its edges in their order, no numbers needed.
    if stripes == 1, parts == 1 { return Stripes() }

    // A counting sort in temporary allocations: each edge's first and last stripe, worked out
    // once (two 4-byte numbers an edge), and one array of cursors (4 bytes a stripe). An edge adds 1 to its
    // first stripe's count and takes it off after its last (`cursors[s + 1]` holds stripe s's
    // running difference), so the counts cost one pass whatever the edges' heights; their sums
    // make `cursors[s]` where stripe s starts, and filing moves it to where stripe s ends (the
    // next one's start), from which the offsets are read. (Working out each edge's stripes
    // twice, and counting stripe by stripe, made the harbor's tables cost about 36 ns an edge.)
    return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: stripes + 2) { cursors in
      withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 2 * edgeCount) { ranges in
        cursors.initialize(repeating: 0)
        var total = 0
        for k in 0..<edgeCount {
          let i = edgeStride &* k
          let y0 = e[i &+ 1]
          let y1 = e[i &+ 3]
          let first = stripe(min(y0, y1), minY: minY, scale: scale, count: stripes)
          let final = stripe(max(y0, y1), minY: minY, scale: scale, count: stripes)
          ranges[2 &* k] = UInt32(truncatingIfNeeded: first)
          ranges[2 &* k &+ 1] = UInt32(truncatingIfNeeded: final)
          cursors[first &+ 1] &+= 1
          cursors[final &+ 2] &-= 1
          total &+= final &- first &+ 1
        }
        precondition(total < Int(Int32.max), "too many stripe entries")
        // Differences to counts (the running sum of `cursors[s + 1]` is stripe s's), and counts
        // to starts, in one pass: `cursors[s]` is written after `cursors[s + 1]` is read.
        var count: UInt32 = 0
        var start: UInt32 = 0
        for s in 0..<stripes {
          count &+= cursors[s &+ 1]
          cursors[s] = start
          start &+= count
        }
        let narrow = hasNarrowEdgeNumbers(edgeCount: edgeCount)
        let numbers = ContiguousArray<UInt16>(
          unsafeUninitializedCapacity: narrow ? total : 2 * total
        ) { numbers, initialized in
          if narrow {
            for k in 0..<edgeCount {
              let number = UInt16(truncatingIfNeeded: k)
              for s in Int(ranges[2 &* k])...Int(ranges[2 &* k &+ 1]) {
                numbers[Int(cursors[s])] = number
                cursors[s] &+= 1
              }
            }
          } else {
            let words = UnsafeMutableRawPointer(numbers.baseAddress!)
            for k in 0..<edgeCount {
              let number = UInt32(truncatingIfNeeded: k)
              for s in Int(ranges[2 &* k])...Int(ranges[2 &* k &+ 1]) {
                words.storeBytes(of: number, toByteOffset: 4 &* Int(cursors[s]), as: UInt32.self)
                cursors[s] &+= 1
              }
            }
          }
          initialized = numbers.count
        }
        let narrowOffsets = total <= narrowOffsetLimit
        let offsets = ContiguousArray<UInt16>(
          unsafeUninitializedCapacity: narrowOffsets ? stripes + 1 : 2 * (stripes + 1)
        ) { offsets, initialized in
          store(0, 0, in: offsets, narrow: narrowOffsets)
          for s in 0..<stripes { store(Int(cursors[s]), s &+ 1, in: offsets, narrow: narrowOffsets) }
          initialized = offsets.count
        }
        return Stripes(count: stripes, scale: scale, offsets: offsets, edgeNumbers: numbers)
      }
    }
  }

  /// The stripe holding a latitude; latitudes outside the extent give the nearest end stripe.
  ///
  /// Monotone in `y`, so an edge filed under the stripes of its lowest and highest latitude is
  /// found from any latitude in between.
  @inline(__always)
  static func stripe(_ y: Double, minY: Double, scale: Double, count: Int) -> Int {
    let s = (y - minY) * scale
    if !(s > 0) { return 0 }
    if s >= Double(count - 1) { return count - 1 }
    return Int(s)
  }

  /// Colours for parts with the given frame extents (`minX, minY, maxX, maxY`): parts whose
  /// boxes overlap (not merely touch) get different colours, so that no two parts of one colour
  /// share an interior point. Nil when that takes more than 64 colours.
  ///
  /// Greedy, in order of the boxes' southern edges, against the parts still overlapping in
  /// latitude: O(*p*·*a*) for *p* parts and *a* boxes active at once.
  static func colouring(of boxes: [(Double, Double, Double, Double)]) -> [UInt8]? {
    let order = boxes.indices.sorted { boxes[$0].1 < boxes[$1].1 }
    var colours = [UInt8](repeating: 0, count: boxes.count)
    var active: [Int] = []
    for i in order {
      let box = boxes[i]
      active.removeAll { boxes[$0].3 <= box.1 }
      var used: UInt64 = 0
      for j in active where boxes[j].0 < box.2 && box.0 < boxes[j].2 && box.1 < boxes[j].3 {
        used |= 1 << UInt64(colours[j])
      }
      guard used != .max else { return nil }
      colours[i] = UInt8((~used).trailingZeroBitCount)
      active.append(i)
    }
    return colours
  }

  /// Whether the polygon(s) cover a position, boundaries included; a position at longitude
  /// ±180 is also tried at ∓180 (the same meridian).
  @inline(__always)
  func covers(latitude: Double, longitude: Double) -> Bool {
    if isUnwrapped { return covers(x: longitude < 0 ? longitude + 360 : longitude, y: latitude) }
    if covers(x: longitude, y: latitude) { return true }
    return abs(longitude) == 180 && covers(x: -longitude, y: latitude)
  }

  /// Whether the edges, read as closed rings under the even-odd rule per colour, cover a frame
  /// point (edges included).
  ///
  /// Counts the edges crossed by a ray towards +x among the entries of the point's stripe (the
  /// classic crossing-number test, half-open in y so that a vertex on the ray counts once); an
  /// edge the point lies on (exact orientation 0 inside the edge's box) answers at once.
  ///
  /// - Complexity: O(1) outside the box; O(*k*) for the *k* entries of the stripe. Allocates
  ///   nothing.
  func covers(x: Double, y: Double) -> Bool {
    guard let parities = crossingParities(x: x, y: y) else { return true }
    return parities != 0
  }

  /// The crossing parity of a frame point per colour (bit *c* for colour *c*: 1 when the point
  /// is strictly inside that colour's rings), or `nil` when the point lies on an edge. See
  /// ``covers(x:y:)``.
  ///
  /// - Complexity: as ``covers(x:y:)``. Allocates nothing.
  @inline(__always)
  func crossingParities(x: Double, y: Double) -> UInt64? {
    guard y >= minY, y <= maxY, x >= minX, x <= maxX else { return 0 }
    return withStripes { stripes in
      let s = EdgeIndex.stripe(y, minY: minY, scale: stripes.scale, count: stripes.count)
      return stripes.offsets.withUnsafeBufferPointer { o in
        withEdges { e in
          colours.withUnsafeBufferPointer { c in
            stripes.edgeNumbers.withUnsafeBufferPointer { n in
              let stride = edgeStride
              let entries: Range<Int>
              if o.isEmpty {
                entries = 0..<EdgeIndex.edgeCount(values: e.count, stride: stride)
              } else {
                let narrow = o.count == stripes.count &+ 1
                entries = Self.value(o, s, narrow: narrow)..<Self.value(o, s &+ 1, narrow: narrow)
              }
              if n.isEmpty {
                return Self.crossingParities(
                  x: x, y: y, edges: e, stride: stride, colours: c, entries: entries) { $0 }
              }
              if EdgeIndex.hasNarrowEdgeNumbers(
                edgeCount: EdgeIndex.edgeCount(values: e.count, stride: stride))
              {
                return Self.crossingParities(
                  x: x, y: y, edges: e, stride: stride, colours: c, entries: entries) { Int(n[$0]) }
              }
              return Self.crossingParities(
                x: x, y: y, edges: e, stride: stride, colours: c, entries: entries
              ) { Self.value(n, $0, narrow: false) }
            }
          }
        }
      }
    }
  }

  /// ``crossingParities(x:y:)`` over the entries given, `edge` giving each entry's edge.
  @inline(__always)
  private static func crossingParities(
    x: Double, y: Double, edges e: UnsafeBufferPointer<Double>, stride: Int,
    colours c: UnsafeBufferPointer<UInt8>, entries: Range<Int>, edge: (Int) -> Int
  ) -> UInt64? {
    var parity: UInt64 = 0
    for k in entries {
      let number = edge(k)
      let i = stride &* number
      let ay = e[i + 1]
      let by = e[i + 3]
      if (ay > y && by > y) || (ay < y && by < y) { continue }
      let ax = e[i]
      let bx = e[i + 2]
      if x > ax && x > bx { continue }
      let crosses = (ay > y) != (by > y)
      if x < ax && x < bx {
        if crosses { parity ^= 1 << UInt64(c[number]) }
        continue
      }
      let turn = Orientation.determinant(ax: ax, ay: ay, bx: bx, by: by, cx: x, cy: y)
      if turn == 0 { return nil }  // collinear and inside the edge's box: on the edge
      // Upward edge: its crossing is right of the point when the point is on its left.
      if crosses && (by > ay) == (turn > 0) { parity ^= 1 << UInt64(c[number]) }
    }
    return parity
  }
}
