/// One point where a movement changes side of a polyline.
public struct GeolineCrossing: Hashable, Sendable {
  /// Where along the movement the side changes: 0 at its start, 1 at its end.
  public var fraction: Double
  /// The crossing point (on the polyline).
  public var point: Coordinate
  /// The side change, relative to walking the polyline from its first vertex to its last.
  public var direction: CrossingDirection

  public init(fraction: Double, point: Coordinate, direction: CrossingDirection) {
    self.fraction = fraction
    self.point = point
    self.direction = direction
  }
}

extension Polyline {
  /// Appends every point where the straight movement from `start` to `end` changes side of the
  /// polyline, in path order.
  ///
  /// The rule (see `Docs/Algorithms.md`): a position exactly on the polyline counts as on its
  /// left, as if the line were shifted an infinitesimal amount to its right. The side before
  /// `start` is the side of `start` and the side after `end` is the side of `end`. So arriving
  /// on the line from the left and leaving to the left is no crossing; arriving from the right is
  /// a crossing (`rightToLeft`), and leaving to the right afterwards is a second one
  /// (`leftToRight`); passing through a vertex counts once; running along a segment is being on
  /// the line. Near an interior vertex the left side is the wedge swept counter-clockwise from
  /// the outgoing segment to the reversed incoming one; at the first and last vertex it is the
  /// left of the end segment's line. All decisions use the exact ``Orientation`` predicate; only
  /// `fraction` and `point` are rounded. A movement whose longitudes differ by more than 180
  /// degrees is taken the short way, across the antimeridian. A zero-length movement crosses
  /// nothing.
  ///
  /// - Complexity: O(*n*) for *n* segments, with a box test per segment. Allocates nothing when
  ///   `crossings` has spare capacity.
  public func crossings(
    from start: Coordinate, to end: Coordinate, into crossings: inout [GeolineCrossing]
  ) {
    let ax = start.longitude
    let ay = start.latitude
    var bx = end.longitude
    let by = end.latitude
    if bx - ax > 180 { bx -= 360 } else if bx - ax < -180 { bx += 360 }
    if ax == bx && ay == by { return }
    if max(ay, by) < index.minY || min(ay, by) > index.maxY { return }
    let first = crossings.count
    for turn in -1...1 {
      let shift = Double(turn) * 360
      if max(ax, bx) + shift < index.minX || min(ax, bx) + shift > index.maxX { continue }
      let movement = Movement(ax: ax + shift, ay: ay, bx: bx + shift, by: by)
      index.appendCrossings(of: movement, into: &crossings)
    }
    // Path order; contacts were found segment by segment (insertion sort: few, and stable).
    var i = first + 1
    while i < crossings.count {
      let item = crossings[i]
      var j = i
      while j > first && crossings[j - 1].fraction > item.fraction {
        crossings[j] = crossings[j - 1]
        j -= 1
      }
      crossings[j] = item
      i += 1
    }
  }
}

/// A movement in a shape's planar frame.
struct Movement {
  let ax: Double
  let ay: Double
  let bx: Double
  let by: Double
}

