#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension EdgeIndex {
  /// Metres from a position to the nearest indexed edge (infinity when there are none), or a
  /// value of at least `limit` when no edge is nearer than `limit`.
  ///
  /// Depth-first branch and bound over the ``ChunkTree``: the children of a node are visited
  /// nearest first by their ``BoxDistanceBound`` (a true lower bound in metres), and a node whose
  /// bound exceeds the best distance so far is skipped. In a chunk, each edge's local-plane
  /// distance first tightens an upper bound of the answer (plane distance times (1 + slack));
  /// then an edge is measured exactly (``SegmentDistance``) only when its plane distance times
  /// (1 − slack) does not already rule it out. The slack is twice the plane's scale error over
  /// the edge's height, plus the mid-latitude plane's second-order error over the edge's reach
  /// (see `Docs/Algorithms.md`); the plane filter is off above 70 degrees of latitude.
  ///
  /// - Complexity: about O(log *n* + *k*) for the *k* edges whose chunk boxes come within the
  ///   answer's distance; O(*n*) in the worst case. Allocates nothing.
  func distance(from p: Position, below limit: Double = .infinity) -> Double {
    guard treeStorage != .none else { return .infinity }
    return distance(from: p, below: limit, bound: BoxDistanceBound(p))
  }

  /// ``distance(from:below:)`` with the position's ``BoxDistanceBound`` (and so its
  /// ``LocalPlane``) already made: the parts of a multipolygon share one.
  func distance(from p: Position, below limit: Double, bound: BoxDistanceBound) -> Double {
    // A tree that stores no nodes makes them for the search: first its root, from the extent,
    // so that a polygon wholly beyond the limit costs one bound and makes no node.
    if treeStorage == .madePerSearch {
      let window = DegreeWindow(bound.plane, limit: limit)
      let rootBound = withTreeRoot { root -> Double? in
        window.excludes(node: 0, of: root) ? nil : bound.metres(node: 0, of: root)
      }
      guard let rootBound = rootBound ?? nil, rootBound <= limit else { return .infinity }
    }
    return withTree { tree in distance(from: p, below: limit, bound: bound, tree: tree) }
  }

  /// ``distance(from:below:bound:)`` over the index's `tree`.
  @inline(__always)
  private func distance(
    from p: Position, below limit: Double, bound: BoxDistanceBound, tree: ChunkTree
  ) -> Double {
    let levels = tree.levelCount
    guard levels > 0 else { return .infinity }
    let plane = bound.plane
    // With a small limit, boxes beyond it are turned away by comparisons alone.
    let window = DegreeWindow(plane, limit: limit)
    let usePlaneFilter = bound.usePlane
    let degrees = Double.pi / 180
    let tangent = usePlaneFilter ? abs(plane.sinLatitude / plane.cosLatitude) : 0
    let secant2 = usePlaneFilter ? bound.secant2 : 0
    let x = p.longitude
    let y = p.latitude
    let edgeCount = self.edgeCount
    let edgeStride = self.edgeStride
    let chunkSize = ChunkTree.chunkSize
    let fanOut = ChunkTree.fanOut

    /// The relative error allowed for the mid-latitude plane distance of an edge.
    @inline(__always)
    func slack(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double) -> Double {
      // The mid-latitude plane errs by about ρ²/(8 cos²φ) relative at an angular reach ρ
      // (measured on the sphere); allow ρ²/(2 cos²φ). Its east scale is that of the edge's
      // middle, off by up to a quarter of the edge's height times tan φ at its ends; allow
      // half. The radii M and N change by less than 1 % per radian of latitude.
      let latitudeReach = max(abs(ay - y), abs(by - y)) * degrees
      let longitudeReach =
        max(abs(LocalPlane.wrapped(ax - x)), abs(LocalPlane.wrapped(bx - x))) * degrees
      let reach = max(latitudeReach, longitudeReach * plane.cosLatitude)
      let height = abs(by - ay) * degrees
      return min(
        0.5,
        0.5 * reach * reach * secant2 + 0.5 * height * (tangent + 0.1)
          + 0.01 * latitudeReach + 1e-6)
    }

    return withEdges { e in
      tree.withNodes(edges: e, stride: edgeStride) { nodes in
        tree.withLevelStarts { starts in
          // The plane's lower bound of each edge of the current chunk, from the first pass.
          withUnsafeTemporaryAllocation(of: Double.self, capacity: chunkSize) { lowerBounds in
            withUnsafeTemporaryAllocation(
              of: PendingNode.self, capacity: (fanOut - 1) * ChunkTree.maximumLevels + 1
            ) { stack in
              // `best` is the smallest of the limit, the exact distances found and the plane's
              // upper bounds; `found` the smallest exact distance.
              var best = limit
              var found = Double.infinity
              // The root's own bound first: a polygon wholly beyond the limit costs one bound.
              let root = starts[levels - 1]
              if window.excludes(node: root, of: nodes) { return found }
              let rootBound = bound.metres(node: root, of: nodes)
              if rootBound > best { return found }
              stack[0] = PendingNode(node: Int32(root), level: Int32(levels - 1), bound: rootBound)
              var depth = 1
              while depth > 0 {
                depth -= 1
                let pending = stack[depth]
                if pending.bound > best { continue }
                let level = Int(pending.level)
                let index = Int(pending.node) - starts[level]
                if level == 0 {
                  let first = index * chunkSize
                  let end = min(edgeCount, first + chunkSize)
                  if usePlaneFilter {
                    for k in first..<end {
                      let i = edgeStride &* k
                      let (ax, ay, bx, by) = (e[i], e[i + 1], e[i + 2], e[i + 3])
                      let planar = plane.midLatitudeDistanceSquared(ax: ax, ay: ay, bx: bx, by: by)
                        .squareRoot()
                      let relative = slack(ax, ay, bx, by)
                      best = min(best, planar * (1 + relative) + 0.01)
                      lowerBounds[k - first] = planar * (1 - relative)
                    }
                  }
                  for k in first..<end {
                    if usePlaneFilter && lowerBounds[k - first] > best { continue }
                    let i = edgeStride &* k
                    let d = SegmentDistance.metres(
                      from: p, ax: e[i], ay: e[i + 1], bx: e[i + 2], by: e[i + 3], plane: plane)
                    found = min(found, d)
                    best = min(best, d)
                  }
                  continue
                }
                // Push the children farthest first, so that the nearest is searched first.
                let childLevel = level - 1
                let childStart = starts[childLevel]
                let firstChild = childStart + index * fanOut
                let endChild = min(starts[level], firstChild + fanOut)
                let base = depth
                for child in firstChild..<endChild {
                  if window.excludes(node: child, of: nodes) { continue }
                  let childBound = bound.metres(node: child, of: nodes)
                  if childBound > best { continue }
                  var j = depth
                  while j > base && stack[j - 1].bound < childBound {
                    stack[j] = stack[j - 1]
                    j -= 1
                  }
                  stack[j] = PendingNode(
                    node: Int32(child), level: Int32(childLevel), bound: childBound)
                  depth += 1
                }
              }
              return found
            }
          }
        }
      }
    }
  }
}

