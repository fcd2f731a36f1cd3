import Dispatch
import FenceTestSupport
import Testing

@testable import FenceGeometry

/// An edge index files its stripes on the first containment query and builds its chunk tree on
/// the first search that needs it, and a multipolygon joins its parts' edges on its first
/// containment query, not when they are made (most polygons of a large zone set are never
/// asked; decision 0017). Each is published once: threads asking a fresh shape at the same
/// moment all get the answers of a shape asked beforehand. (In CI's ThreadSanitizer run: the
/// suite's name ends in ConcurrencyTests.)
@Suite struct BuiltOnFirstUseConcurrencyTests {
  /// Each of `threads` threads answers questions `0 ..< count`, each starting `stagger`
  /// questions after the one before, so that any thread may be the first to ask; the answers
  /// of each thread, in question order.
  func answersOnThreads<Answer>(
    _ threads: Int, count: Int, stagger: Int, _ answer: (Int) -> Answer
  ) -> [[Answer]] {
    nonisolated(unsafe) let answers = UnsafeMutableBufferPointer<Answer>.allocate(
      capacity: threads * count)
    defer { answers.deallocate() }
    withoutActuallyEscaping(answer) { answer in
      nonisolated(unsafe) let answer = answer
      DispatchQueue.concurrentPerform(iterations: threads) { thread in
        for i in 0..<count {
          let k = (i + thread * stagger) % count
          (answers.baseAddress! + thread * count + k).initialize(to: answer(k))
        }
      }
    }
    let result = (0..<threads).map { Array(answers[($0 * count)..<(($0 + 1) * count)]) }
    _ = answers.deinitialize()
    return result
  }

  @Test func stripesAreFiledByTheFirstQuery() throws {
    var generator = SeededGenerator(seed: 21)
    let star = try starPolygon(
      count: 2_000, longitude: 10, latitude: 20, radius: 1, jagged: true, generator: &generator)
    #expect(!star.index.hasFiledStripes)
    // Outside the box: answered without the stripes.
    #expect(!star.contains(latitude: 25, longitude: 10))
    #expect(!star.index.hasFiledStripes)
    #expect(star.contains(latitude: 20, longitude: 10))
    #expect(star.index.hasFiledStripes)
    #expect(star.index.stripeCount > 1)
    // A small polygon starts with the shared empty table: nothing to file.
    let small = try starPolygon(
      count: 16, longitude: 10, latitude: 20, radius: 1, jagged: false, generator: &generator)
    #expect(small.index.stripeSlot.value == EdgeIndex.emptyStripeTable)
    // A multipolygon's joined index of several parts files its own on first use.
    let other = try starPolygon(
      count: 40, longitude: 14, latitude: 20, radius: 1, jagged: false, generator: &generator)
    let both = try MultiPolygon([star, other])
    #expect(both.stripes?.hasFiledStripes == false)
    #expect(both.contains(latitude: 20, longitude: 14))
    #expect(both.stripes?.hasFiledStripes == true)
  }

  @Test func threadsAskingAFreshIndexAtOnceAgreeWithOneFiledBefore() throws {
    let points = pointsAroundStar(count: 200, seed: 23)
    for round in 0..<12 {
      var generator = SeededGenerator(seed: 100 + UInt64(round))
      let reference = try starPolygon(
        count: 3_000, longitude: 10, latitude: 20, radius: 1, jagged: true, generator: &generator)
      let expected = points.map { reference.contains(latitude: $0.0, longitude: $0.1) }
      #expect(expected.contains(true) && expected.contains(false))
      // The same star made again: its stripes are not filed yet.
      generator = SeededGenerator(seed: 100 + UInt64(round))
      let fresh = try starPolygon(
        count: 3_000, longitude: 10, latitude: 20, radius: 1, jagged: true, generator: &generator)
      #expect(!fresh.index.hasFiledStripes)
      // Each thread starts at a different point, so that every one may be the first to ask.
      for answers in answersOnThreads(4, count: points.count, stagger: 50, { k in
        fresh.contains(latitude: points[k].0, longitude: points[k].1)
      }) {
        #expect(answers == expected)
      }
      #expect(fresh.index.stripeCount == reference.index.stripeCount)
      #expect(fresh.index.edgeNumbers == reference.index.edgeNumbers)
    }
  }

