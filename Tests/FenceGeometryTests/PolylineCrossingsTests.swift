import FenceGeometry
import FenceTestSupport
import Testing

/// One movement over one polyline with every crossing it must report, in path order.
struct CrossingCase: CustomTestStringConvertible, Sendable {
  let name: String
  let line: [(Double, Double)]
  let from: (Double, Double)
  let to: (Double, Double)
  /// (fraction, longitude, latitude, direction)
  let expected: [(Double, Double, Double, CrossingDirection)]
  var testDescription: String { name }
}

// Lines are (longitude, latitude) pairs. `east` runs west to east, so its left is north.
private let east = [(0.0, 0.0), (10, 0)]
/// A V walked south-east then north-east: its left is the cone above the vertex.
private let vee = [(-1.0, 1.0), (0, 0), (1, 1)]
/// The same V walked the other way: its left is everything but that cone.
private let veeReversed = [(1.0, 1.0), (0, 0), (-1, 1)]
private let zigzag = [(0.0, 0.0), (1, 1), (2, 0), (3, 1), (4, 0)]

@Suite struct PolylineCrossingsTests {
  @Test(arguments: [
    // A straight line.
    CrossingCase(name: "right to left through the middle", line: east, from: (5, -1), to: (5, 1),
      expected: [(0.5, 5, 0, .rightToLeft)]),
    CrossingCase(name: "left to right through the middle", line: east, from: (5, 1), to: (5, -1),
      expected: [(0.5, 5, 0, .leftToRight)]),
    CrossingCase(name: "from the left onto the line: none", line: east, from: (5, 1), to: (5, 0),
      expected: []),
    CrossingCase(name: "from the line to the left: none", line: east, from: (5, 0), to: (5, 1),
      expected: []),
    CrossingCase(name: "from the right onto the line", line: east, from: (5, -1), to: (5, 0),
      expected: [(1, 5, 0, .rightToLeft)]),
    CrossingCase(name: "start on the line, move right", line: east, from: (5, 0), to: (5, -1),
      expected: [(0, 5, 0, .leftToRight)]),
    CrossingCase(name: "along the line: none", line: east, from: (2, 0), to: (8, 0),
      expected: []),
    CrossingCase(name: "along the line past both ends: none", line: east, from: (-1, 0),
      to: (11, 0), expected: []),
    CrossingCase(name: "parallel on the left: none", line: east, from: (2, 1), to: (8, 1),
      expected: []),
    CrossingCase(name: "parallel on the right: none", line: east, from: (2, -1), to: (8, -1),
      expected: []),
    CrossingCase(name: "zero-length movement on the line: none", line: east, from: (5, 0),
      to: (5, 0), expected: []),
    CrossingCase(name: "zero-length movement off the line: none", line: east, from: (5, -1),
      to: (5, -1), expected: []),
    CrossingCase(name: "through the first vertex", line: east, from: (0, -1), to: (0, 1),
      expected: [(0.5, 0, 0, .rightToLeft)]),
    CrossingCase(name: "through the last vertex", line: east, from: (10, 1), to: (10, -1),
      expected: [(0.5, 10, 0, .leftToRight)]),
    CrossingCase(name: "past the end: none", line: east, from: (11, -1), to: (11, 1),
      expected: []),
    CrossingCase(name: "stops short of the line: none", line: east, from: (5, -2), to: (5, -1),
      expected: []),
    CrossingCase(name: "oblique crossing", line: east, from: (1, -1), to: (5, 3),
      expected: [(0.25, 2, 0, .rightToLeft)]),

    // A vertex: convex on the left (vee) and reflex on the left (veeReversed).
    CrossingCase(name: "across the V's vertex, both sides right: none", line: vee,
      from: (-1, 0), to: (1, 0), expected: []),
    CrossingCase(name: "up through the V's vertex", line: vee, from: (0, -1), to: (0, 1),
      expected: [(0.5, 0, 0, .rightToLeft)]),
    CrossingCase(name: "down through the V's vertex", line: vee, from: (0, 1), to: (0, -1),
      expected: [(0.5, 0, 0, .leftToRight)]),
    CrossingCase(name: "across the reversed V's vertex, both sides left: none",
      line: veeReversed, from: (-1, 0), to: (1, 0), expected: []),
    CrossingCase(name: "up through the reversed V's vertex", line: veeReversed, from: (0, -1),
      to: (0, 1), expected: [(0.5, 0, 0, .leftToRight)]),
    CrossingCase(name: "down through the reversed V's vertex", line: veeReversed, from: (0, 1),
      to: (0, -1), expected: [(0.5, 0, 0, .rightToLeft)]),
    CrossingCase(name: "across both arms of the V", line: vee, from: (-1, 0.5), to: (1, 0.5),
      expected: [(0.25, -0.5, 0.5, .rightToLeft), (0.75, 0.5, 0.5, .leftToRight)]),
    CrossingCase(name: "onto the V's vertex from the right", line: vee, from: (0, -1), to: (0, 0),
      expected: [(1, 0, 0, .rightToLeft)]),
    CrossingCase(name: "onto the V's vertex from the left: none", line: vee, from: (0, 1),
      to: (0, 0), expected: []),
    CrossingCase(name: "from the V's vertex to the right", line: vee, from: (0, 0), to: (1, -1),
      expected: [(0, 0, 0, .leftToRight)]),
    CrossingCase(name: "along an arm, then off to the right at the vertex", line: vee,
      from: (-2, 2), to: (1, -1), expected: [(2.0 / 3, 0, 0, .leftToRight)]),
    CrossingCase(name: "from the right, onto the vertex, then along an arm", line: vee,
      from: (1, -1), to: (-2, 2), expected: [(1.0 / 3, 0, 0, .rightToLeft)]),
    CrossingCase(name: "along the whole V's first arm: none", line: vee, from: (-1, 1),
      to: (0, 0), expected: []),

    // A zigzag: several crossings in one movement, in path order.
    CrossingCase(name: "four crossings of a zigzag", line: zigzag, from: (-1, 0.5),
      to: (5, 0.5),
      expected: [
        (0.25, 0.5, 0.5, .leftToRight), (2.5 / 6, 1.5, 0.5, .rightToLeft),
        (3.5 / 6, 2.5, 0.5, .leftToRight), (0.75, 3.5, 0.5, .rightToLeft),
      ]),
    CrossingCase(name: "the same zigzag walked back", line: zigzag, from: (5, 0.5),
      to: (-1, 0.5),
      expected: [
        (0.25, 3.5, 0.5, .leftToRight), (2.5 / 6, 2.5, 0.5, .rightToLeft),
        (3.5 / 6, 1.5, 0.5, .leftToRight), (0.75, 0.5, 0.5, .rightToLeft),
      ]),
    CrossingCase(name: "touching the zigzag's peaks: none", line: zigzag, from: (-1, 1),
      to: (5, 1), expected: []),
    CrossingCase(name: "along the zigzag's base: the end vertices count, the valley not",
      line: zigzag, from: (-1, 0), to: (5, 0),
      expected: [(1.0 / 6, 0, 0, .leftToRight), (5.0 / 6, 4, 0, .rightToLeft)]),
    CrossingCase(name: "up through a peak counts once", line: zigzag, from: (1, -1), to: (1, 2),
      expected: [(2.0 / 3, 1, 1, .rightToLeft)]),
    CrossingCase(name: "up through a valley counts once", line: zigzag, from: (2, -1),
      to: (2, 1), expected: [(0.5, 2, 0, .rightToLeft)]),

    // The antimeridian.
    CrossingCase(name: "a line across 180, crossed west of it", line: [(179, 0), (-179, 0)],
      from: (-179.5, -1), to: (-179.5, 1), expected: [(0.5, -179.5, 0, .rightToLeft)]),
    CrossingCase(name: "a line across 180, crossed east of it", line: [(179, 0), (-179, 0)],
      from: (179.5, 1), to: (179.5, -1), expected: [(0.5, 179.5, 0, .leftToRight)]),
    CrossingCase(name: "a movement across 180 over a line east of it", line: [(170, 0), (179.5, 0)],
      from: (179, -1), to: (-179, 1), expected: []),
    CrossingCase(name: "a movement across 180 over a line across it",
      line: [(178, -1), (-178, 1)], from: (179, 1), to: (-179, -1),
      expected: [(0.5, 180, 0, .leftToRight)]),
    CrossingCase(name: "far from the line: none", line: [(179, 0), (-179, 0)], from: (0, -1),
      to: (0, 1), expected: []),
  ])
  func crossings(_ c: CrossingCase) throws {
    let line = try Polyline(c.line.map { lonLat($0.0, $0.1) })
    var found: [GeolineCrossing] = []
    line.crossings(from: lonLat(c.from.0, c.from.1), to: lonLat(c.to.0, c.to.1), into: &found)
    #expect(found.count == c.expected.count, "\(found)")
    for (crossing, (fraction, lon, lat, direction)) in zip(found, c.expected) {
      #expect(abs(crossing.fraction - fraction) <= 1e-12, "\(crossing)")
      #expect(abs(abs(crossing.point.longitude) - abs(lon)) <= 1e-9, "\(crossing)")
      #expect(abs(crossing.point.latitude - lat) <= 1e-9, "\(crossing)")
      #expect(crossing.direction == direction, "\(crossing)")
    }
  }