/// A (longitude, latitude) window around a position that holds every point nearer than a
/// limit of at most a few kilometres: a box outside it lies farther than the limit, which four
/// comparisons tell where a ``BoxDistanceBound`` takes a few dozen operations.
///
/// A path of length `D` changes latitude by at most `D / M_min` (the meridional radius is at
/// least 6,335,439 m, 110,574 m a degree) and longitude by at most `D / (a cos φ_far)`, where
/// `φ_far` is the latitude of the window farthest from the equator (the prime vertical radius
/// is at least `a`); both get a 1 % margin, far above the error of the measured distances at
/// these ranges. Unbounded (every box inside) when the limit is not small or the window comes
/// within a degree of a pole.
struct DegreeWindow {
  let x: Double
  let y: Double
  let latitudeDegrees: Double
  let longitudeDegrees: Double
  /// Whether the window can reject anything.
  let isBounded: Bool

  init(_ plane: LocalPlane, limit: Double) {
    x = plane.longitude
    y = plane.latitude
    latitudeDegrees = limit * 1.01 / 110_574
    // cos(|φ| + δ) ≥ cos φ (1 − δ²/2) − sin |φ| δ.
    let delta = latitudeDegrees * (.pi / 180)
    let cosFar = plane.cosLatitude * (1 - delta * delta / 2) - abs(plane.sinLatitude) * delta
    isBounded = limit < 20_000 && abs(y) + latitudeDegrees < 89 && cosFar > 0.01
    longitudeDegrees =
      isBounded ? limit * 1.01 / (WGS84.semiMajorAxis * (.pi / 180) * cosFar) : .infinity
  }

  /// Whether the box `minX ... maxX` by `minY ... maxY` (frame degrees, longitudes in
  /// [-180, 360]) lies wholly outside the window.
  @inline(__always)
  func excludes(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Bool {
    guard isBounded else { return false }
    if minY - y > latitudeDegrees || y - maxY > latitudeDegrees { return true }
    if minX - x <= longitudeDegrees && x - maxX <= longitudeDegrees { return false }
    // The box may lie one turn away in the frame.
    let east = x + 360
    let west = x - 360
    let nearEast = minX - east <= longitudeDegrees && east - maxX <= longitudeDegrees
    let nearWest = minX - west <= longitudeDegrees && west - maxX <= longitudeDegrees
    return !nearEast && !nearWest
  }

  /// Whether node `node` of a ``ChunkTree``'s flat node array lies wholly outside the window.
  @inline(__always)
  func excludes(node: Int, of nodes: UnsafeBufferPointer<Float>) -> Bool {
    let n = ChunkTree.stride * node
    return excludes(
      minX: Double(nodes[n]), minY: Double(nodes[n + 1]), maxX: Double(nodes[n + 2]),
      maxY: Double(nodes[n + 3]))
  }
}

/// A node of the ``ChunkTree`` waiting on the search stack, with its distance lower bound.
struct PendingNode {
  var node: Int32
  var level: Int32
  var bound: Double
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

