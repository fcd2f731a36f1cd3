import FenceTestSupport
import Testing

@testable import FenceGeometry

/// Edge values kept as the decimals they were written in (decision 0018): packed and unpacked
/// bit for bit, only when every value has an exact decimal form, and a packed polygon answers
/// exactly as a plain one.
@Suite struct DecimalPackingTests {
  func packed(_ values: [Double]) -> ContiguousArray<UInt8>? {
    values.withUnsafeBufferPointer(DecimalPacking.pack)
  }

  func unpacked(_ bytes: ContiguousArray<UInt8>, count: Int) -> [UInt64] {
    DecimalPacking.unpacked(bytes, count: count).map(\.bitPattern)
  }

  /// A star around (40.7 N, 73.9 W) with coordinates of `decimals` places.
  func decimalStar(count: Int, decimals: Int, seed: UInt64) throws -> Polygon {
    try decimalStarPolygon(
      count: count, longitude: -73.9, latitude: 40.7, radius: 0.2, decimals: decimals, seed: seed)
  }

  @Test(arguments: 0...9)
  func decimalsOfAnyPlacesComeBackBitForBit(places: Int) throws {
    var generator = SeededGenerator(seed: 40 + UInt64(places))
    var power = 1.0
    for _ in 0..<places { power *= 10 }
    // Neighbouring values, as a ring's are, at exactly `places` places (the last value has
    // its last digit 1, so fewer places cannot hold it).
    var values: [Double] = []
    var x = Int64(Double.random(in: -179...179, using: &generator) * power)
    var y = Int64(Double.random(in: -80...80, using: &generator) * power)
    for _ in 0..<200 {
      x += Int64.random(in: -5_000...5_000, using: &generator)
      y += Int64.random(in: -5_000...5_000, using: &generator)
      values.append(Double(x) / power)
      values.append(Double(y) / power)
    }
    values.append((Double(x / 10 * 10) + 1) / power)
    values.append(Double(y) / power)
    let bytes = try #require(packed(values))
    #expect(bytes[0] == UInt8(places))
    #expect(unpacked(bytes, count: values.count) == values.map(\.bitPattern))
    // Differences of up to 5,000 take 2 bytes; far less than 8 a value.
    #expect(bytes.count <= 1 + 2 * values.count + 10)
  }