  @Test func treesAreBuiltByTheFirstSearchAndEqualOnesBuiltAtOnce() throws {
    var generator = SeededGenerator(seed: 31)
    let star = try starPolygon(
      count: 2_000, longitude: 10, latitude: 20, radius: 1, jagged: true, generator: &generator)
    #expect(star.index.treeStorage == .stored)
    #expect(!star.index.hasBuiltTree)
    // Containment reads the stripes, not the tree.
    #expect(star.contains(latitude: 20, longitude: 10))
    #expect(!star.index.hasBuiltTree)
    let metres = star.distanceToBoundary(
      from: Position(Coordinate(uncheckedLatitude: 20, longitude: 10)))
    #expect(metres > 50_000 && metres < 112_000)
    #expect(star.index.hasBuiltTree)
    let atOnce = ChunkTree(edges: star.index.edges, stride: star.index.edgeStride, storing: true)
    #expect(star.index.tree.storedNodes.map(\.bitPattern) == atOnce.storedNodes.map(\.bitPattern))
    // A small polygon's tree is made for each search and never stored.
    let small = try starPolygon(
      count: 16, longitude: 10, latitude: 20, radius: 1, jagged: false, generator: &generator)
    #expect(small.index.treeStorage == .madePerSearch)
    _ = small.distanceToBoundary(from: Position(Coordinate(uncheckedLatitude: 20, longitude: 10)))
    #expect(!small.index.hasBuiltTree)
  }

  @Test func threadsMeasuringAFreshPolygonAtOnceAgreeWithOneMeasuredBefore() throws {
    let points = pointsAroundStar(count: 60, seed: 33).map {
      Position(Coordinate(uncheckedLatitude: $0.0, longitude: $0.1))
    }
    for round in 0..<6 {
      var generator = SeededGenerator(seed: 200 + UInt64(round))
      let reference = try starPolygon(
        count: 3_000, longitude: 10, latitude: 20, radius: 1, jagged: true, generator: &generator)
      let expected = points.map { reference.distanceToBoundary(from: $0).bitPattern }
      generator = SeededGenerator(seed: 200 + UInt64(round))
      let fresh = try starPolygon(
        count: 3_000, longitude: 10, latitude: 20, radius: 1, jagged: true, generator: &generator)
      #expect(!fresh.index.hasBuiltTree)
      // Each thread starts at a different point, so that every one may be the first to ask.
      for answers in answersOnThreads(4, count: points.count, stagger: 15, { k in
        fresh.distanceToBoundary(from: points[k]).bitPattern
      }) {
        #expect(answers == expected)
      }
    }
  }

  /// A polygon whose vertices are decimals keeps them packed until a query reads them
  /// (decision 0018): threads asking a fresh one at once, for containment and for distances,
  /// unpack it once and agree with one unpacked before.
  @Test func threadsUnpackingAFreshPolygonAtOnceAgreeWithOneUnpackedBefore() throws {
    let points = pointsAroundStar(count: 120, seed: 37)
    for round in 0..<6 {
      func make() throws -> Polygon {
        try decimalStarPolygon(
          count: 2_000, longitude: 10, latitude: 20, radius: 1, decimals: 5,
          seed: 400 + UInt64(round))
      }
      let reference = try make()
      let expected = points.map { point -> UInt64 in
        let position = Position(Coordinate(uncheckedLatitude: point.0, longitude: point.1))
        let inside = reference.contains(latitude: point.0, longitude: point.1)
        return reference.distanceToBoundary(from: position).bitPattern ^ (inside ? 1 : 0)
      }
      #expect(reference.index.hasUnpackedEdges)
      let fresh = try make()
      #expect(fresh.index.isPacked && !fresh.index.hasUnpackedEdges)
      // Each thread starts at a different point, so that every one may be the first to ask;
      // at even points containment is asked first, at odd ones the distance.
      for (thread, answers) in answersOnThreads(4, count: points.count, stagger: 30, { k in
        let point = points[k]
        let position = Position(Coordinate(uncheckedLatitude: point.0, longitude: point.1))
        let inside: Bool
        let metres: Double
        if k % 2 == 0 {
          inside = fresh.contains(latitude: point.0, longitude: point.1)
          metres = fresh.distanceToBoundary(from: position)
        } else {
          metres = fresh.distanceToBoundary(from: position)
          inside = fresh.contains(latitude: point.0, longitude: point.1)
        }
        return metres.bitPattern ^ (inside ? 1 : 0)
      }).enumerated() {
        #expect(answers == expected, "thread \(thread)")
      }
      #expect(fresh.index.hasUnpackedEdges)
      #expect(fresh.index.edges.map(\.bitPattern) == reference.index.edges.map(\.bitPattern))
    }
  }

