import Dispatch
import FenceTestSupport
import Testing

@testable import FenceGeometry

/// An edge index files its stripes on the first containment query, not when it is made (most
/// polygons of a large zone set are never asked), and publishes them once: threads asking a
/// fresh index at the same moment all get the answers of an index filed beforehand. (In
/// CI's ThreadSanitizer run: its name ends in ConcurrencyTests.)
@Suite struct StripeFilingConcurrencyTests {
  /// Points around and inside a star of `radius` degrees centred on (20 N, 10 E).
  func samplePoints(count: Int, seed: UInt64) -> [(Double, Double)] {
    var generator = SeededGenerator(seed: seed)
    return (0..<count).map { _ in
      (Double.random(in: 18.5...21.5, using: &generator), Double.random(in: 8.5...11.5, using: &generator))
    }
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
    #expect(small.index.stripeSlot.load(ordering: .acquiring) == EdgeIndex.emptyStripeTable)
    // A multipolygon's joined index of several parts files its own on first use.
    let other = try starPolygon(
      count: 40, longitude: 14, latitude: 20, radius: 1, jagged: false, generator: &generator)
    let both = try MultiPolygon([star, other])
    #expect(both.stripes?.hasFiledStripes == false)
    #expect(both.contains(latitude: 20, longitude: 14))
    #expect(both.stripes?.hasFiledStripes == true)
  }

  @Test func threadsAskingAFreshIndexAtOnceAgreeWithOneFiledBefore() throws {
    let points = samplePoints(count: 200, seed: 23)
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
      let threads = 4
      nonisolated(unsafe) let answers = UnsafeMutableBufferPointer<Bool>.allocate(
        capacity: threads * points.count)
      defer { answers.deallocate() }
      DispatchQueue.concurrentPerform(iterations: threads) { thread in
        // Each thread starts at a different point, so that every one may be the first to ask.
        for i in 0..<points.count {
          let k = (i + thread * 50) % points.count
          answers[thread * points.count + k] = fresh.contains(
            latitude: points[k].0, longitude: points[k].1)
        }
      }
      for thread in 0..<threads {
        #expect(Array(answers[(thread * points.count)..<((thread + 1) * points.count)]) == expected)
      }
      #expect(fresh.index.stripeCount == reference.index.stripeCount)
      #expect(fresh.index.edgeNumbers == reference.index.edgeNumbers)
    }
  }
}