extension EdgeIndex {
  /// Appends the side changes of `m` over the chain of edges (a polyline's), unsorted.
  fileprivate func appendCrossings(of m: Movement, into out: inout [GeolineCrossing]) {
    let edgeCount = self.edgeCount
    let s = edgeStride
    guard edgeCount > 0 else { return }
    let mx = m.bx - m.ax
    let my = m.by - m.ay
    let lowX = min(m.ax, m.bx)
    let highX = max(m.ax, m.bx)
    let lowY = min(m.ay, m.by)
    let highY = max(m.ay, m.by)

    withEdges { e in
      // Vertex k of the chain (edges are consecutive: edge k runs from vertex k to k + 1).
      func vx(_ k: Int) -> Double { k < edgeCount ? e[s * k] : e[s * (k - 1) + 2] }
      func vy(_ k: Int) -> Double { k < edgeCount ? e[s * k + 1] : e[s * (k - 1) + 3] }

      /// Whether the direction from vertex k towards (tx, ty) is on the left (on-line = left).
      func isLeft(vertex k: Int, towardX tx: Double, y ty: Double) -> Bool {
        let x = vx(k)
        let y = vy(k)
        if k == 0 {
          return Orientation.determinant(ax: x, ay: y, bx: vx(1), by: vy(1), cx: tx, cy: ty) >= 0
        }
        if k == edgeCount {
          return Orientation.determinant(
            ax: vx(k - 1), ay: vy(k - 1), bx: x, by: y, cx: tx, cy: ty) >= 0
        }
        // Closed counter-clockwise sweep from the outgoing direction (to `next`) to the reversed
        // incoming one (to `previous`).
        let nextX = vx(k + 1)
        let nextY = vy(k + 1)
        let previousX = vx(k - 1)
        let previousY = vy(k - 1)
        /// 0 when the direction to (px, py) is at an angle in [0, π) from the outgoing one.
        func half(_ px: Double, _ py: Double) -> Int {
          let c = Orientation.determinant(ax: x, ay: y, bx: nextX, by: nextY, cx: px, cy: py)
          if c > 0 { return 0 }
          if c < 0 { return 1 }
          let sameWay = nextX != x ? (nextX > x) == (px > x) : (nextY > y) == (py > y)
          return sameWay ? 0 : 1
        }
        let previousHalf = half(previousX, previousY)
        if previousHalf == 0,
          Orientation.determinant(
            ax: x, ay: y, bx: nextX, by: nextY, cx: previousX, cy: previousY) == 0
        {
          return true  // the line turns back on itself: every direction is left of it
        }
        let targetHalf = half(tx, ty)
        if targetHalf != previousHalf { return targetHalf < previousHalf }
        return Orientation.determinant(ax: x, ay: y, bx: tx, by: ty, cx: previousX, cy: previousY)
          >= 0
      }

      func emit(_ fraction: Double, _ x: Double, _ y: Double, leftToRight: Bool) {
        out.append(
          GeolineCrossing(
            fraction: min(1, max(0, fraction)),
            point: Coordinate(
              uncheckedLatitude: min(90, max(-90, y)), longitude: LocalPlane.geographic(x)),
            direction: leftToRight ? .leftToRight : .rightToLeft))
      }

      /// A contact at vertex k, which lies on the closed movement.
      func vertexContact(_ k: Int) {
        let x = vx(k)
        let y = vy(k)
        let atStart = x == m.ax && y == m.ay
        let atEnd = x == m.bx && y == m.by
        let leftBefore = atStart || isLeft(vertex: k, towardX: m.ax, y: m.ay)
        let leftAfter = atEnd || isLeft(vertex: k, towardX: m.bx, y: m.by)
        guard leftBefore != leftAfter else { return }
        let fraction =
          atStart ? 0 : (atEnd ? 1 : ((x - m.ax) * mx + (y - m.ay) * my) / (mx * mx + my * my))
        emit(fraction, x, y, leftToRight: leftBefore)
      }

      func onMovement(_ x: Double, _ y: Double, _ orientation: Double) -> Bool {
        orientation == 0 && x >= lowX && x <= highX && y >= lowY && y <= highY
      }

      for i in 0..<edgeCount {
        let sx = e[s * i]
        let sy = e[s * i + 1]
        let tx = e[s * i + 2]
        let ty = e[s * i + 3]
        if max(sx, tx) < lowX || min(sx, tx) > highX || max(sy, ty) < lowY || min(sy, ty) > highY {
          continue
        }
        let os = Orientation.determinant(ax: m.ax, ay: m.ay, bx: m.bx, by: m.by, cx: sx, cy: sy)
        let ot = Orientation.determinant(ax: m.ax, ay: m.ay, bx: m.bx, by: m.by, cx: tx, cy: ty)
        if onMovement(sx, sy, os) { vertexContact(i) }
        if i == edgeCount - 1 && onMovement(tx, ty, ot) { vertexContact(i + 1) }
        // A contact inside the segment: its ends strictly on opposite sides of the movement.
        guard (os > 0 && ot < 0) || (os < 0 && ot > 0) else { continue }
        let oa = Orientation.determinant(ax: sx, ay: sy, bx: tx, by: ty, cx: m.ax, cy: m.ay)
        let ob = Orientation.determinant(ax: sx, ay: sy, bx: tx, by: ty, cx: m.bx, cy: m.by)
        let leftBefore: Bool
        let leftAfter: Bool
        if oa != 0 && ob != 0 {
          guard (oa > 0) != (ob > 0) else { continue }
          leftBefore = oa > 0
          leftAfter = ob > 0
        } else if oa == 0 {
          leftBefore = true  // the movement starts on the line
          leftAfter = ob > 0
        } else {
          leftBefore = oa > 0
          leftAfter = true  // the movement ends on the line
        }
        guard leftBefore != leftAfter else { continue }
        let dx = tx - sx
        let dy = ty - sy
        let fraction: Double
        if oa == 0 {
          fraction = 0
        } else if ob == 0 {
          fraction = 1
        } else {
          fraction = ((sx - m.ax) * dy - (sy - m.ay) * dx) / (mx * dy - my * dx)
        }
        emit(fraction, m.ax + fraction * mx, m.ay + fraction * my, leftToRight: leftBefore)
      }
    }
  }
}
