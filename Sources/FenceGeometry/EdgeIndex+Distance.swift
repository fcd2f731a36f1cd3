#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension EdgeIndex {
  /// Metres from a position to the nearest indexed edge (infinity when there are none).
  ///
  /// Visits stripes outward from the position's latitude and stops when the latitude gap to the
  /// next stripe alone (times the smallest meridional radius, a true lower bound of any
  /// distance across it) exceeds the best distance found. Within a stripe, an edge is measured
  /// exactly (``SegmentDistance``) only when its latitude gap and its local-plane distance do
  /// not already rule it out; the plane filter allows twice the plane's scale error over the
  /// edge's latitude reach (and at least 0.2 %), and is off above 70 degrees of latitude. Each
  /// edge is visited once.
  ///
  /// - Complexity: about O(*k*) for the *k* edges in the stripes within the answer's latitude
  ///   range; O(*n*) in the worst case. Allocates nothing.
  func distance(from p: Position) -> Double {
    guard !edges.isEmpty else { return .infinity }
    let plane = LocalPlane(p)
    let usePlaneFilter = abs(p.latitude) < 70
    let degrees = Double.pi / 180
    let tangent = usePlaneFilter ? abs(tan(p.latitude * degrees)) : 0
    let metresPerDegree = WGS84.minimumRadiusOfCurvature * degrees
    let y = p.latitude
    let home = stripe(y)

    return edges.withUnsafeBufferPointer { e in
      stripeEdges.withUnsafeBufferPointer { list in
        stripeOffsets.withUnsafeBufferPointer { offsets in
          /// Calls `body` with each edge of stripe `s` that is filed there first (the stripe of
          /// the edge nearest to the home stripe), and the latitude gap to it in metres.
          func forEachEdge(
            inStripe s: Int, _ body: (Double, Double, Double, Double, Double) -> Void
          ) {
            for k in Int(offsets[s])..<Int(offsets[s + 1]) {
              let i = 4 * Int(list[k])
              let ay = e[i + 1]
              let by = e[i + 3]
              let low = min(ay, by)
              let high = max(ay, by)
              if stripeCount > 1 && s != min(max(home, stripe(low)), stripe(high)) { continue }
              body(e[i], ay, e[i + 2], by, max(0, low - y, y - high) * metresPerDegree)
            }
          }
          /// Visits stripes outward from the home stripe while the latitude gap to the next one
          /// may hold something closer than `bound()`.
          func outward(bound: () -> Double, _ visit: (Int) -> Void) {
            visit(home)
            var down = home - 1
            var up = home + 1
            while down >= 0 || up < stripeCount {
              let gapDown =
                down >= 0 ? max(0, y - (minY + Double(down + 1) / stripeScale)) : .infinity
              let gapUp =
                up < stripeCount ? max(0, (minY + Double(up) / stripeScale) - y) : .infinity
              // Stripe bounds are recomputed in floating point: allow a nanodegree of slack.
              if (min(gapDown, gapUp) - 1e-9) * metresPerDegree > bound() { return }
              if gapDown <= gapUp {
                visit(down)
                down -= 1
              } else {
                visit(up)
                up += 1
              }
            }
          }
          /// The relative error allowed for the plane distance of an edge.
          func slack(_ ay: Double, _ by: Double) -> Double {
            // The plane's east scale is right at the position's latitude and off by about
            // Δφ·tan φ at a latitude Δφ away; allow twice that, plus 0.2 %.
            let reach = max(abs(ay - y), abs(by - y)) * degrees
            return min(0.5, 2 * reach * (tangent + 0.1) + 0.002)
          }

          // Pass 1 (plane only, cheap): an upper bound of the answer.
          var bound = Double.infinity
          if usePlaneFilter {
            outward(bound: { bound }) { s in
              forEachEdge(inStripe: s) { ax, ay, bx, by, gap in
                if gap > bound { return }
                let planar = plane.distanceSquared(ax: ax, ay: ay, bx: bx, by: by).squareRoot()
                bound = min(bound, planar * (1 + slack(ay, by)) + 0.01)
              }
            }
          }
          // Pass 2: exact distances of the edges the plane cannot rule out.
          var best = bound
          var found = Double.infinity
          outward(bound: { best }) { s in
            forEachEdge(inStripe: s) { ax, ay, bx, by, gap in
              if gap > best { return }
              if usePlaneFilter {
                let planar = plane.distanceSquared(ax: ax, ay: ay, bx: bx, by: by).squareRoot()
                if planar * (1 - slack(ay, by)) > best { return }
              }
              let d = SegmentDistance.metres(from: p, ax: ax, ay: ay, bx: bx, by: by, plane: plane)
              found = min(found, d)
              best = min(best, d)
            }
          }
          return found
        }
      }
    }
  }
}

extension Polygon {
  /// Metres from a position to the nearest edge of any ring (exterior or hole), whether the
  /// position is inside or outside.
  ///
  /// Accurate to about a millimetre up to 10 km (the exact WGS84 distance to a foot point found
  /// on the true (lon, lat) edge); see `Docs/Algorithms.md`.
  public func distanceToBoundary(from p: Position) -> Double {
    index.distance(from: p)
  }

  /// Metres from a position to the polygon: 0 inside (boundary included), else the distance to
  /// its boundary.
  public func distance(from p: Position) -> Double {
    contains(latitude: p.latitude, longitude: p.longitude) ? 0 : index.distance(from: p)
  }
}

extension MultiPolygon {
  /// Metres from a position to the multipolygon: 0 inside, else the distance to its boundary.
  public func distance(from p: Position) -> Double {
    contains(latitude: p.latitude, longitude: p.longitude) ? 0 : distanceToBoundary(from: p)
  }

  /// Metres from a position to the nearest boundary edge of any part.
  ///
  /// Parts whose latitude range alone is farther than the best distance so far are skipped.
  public func distanceToBoundary(from p: Position) -> Double {
    let metresPerDegree = WGS84.minimumRadiusOfCurvature * .pi / 180
    var best = Double.infinity
    for polygon in polygons {
      let box = polygon.boundingBox
      let gap = max(0, box.south - p.latitude, p.latitude - box.north) * metresPerDegree
      if gap > best { continue }
      best = min(best, polygon.distanceToBoundary(from: p))
    }
    return best
  }
}

extension Polygon {
  /// The distance to the boundary measured on every edge without the index, O(*n*): the
  /// reference the indexed search is checked against.
  package func distanceToBoundaryByScanning(from p: Position) -> Double {
    let plane = LocalPlane(p)
    var best = Double.infinity
    let e = index.edges
    for i in stride(from: 0, to: e.count, by: 4) {
      best = min(
        best,
        SegmentDistance.metres(
          from: p, ax: e[i], ay: e[i + 1], bx: e[i + 2], by: e[i + 3], plane: plane))
    }
    return best
  }
}