  /// Metres from a position to the nearest edge of any ring when that is less than `limit`
  /// metres, else `limit`: exactly ``distanceToBoundary(from:)`` capped at `limit`.
  ///
  /// The search visits only the chunks whose boxes come within `limit`, so a small limit costs
  /// a few chunks however large the polygon is.
  public func distanceToBoundary(from p: Position, within limit: Double) -> Double {
    min(limit, index.distance(from: p, below: limit))
  }

  /// Metres from a position to the polygon: 0 inside (boundary included), else the distance to
  /// its boundary.
  public func distance(from p: Position) -> Double {
    contains(latitude: p.latitude, longitude: p.longitude) ? 0 : index.distance(from: p)
  }
}

/// A position prepared for boundary-distance searches from it: its ``BoxDistanceBound`` (the
/// local plane's sine and cosine of latitude and radii of curvature) made once, for a caller
/// that measures several shapes from one position.
package struct DistanceProbe {
  package let position: Position
  let bound: BoxDistanceBound

  package init(_ position: Position) {
    self.position = position
    bound = BoxDistanceBound(position)
  }
}

extension MultiPolygon {
  /// Metres from a position to the multipolygon: 0 inside, else the distance to its boundary.
  public func distance(from p: Position) -> Double {
    contains(latitude: p.latitude, longitude: p.longitude) ? 0 : distanceToBoundary(from: p)
  }

  /// Metres from a position to the nearest boundary edge of any part.
  ///
  /// The part whose box is nearest (by ``BoxDistanceBound``) is searched first; every other
  /// part is searched only when its box may hold something nearer, and then with the best
  /// distance so far as its limit.
  public func distanceToBoundary(from p: Position) -> Double {
    if case .one(let polygon) = parts { return polygon.index.distance(from: p) }
    return nearestPartsDistance(from: DistanceProbe(p), below: .infinity)
  }

  /// Metres from a position to the nearest boundary edge of any part when that is less than
  /// `limit` metres, else `limit`: exactly ``distanceToBoundary(from:)`` capped at `limit`.
  ///
  /// As the uncapped search, with `limit` as the first bound: parts whose boxes lie farther
  /// are not searched, and within a part only the chunks that come within the bound are.
  public func distanceToBoundary(from p: Position, within limit: Double) -> Double {
    distanceToBoundary(from: DistanceProbe(p), within: limit)
  }

  /// ``distanceToBoundary(from:within:)`` from a prepared position.
  package func distanceToBoundary(from probe: DistanceProbe, within limit: Double) -> Double {
    if case .one(let polygon) = parts {
      return min(
        limit, polygon.index.distance(from: probe.position, below: limit, bound: probe.bound))
    }
    return min(limit, nearestPartsDistance(from: probe, below: limit))
  }

  /// The search of the parts behind ``distanceToBoundary(from:)``: the nearest edge of any
  /// part, or a value of at least `limit` when none is nearer. One ``BoxDistanceBound`` (one
  /// local plane) serves every part.
  private func nearestPartsDistance(from probe: DistanceProbe, below limit: Double) -> Double {
    let bound = probe.bound
    let p = probe.position
    let window = DegreeWindow(bound.plane, limit: limit)
    // The parts store their trees' nodes (``ManyParts``): the root is the last node.
    func lowerBound(_ index: EdgeIndex) -> Double {
      index.withTree { tree in
        let end = tree.storedNodes.count / ChunkTree.stride
        guard end > 0 else { return .infinity }
        return tree.storedNodes.withUnsafeBufferPointer { nodes in
          window.excludes(node: end - 1, of: nodes)
            ? .infinity : bound.metres(node: end - 1, of: nodes)
        }
      }
    }
    // The parts are read in place: iterating them copied each part (its rings, edge index and
    // stripes retained and released), for every part of a multipolygon of thousands of islands
    // at every measure.
    return polygons.withUnsafeBufferPointer { parts in
      var nearest = -1
      var nearestBound = Double.infinity
      for k in parts.indices {
        let b = lowerBound(parts[k].index)
        if nearest < 0 || b < nearestBound {
          nearestBound = b
          nearest = k
        }
      }
      // No part, or no part's box within the limit.
      guard nearest >= 0, nearestBound <= limit else { return limit }
      var best = parts[nearest].index.distance(from: p, below: limit, bound: bound)
      for k in parts.indices where k != nearest {
        let cap = min(limit, best)
        if lowerBound(parts[k].index) > cap { continue }
        best = min(best, parts[k].index.distance(from: p, below: cap, bound: bound))
      }
      return best
    }
  }
}

extension Polygon {
  /// The distance to the boundary measured on every edge without the index, O(*n*): the
  /// reference the indexed search is checked against.
  package func distanceToBoundaryByScanning(from p: Position) -> Double {
    let plane = LocalPlane(p)
    var best = Double.infinity
    for k in 0..<index.edgeCount {
      let (ax, ay, bx, by) = index.edge(k)
      best = min(best, SegmentDistance.metres(from: p, ax: ax, ay: ay, bx: bx, by: by, plane: plane))
    }
    return best
  }
}
