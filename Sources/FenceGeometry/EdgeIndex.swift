/// The straight edges of one shape in a planar (longitude, latitude) frame, bucketed into
/// horizontal stripes so that a query touches only the edges near its latitude.
///
/// Built once when a ``Polygon`` or ``Polyline`` is made and never changed, so it is shared
/// between copies of the value and across threads. Edges are stored flat (`x0, y0, x1, y1` per
/// edge); stripe `s` lists the edges whose latitude range overlaps it in
/// `stripeEdges[stripeOffsets[s] ..< stripeOffsets[s + 1]]`. This is the "y-stripes" idea of
/// tidwall/tg, written for this project.
///
/// A shape with an edge spanning more than 180 degrees of longitude crosses the antimeridian:
/// its negative longitudes get 360 added (``isUnwrapped``), so that every edge is short in the
/// frame. Edges running from one side of the map frame to the other (both ends at longitude
/// ±180, such as Antarctica's edge along the south pole) do not count: such shapes stay planar,
/// as in GEOS.
final class EdgeIndex: Sendable {
  /// Whether longitudes were unwrapped into [0, 360] because the shape crosses the antimeridian.
  let isUnwrapped: Bool
  /// `x0, y0, x1, y1` per edge (longitude, latitude in the frame), zero-length edges left out.
  let edges: [Double]
  /// The frame's extent of all edges.
  let minX: Double
  let maxX: Double
  let minY: Double
  let maxY: Double
  /// Number of stripes, at least 1.
  let stripeCount: Int
  /// Stripes per degree of latitude (0 when there is a single stripe).
  let stripeScale: Double
  /// `stripeCount + 1` offsets into ``stripeEdges``.
  let stripeOffsets: [Int32]
  /// Edge numbers (not scaled by 4) per stripe.
  let stripeEdges: [Int32]

  /// Shapes with fewer edges than this are scanned whole: a stripe would not pay for itself.
  static let smallEdgeCount = 32

  /// Indexes the edges between consecutive vertices of each chain (a polygon's closed rings, or
  /// a polyline's vertices).
  init(chains: [[Coordinate]]) {
    let unwrap = EdgeIndex.crossesAntimeridian(chains)
    isUnwrapped = unwrap
    var edges: [Double] = []
    edges.reserveCapacity(4 * chains.reduce(0) { $0 + max(0, $1.count - 1) })
    var minX = Double.infinity
    var maxX = -Double.infinity
    var minY = Double.infinity
    var maxY = -Double.infinity
    var heightSum = 0.0
    for chain in chains where chain.count >= 2 {
      for i in 0..<(chain.count - 1) {
        let x0 = EdgeIndex.frameLongitude(chain[i].longitude, unwrapped: unwrap)
        let y0 = chain[i].latitude
        let x1 = EdgeIndex.frameLongitude(chain[i + 1].longitude, unwrapped: unwrap)
        let y1 = chain[i + 1].latitude
        if x0 == x1 && y0 == y1 { continue }
        edges.append(x0)
        edges.append(y0)
        edges.append(x1)
        edges.append(y1)
        minX = min(minX, x0, x1)
        maxX = max(maxX, x0, x1)
        minY = min(minY, y0, y1)
        maxY = max(maxY, y0, y1)
        heightSum += abs(y1 - y0)
      }
    }
    self.edges = edges
    self.minX = minX
    self.maxX = maxX
    self.minY = minY
    self.maxY = maxY

    let edgeCount = edges.count / 4
    let height = maxY - minY
    // Aim for about one edge per stripe on smooth outlines, but cap the stripe entries at about
    // four per edge for jagged ones, where every stripe is crossed by many tall edges.
    var stripes = 1
    if edgeCount >= EdgeIndex.smallEdgeCount, height > 0 {
      let byMemory = heightSum > 0 ? 3 * Double(edgeCount) * height / heightSum : 1
      stripes = Int(max(1, min(Double(edgeCount), byMemory, Double(1 << 22))))
    }
    stripeCount = stripes
    stripeScale = stripes > 1 ? Double(stripes) / height : 0

    var counts = [Int32](repeating: 0, count: stripes + 1)
    for e in 0..<edgeCount {
      let (s0, s1) = EdgeIndex.stripeRange(edges, e, minY: minY, scale: stripeScale, count: stripes)
      for s in s0...s1 { counts[s + 1] += 1 }
    }
    for s in 0..<stripes { counts[s + 1] += counts[s] }
    var next = counts
    var entries = [Int32](repeating: 0, count: Int(counts[stripes]))
    for e in 0..<edgeCount {
      let (s0, s1) = EdgeIndex.stripeRange(edges, e, minY: minY, scale: stripeScale, count: stripes)
      for s in s0...s1 {
        entries[Int(next[s])] = Int32(e)
        next[s] += 1
      }
    }
    stripeOffsets = counts
    stripeEdges = entries
  }

