import FenceGEOS
import FenceGeometry
import FenceTestSupport
import Testing

@Suite struct GEOSSTRTreeTests {
  @Test func queriesMatchABruteForceFilterOverRandomBoxes() throws {
    let context = try GEOSContext()
    let tree = try GEOSSTRTree(context: context, nodeCapacity: 8)
    var random = SeededGenerator(seed: 7)
    var boxes: [BoundingBox] = []
    for id in 0..<2_000 {
      let south = Double.random(in: -80...75, using: &random)
      let west = Double.random(in: -180...180, using: &random)
      let height = Double.random(in: 0...5, using: &random)
      let width = Double.random(in: 0...8, using: &random)
      // Every tenth box is a point or a line, to check degenerate envelopes.
      let box = BoundingBox(
        south: south, west: west, north: id % 10 == 0 ? south : south + height,
        east: west + width > 180 ? west + width - 360 : west + width)
      boxes.append(box)
      try tree.insert(box, id: Int32(id))
    }
    #expect(tree.count > boxes.count)  // some boxes cross the antimeridian
    var found = 0
    for _ in 0..<3_000 {
      let latitude = Double.random(in: -80...80, using: &random)
      let longitude = Double.random(in: -180...180, using: &random)
      var ids: [Int32] = []
      try tree.query(latitude: latitude, longitude: longitude) { ids.append($0) }
      let expected = boxes.indices.filter {
        boxes[$0].contains(latitude: latitude, longitude: longitude)
      }.map { Int32($0) }
      #expect(ids.sorted() == expected)
      found += ids.count
    }
    #expect(found > 500)
  }

  @Test func boxEdgesAndCornersAreHits() throws {
    let tree = try GEOSSTRTree(context: GEOSContext())
    try tree.insert(BoundingBox(south: 0, west: 0, north: 1, east: 1), id: 0)
    try tree.insert(BoundingBox(south: 0, west: 170, north: 1, east: -170), id: -5)
    try tree.insert(BoundingBox(south: 1, west: 1, north: 2, east: 2), id: .max)
    func ids(_ latitude: Double, _ longitude: Double) throws -> [Int32] {
      var result: [Int32] = []
      try tree.query(latitude: latitude, longitude: longitude) { result.append($0) }
      return result.sorted()
    }
    #expect(try ids(0.5, 0.5) == [0])
    #expect(try ids(1, 1) == [0, .max])
    #expect(try ids(0.5, 180) == [-5])
    #expect(try ids(0.5, -180) == [-5])
    #expect(try ids(0.5, -175) == [-5])
    #expect(try ids(0.5, 0) == [0])
    #expect(try ids(0.5, 100).isEmpty)
  }
}