  /// Right onto the line, then back to the right, as two movements: two crossings.
  @Test func rightOntoTheLineAndBackIsTwoCrossings() throws {
    let line = try Polyline([lonLat(0, 0), lonLat(10, 0)])
    var found: [GeolineCrossing] = []
    line.crossings(from: lonLat(5, -1), to: lonLat(5, 0), into: &found)
    line.crossings(from: lonLat(5, 0), to: lonLat(6, -1), into: &found)
    #expect(found == [
      GeolineCrossing(fraction: 1, point: lonLat(5, 0), direction: .rightToLeft),
      GeolineCrossing(fraction: 0, point: lonLat(5, 0), direction: .leftToRight),
    ])
  }

  /// Left onto the line, then back to the left: no crossing at all.
  @Test func leftOntoTheLineAndBackIsNone() throws {
    let line = try Polyline([lonLat(0, 0), lonLat(10, 0)])
    var found: [GeolineCrossing] = []
    line.crossings(from: lonLat(5, 1), to: lonLat(5, 0), into: &found)
    line.crossings(from: lonLat(5, 0), to: lonLat(6, 1), into: &found)
    #expect(found.isEmpty)
  }

  /// Crossings are appended after what the array already holds.
  @Test func crossingsAreAppended() throws {
    let line = try Polyline([lonLat(0, 0), lonLat(10, 0)])
    let earlier = GeolineCrossing(fraction: 0.9, point: lonLat(1, 0), direction: .leftToRight)
    var found = [earlier]
    line.crossings(from: lonLat(5, -1), to: lonLat(5, 1), into: &found)
    #expect(found == [
      earlier, GeolineCrossing(fraction: 0.5, point: lonLat(5, 0), direction: .rightToLeft),
    ])
  }

  /// Along a random walk, the sides of the fixes relative to a single segment and the crossings
  /// agree: a crossing's direction always leaves the side the walk was last on, and the number
  /// of crossings equals the number of side changes (on the line counting as left).
  @Test func crossingsFollowSideChangesOfARandomWalk() throws {
    let a = lonLat(0, 0)
    let b = lonLat(0.5, 0.25)
    let line = try Polyline([lonLat(-10, -5), a, b, lonLat(10, 5)])  // all one straight line
    var generator = SeededGenerator(seed: 3)
    var side = true  // left
    var position = lonLat(0.1, -0.3)
    side = Orientation(ax: 0, ay: 0, bx: 0.5, by: 0.25, cx: 0.1, cy: -0.3) != .clockwise
    var changes = 0
    var crossings: [GeolineCrossing] = []
    for step in 0..<2000 {
      // Snap every third fix onto the line's lattice so that on-line positions occur.
      let next: Coordinate
      if step % 3 == 0 {
        let k = Double(Int.random(in: -8...8, using: &generator)) / 8
        next = lonLat(0.5 * k, 0.25 * k)
      } else {
        next = lonLat(
          Double.random(in: -1...1, using: &generator) / 2,
          Double.random(in: -1...1, using: &generator) / 2)
      }
      let nextSide =
        Orientation(ax: 0, ay: 0, bx: 0.5, by: 0.25, cx: next.longitude, cy: next.latitude)
        != .clockwise
      if nextSide != side { changes += 1 }
      let before = crossings.count
      line.crossings(from: position, to: next, into: &crossings)
      if nextSide != side {
        #expect(crossings.count == before + 1)
        #expect(crossings.last?.direction == (side ? .leftToRight : .rightToLeft))
      } else {
        #expect(crossings.count == before)
      }
      side = nextSide
      position = next
    }
    #expect(crossings.count == changes)
    #expect(changes > 100)
  }
}