  /// The number of indexed (non-degenerate) edges.
  var edgeCount: Int { edges.count / 4 }

  /// The stripe holding a latitude; latitudes outside the extent give the nearest end stripe.
  ///
  /// Monotone in `y`, so an edge filed under the stripes of its lowest and highest latitude is
  /// found from any latitude in between.
  @inline(__always)
  func stripe(_ y: Double) -> Int {
    EdgeIndex.stripe(y, minY: minY, scale: stripeScale, count: stripeCount)
  }

  @inline(__always)
  static func stripe(_ y: Double, minY: Double, scale: Double, count: Int) -> Int {
    let s = (y - minY) * scale
    if !(s > 0) { return 0 }
    if s >= Double(count - 1) { return count - 1 }
    return Int(s)
  }

  static func stripeRange(_ edges: [Double], _ e: Int, minY: Double, scale: Double, count: Int)
    -> (Int, Int)
  {
    let y0 = edges[4 * e + 1]
    let y1 = edges[4 * e + 3]
    return (
      stripe(min(y0, y1), minY: minY, scale: scale, count: count),
      stripe(max(y0, y1), minY: minY, scale: scale, count: count)
    )
  }

  /// A longitude in the shape's frame.
  @inline(__always)
  static func frameLongitude(_ longitude: Double, unwrapped: Bool) -> Double {
    unwrapped && longitude < 0 ? longitude + 360 : longitude
  }

  /// Whether the chains must be unwrapped: some edge spans more than 180 degrees of longitude
  /// (other than a map-frame edge between ±180), and unwrapping leaves every edge short.
  static func crossesAntimeridian(_ chains: [[Coordinate]]) -> Bool {
    var wraps = false
    for chain in chains where chain.count >= 2 {
      for i in 0..<(chain.count - 1) {
        let a = chain[i].longitude
        let b = chain[i + 1].longitude
        if abs(b - a) > 180, !(abs(a) == 180 && abs(b) == 180) { wraps = true }
      }
    }
    guard wraps else { return false }
    for chain in chains where chain.count >= 2 {
      for i in 0..<(chain.count - 1) {
        let a = frameLongitude(chain[i].longitude, unwrapped: true)
        let b = frameLongitude(chain[i + 1].longitude, unwrapped: true)
        if abs(b - a) > 180 { return false }  // wider than half the globe: keep it planar
      }
    }
    return true
  }

  /// The box of the indexed edges in geographic longitudes (`west > east` when unwrapped across
  /// the antimeridian).
  var boundingBox: BoundingBox {
    guard minX <= maxX else { return BoundingBox(south: 0, west: 0, north: 0, east: 0) }
    func geographic(_ x: Double) -> Double { x > 180 ? x - 360 : x }
    if isUnwrapped {
      if maxX - minX >= 360 { return .allLongitudes(south: minY, north: maxY) }
      return BoundingBox(south: minY, west: geographic(minX), north: maxY, east: geographic(maxX))
    }
    return BoundingBox(south: minY, west: minX, north: maxY, east: maxX)
  }
}