  /// Tables built ahead (decision 0027) on one thread while others query the same fresh shape:
  /// whoever builds first publishes, and every thread answers as a shape asked beforehand.
  @Test func threadsQueryingWhileTablesAreBuiltAheadAgreeWithOneAskedBefore() throws {
    let points = pointsAroundStar(count: 120, seed: 39)
    for round in 0..<6 {
      func make() throws -> MultiPolygon {
        MultiPolygon(
          try decimalStarPolygon(
            count: 3_000, longitude: 10, latitude: 20, radius: 1, decimals: 5,
            seed: 500 + UInt64(round)))
      }
      let reference = try make()
      let expected = points.map { point -> UInt64 in
        let position = Position(Coordinate(uncheckedLatitude: point.0, longitude: point.1))
        let inside = reference.contains(latitude: point.0, longitude: point.1)
        return reference.distanceToBoundary(from: position).bitPattern ^ (inside ? 1 : 0)
      }
      let fresh = try make()
      // Each thread builds the tables ahead when it reaches question 0: thread 0 before any
      // question of its own, the others while the rest ask (the builds after the first find
      // the tables published and do nothing).
      for (thread, answers) in answersOnThreads(4, count: points.count, stagger: 30, { k in
        if k == 0 { fresh.buildTablesAhead() }
        let point = points[k]
        let position = Position(Coordinate(uncheckedLatitude: point.0, longitude: point.1))
        let inside = fresh.contains(latitude: point.0, longitude: point.1)
        return fresh.distanceToBoundary(from: position).bitPattern ^ (inside ? 1 : 0)
      }).enumerated() {
        #expect(answers == expected, "thread \(thread)")
      }
      #expect(fresh.partIndex(0).hasFiledStripes && fresh.partIndex(0).hasBuiltTree)
    }
  }

  /// A multipolygon of several parts joins their edges on its first containment query, once,
  /// whichever thread asks first; parts that cannot share one index (different antimeridian
  /// frames) are recorded as such, and tested one by one.
  @Test func multipolygonsJoinTheirPartsOnFirstUse() throws {
    let points = pointsAroundStar(count: 200, seed: 35)
    for round in 0..<6 {
      func make() throws -> MultiPolygon {
        var generator = SeededGenerator(seed: 300 + UInt64(round))
        let west = try starPolygon(
          count: 500, longitude: 9.5, latitude: 20, radius: 1, jagged: true, generator: &generator)
        let east = try starPolygon(
          count: 500, longitude: 10.5, latitude: 20, radius: 1, jagged: true, generator: &generator)
        return try MultiPolygon([west, east])
      }
      let reference = try make()
      let expected = points.map { reference.contains(latitude: $0.0, longitude: $0.1) }
      #expect(expected.contains(true) && expected.contains(false))
      let fresh = try make()
      guard case .many(let parts) = fresh.parts else {
        Issue.record("two parts are held as many")
        return
      }
      #expect(parts.joinedSlot.value == 0)
      // Each thread starts at a different point, so that every one may be the first to ask.
      for answers in answersOnThreads(4, count: points.count, stagger: 50, { k in
        fresh.contains(latitude: points[k].0, longitude: points[k].1)
      }) {
        #expect(answers == expected)
      }
      #expect(parts.joinedSlot.value > MultiPolygon.ManyParts.noJoinedIndex)
      #expect(fresh.stripes === fresh.stripes)
    }
    // Parts on both sides of the antimeridian, one unwrapped and one not: no joined index.
    let across = try Polygon(exterior: [
      Coordinate(uncheckedLatitude: 0, longitude: 179), Coordinate(uncheckedLatitude: 0, longitude: -179),
      Coordinate(uncheckedLatitude: 1, longitude: -179), Coordinate(uncheckedLatitude: 1, longitude: 179),
      Coordinate(uncheckedLatitude: 0, longitude: 179),
    ])
    let plain = try Polygon(exterior: [
      Coordinate(uncheckedLatitude: 0, longitude: 10), Coordinate(uncheckedLatitude: 0, longitude: 11),
      Coordinate(uncheckedLatitude: 1, longitude: 11), Coordinate(uncheckedLatitude: 0, longitude: 10),
    ])
    let split = try MultiPolygon([across, plain])
    #expect(across.index.isUnwrapped && !plain.index.isUnwrapped)
    #expect(split.stripes == nil)
    guard case .many(let parts) = split.parts else { return }
    #expect(parts.joinedSlot.value == MultiPolygon.ManyParts.noJoinedIndex)
    #expect(split.contains(latitude: 0.5, longitude: 180))
    #expect(split.contains(latitude: 0.2, longitude: 10.5))
    #expect(!split.contains(latitude: 0.5, longitude: 0))
  }
}