  /// Group sequences of every length from 1 to 10 bytes, in random order, come back as the
  /// integers written, each over `10^d`, also at the very end of the bytes.
  @Test(arguments: [1, 2, 3, 7, 8, 9, 10, 200])
  func groupSequencesOfEveryLengthDecodeToTheIntegersWritten(count: Int) {
    var generator = SeededGenerator(seed: 90 + UInt64(count))
    let places = Int.random(in: 0...9, using: &generator)
    var power = 1.0
    for _ in 0..<places { power *= 10 }
    var bytes: [UInt8] = [UInt8(places)]
    var expected: [UInt64] = []
    var previous: (Int64, Int64) = (0, 0)
    var lengths = Set<Int>()
    for i in 0..<count {
      // A difference whose sequence takes a random length of 1 to 10 bytes.
      let wanted = Int.random(in: 1...10, using: &generator)
      let low: UInt64 = wanted == 1 ? 0 : 1 << (7 * (wanted - 1))
      let high: UInt64 = wanted == 10 ? .max : (1 << (7 * wanted)) - 1
      let zigzag = UInt64.random(in: low...high, using: &generator)
      var rest = zigzag
      var length = 1
      while rest >= 0x80 {
        bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
        rest >>= 7
        length += 1
      }
      bytes.append(UInt8(rest))
      #expect(length == wanted)
      lengths.insert(length)
      let difference = Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
      let n: Int64
      if i % 2 == 0 {
        n = previous.0 &+ difference
        previous.0 = n
      } else {
        n = previous.1 &+ difference
        previous.1 = n
      }
      expected.append((Double(n) / power).bitPattern)
    }
    if count == 200 { #expect(lengths == Set(1...10)) }
    let values = bytes.withUnsafeBufferPointer { buffer in
      [Double](unsafeUninitializedCapacity: count) { values, initialized in
        DecimalPacking.unpack(buffer, count: count, into: values.baseAddress!)
        initialized = count
      }
    }
    #expect(values.map(\.bitPattern) == expected)
  }

  @Test func theFewestPlacesThatHoldEveryValueAreChosen() throws {
    let values = [-73.5, 40.25, -73.125, 40.0]
    let bytes = try #require(packed(values))
    #expect(bytes[0] == 3)
    #expect(unpacked(bytes, count: 4) == values.map(\.bitPattern))
    // Whole numbers: no places; a difference of 0 is one byte.
    let whole = try #require(packed([12, -7, 12, -7, 13, -7]))
    #expect(Array(whole) == [0, 24, 13, 0, 0, 2, 0])
  }

  @Test(arguments: [
    ("a third", 1.0 / 3.0), ("minus zero", -0.0), ("NaN", Double.nan),
    ("infinity", Double.infinity), ("beyond 9e15 scaled", 1e300), ("ten places", 0.0000000001),
  ])
  func aValueWithoutAnExactDecimalFormLeavesTheValuesPlain(name: String, value: Double) {
    #expect(packed([-73.5, 40.25, value, 40.0]) == nil, "\(name)")
  }

  @Test func valuesThatPackIntoMoreThanSixBytesEachStayPlain() {
    // Both axes alternate between 0 and 4e12: each difference takes 7 bytes.
    let far = (0..<20).flatMap { $0 % 2 == 0 ? [0.0, 0.0] : [4e12, 4e12] }
    #expect(packed(far) == nil)
    // Between 0 and 4e9, 5 bytes: packed.
    let near = (0..<20).flatMap { $0 % 2 == 0 ? [0.0, 0.0] : [4e9, 4e9] }
    #expect(packed(near)?.count == 1 + 5 * 38 + 2)
  }

  @Test func anIndexOfDecimalsIsPackedAndUnpackedByItsFirstQuery() throws {
    // The ring as given to the polygon, not as read back from it.
    let given = try decimalStarRing(
      count: 400, longitude: -73.9, latitude: 40.7, radius: 0.2, decimals: 5, seed: 3)
    let star = try Polygon(exterior: given)
    #expect(star.index.isPacked)
    #expect(star.index.plainEdges.isEmpty)
    #expect(star.index.packedEdges.count < 3 * star.index.valueCount)
    // The ring, a copy of the values, and the box read it without unpacking it for good.
    #expect(star.exterior == given)
    #expect(star.index.edges.count == star.index.valueCount)
    #expect(!star.index.hasUnpackedEdges)
    // A query unpacks it once; the values are those given.
    #expect(star.contains(latitude: 40.7, longitude: -73.9))
    #expect(star.index.hasUnpackedEdges)
    #expect(star.exterior.map(\.longitude.bitPattern) == given.map(\.longitude.bitPattern))
    #expect(star.exterior.map(\.latitude.bitPattern) == given.map(\.latitude.bitPattern))
  }

  @Test func smallIndexesAndOnesWithoutExactDecimalsStayPlain() throws {
    let small = try decimalStar(count: 31, decimals: 5, seed: 4)
    #expect(small.index.edgeCount == 31)
    #expect(!small.index.isPacked)
    let large = try decimalStar(count: 32, decimals: 5, seed: 4)
    #expect(large.index.isPacked)
    var generator = SeededGenerator(seed: 4)
    let unrounded = try starPolygon(
      count: 400, longitude: -73.9, latitude: 40.7, radius: 0.2, jagged: true,
      generator: &generator)
    #expect(!unrounded.index.isPacked)
    #expect(unrounded.index.plainEdges.count == unrounded.index.valueCount)
  }

  @Test(arguments: [3, 5, 6])
  func aPackedPolygonAnswersAsRayCastingAndScanningDo(decimals: Int) throws {
    let star = try decimalStar(count: 600, decimals: decimals, seed: 7 + UInt64(decimals))
    #expect(star.index.isPacked)
    var generator = SeededGenerator(seed: 8)
    let vertices = star.exterior
    var inside = 0
    for k in 0..<400 {
      let c =
        k % 4 == 0
        ? vertices[Int.random(in: 0..<vertices.count, using: &generator)]
        : lonLat(
          Double.random(in: -74.2 ... -73.6, using: &generator),
          Double.random(in: 40.4...41.0, using: &generator))
      let answer = star.contains(latitude: c.latitude, longitude: c.longitude)
      #expect(answer == star.containsByRayCasting(latitude: c.latitude, longitude: c.longitude))
      if answer { inside += 1 }
      if k % 8 == 1 {
        let p = Position(c)
        let scanned = star.distanceToBoundaryByScanning(from: p)
        #expect(abs(star.distanceToBoundary(from: p) - scanned) <= 1e-9 * max(1, scanned))
      }
    }
    #expect(inside > 100 && inside < 380)
  }

  @Test func aMultipolygonJoinsPackedPartsWithoutUnpackingThemForGood() throws {
    let west = try decimalStar(count: 300, decimals: 5, seed: 11)
    let east = try decimalStarPolygon(
      count: 300, longitude: -73.0, latitude: 40.7, radius: 0.2, decimals: 5, seed: 12)
    let both = try MultiPolygon([west, east])
    let joined = try #require(both.stripes)
    #expect(!joined.isPacked)
    #expect(joined.valueCount == 4 * (west.index.edgeCount + east.index.edgeCount))
    #expect(both.polygons.allSatisfy { $0.index.isPacked && !$0.index.hasUnpackedEdges })
    // The joined copy holds the parts' values, edge by edge.
    let westEdges = west.index.edges
    #expect(joined.edge(0) == (westEdges[0], westEdges[1], westEdges[2], westEdges[3]))
    #expect(both.contains(latitude: 40.7, longitude: -73.0))
    #expect(both.contains(latitude: 40.7, longitude: -73.9))
    #expect(!both.contains(latitude: 40.7, longitude: -73.45))
  }
}
