extension EdgeIndex {
  /// Metres from a position to the nearest indexed edge (infinity when there are none).
  ///
  /// Visits stripes outward from the position's latitude and stops when the latitude gap to the
  /// next stripe alone (times the smallest meridional radius, a true lower bound of any
  /// distance across it) exceeds the best distance found. Within a stripe, an edge is measured
  /// exactly (``SegmentDistance``) only when its latitude gap and its local-plane distance do
  /// not already rule it out; the plane filter allows a factor of 2 of distortion and is off
  /// above 70 degrees of latitude. Each edge is visited once.
  ///
  /// - Complexity: about O(*k*) for the *k* edges in the stripes within the answer's latitude
  ///   range; O(*n*) in the worst case. Allocates nothing.
  func distance(from p: Position) -> Double {
    guard stripeCount > 0, !edges.isEmpty else { return .infinity }
    let plane = LocalPlane(p)
    let usePlaneFilter = abs(p.latitude) < 70
    let metresPerDegree = WGS84.minimumRadiusOfCurvature * .pi / 180
    let y = p.latitude
    let home = stripe(y)
    var best = Double.infinity

    edges.withUnsafeBufferPointer { e in
      stripeEdges.withUnsafeBufferPointer { list in
        stripeOffsets.withUnsafeBufferPointer { offsets in
          func visit(_ s: Int) {
            for k in Int(offsets[s])..<Int(offsets[s + 1]) {
              let i = 4 * Int(list[k])
              let ax = e[i]
              let ay = e[i + 1]
              let bx = e[i + 2]
              let by = e[i + 3]
              let low = min(ay, by)
              let high = max(ay, by)
              if stripeCount > 1 {
                // Measure each edge once: in its stripe nearest to the home stripe.
                let first = stripe(low)
                let last = stripe(high)
                if s != min(max(home, first), last) { continue }
              }
              let gap = max(0, low - y, y - high) * metresPerDegree
              if gap > best { continue }
              if usePlaneFilter {
                let planar = plane.distanceSquared(ax: ax, ay: ay, bx: bx, by: by).squareRoot()
                if planar * 0.5 > best + 1 { continue }
              }
              let d = SegmentDistance.metres(from: p, ax: ax, ay: ay, bx: bx, by: by, plane: plane)
              if d < best { best = d }
            }
          }
          visit(home)
          var down = home - 1
          var up = home + 1
          while down >= 0 || up < stripeCount {
            // Latitude gaps from the position to the nearest edge of the next stripe each way.
            let gapDown =
              down >= 0 ? max(0, y - (minY + Double(down + 1) / stripeScale)) : .infinity
            let gapUp = up < stripeCount ? max(0, (minY + Double(up) / stripeScale) - y) : .infinity
            let gap = min(gapDown, gapUp)
            // Stripe bounds are recomputed in floating point: allow a nanodegree of slack.
            if (gap - 1e-9) * metresPerDegree > best { break }
            if gapDown <= gapUp {
              visit(down)
              down -= 1
            } else {
              visit(up)
              up += 1
            }
          }
        }
      }
    }
    return best
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
  public func distanceToBoundary(from p: Position) -> Double {
    var best = Double.infinity
    for polygon in polygons { best = min(best, polygon.distanceToBoundary(from: p)) }
    return best
  }
}
