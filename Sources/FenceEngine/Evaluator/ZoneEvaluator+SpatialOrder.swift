import FenceGeometry
import FenceIndex

extension ZoneEvaluator {
  /// Loads of at least this many zones are applied in spatial order.
  static let spatialOrderThreshold = 256

  /// The order in which to apply the zones of a load, as indices into `zones`: for a large
  /// load, the order of each zone's first fence or GEOLINE box centre along a Hilbert curve
  /// (the leaf order of an R-tree packed from those boxes); a small load as it is.
  ///
  /// Zones take their slots, and their fences and GEOLINEs the element slots, in the order they
  /// are applied. The fence index packed from the same boxes afterwards groups its leaves the
  /// same way, so the fences one leaf holds sit in consecutive slots of the flat per-element
  /// table: a point query that scans a leaf then reads that table sequentially instead of one
  /// cache line per fence. The order changes no event (`Docs/EventSemantics.md`, loading
  /// order).
  ///
  /// - Complexity: O(*n*) for *n* zones (curve keys and a radix sort).
  static func spatialOrder(of zones: [Zone]) -> [Int] {
    guard zones.count >= spatialOrderThreshold else { return Array(zones.indices) }
    // Read in place: a loop over the values copies (and retains) every zone.
    return zones.withUnsafeBufferPointer { zones in
      // The order of the boxes' centres along a Hilbert curve: a packed tree's leaf order.
      HilbertCurve.order(count: zones.count) { index in
        let area = zones[index].fences.first?.area
        if case .circle(let circle)? = area, let centre = Self.boxCentre(of: circle) {
          return centre
        }
        guard let box = area?.boundingBox ?? zones[index].geolines.first?.line.boundingBox
        else { return nil }
        let part = box.planarParts.0
        return ((part.west + part.east) * 0.5, (part.south + part.north) * 0.5)
      }
    }
  }

  /// The centre of a circle's bounding box, as its centre (longitude, latitude), for a circle
  /// whose box is symmetric about it: not near the antimeridian or a pole, under 100 km. `nil`
  /// for the others, whose box is then made.
  ///
  /// The curve asks for each zone's point twice, and a circle's box takes a cosine and an
  /// arcsine: at a million circles those were about 5 % of a daemon's restart. The centre is
  /// the box's but for the rounding of `(west + east) / 2`, a few units in the last place, far
  /// below the curve's cells (a 2^16 grid over the extent): the fence index, packed from the
  /// boxes afterwards, finds its keys in the same order, so its ids are its slots (decision
  /// 0003). Were a cell edge to fall between a centre and its box's (by the rounding, about one
  /// load in a few thousand of a million circles over a few degrees), the index would sort its
  /// keys and keep an id index (17 MB at a million), with the same answers.
  @inline(__always)
  static func boxCentre(of circle: Circle) -> (x: Double, y: Double)? {
    let center = circle.center
    // Beyond 100 km or 80° of latitude, or within 10° of the antimeridian, the box may wrap or
    // reach a pole (`Circle.boundingBox(center:radius:)`): at 80° and 100 km it spans about
    // 5.7° of longitude each way.
    guard circle.radius < 100_000, abs(center.latitude) < 80, abs(center.longitude) < 170 else {
      return nil
    }
    return (center.longitude, center.latitude)
  }
}
