import FenceEngine
import Testing

@testable import FenceFormats

/// `TrackReader.forEachRemainingFix(_:)`, the loop `readSorted` and `readAll()` read with,
/// against a loop of `next()`: the same fixes, skipped rows, issues and count, also when a row
/// stops a strict read half-way.
@Suite struct TrackReaderLoopTests {
  /// Three good rows around a row with a bad latitude and one with a field missing.
  static let text = """
    device,time,lat,lon,speed
    a,2020-01-01T00:00:00Z,40.5,-74.0,3.5
    b,2020-01-01T00:00:01Z,abc,-74.1,1
    a,2020-01-01T00:00:02Z,40.6,-74.2,
    c,2020-01-01T00:00:03Z,40.7
    c,2020-01-01T00:00:04Z,40.8,-74.3,0

    """

  static func fixesByNext(_ reader: TrackReader) throws -> [LocationFix] {
    var fixes: [LocationFix] = []
    while let fix = try reader.next() { fixes.append(fix) }
    return fixes
  }

  @Test func theLoopGivesWhatNextGives() throws {
    let byNext = try TrackReader(text: Self.text, name: "t.csv")
    let byLoop = try TrackReader(text: Self.text, name: "t.csv")
    let expected = try Self.fixesByNext(byNext)
    var fixes: [LocationFix] = []
    try byLoop.forEachRemainingFix { fixes.append($0) }

    #expect(fixes == expected)
    #expect(fixes.map(\.device) == ["a", "a", "c"])
    #expect(fixes.map(\.latitude) == [40.5, 40.6, 40.8])
    #expect(fixes.map(\.speed) == [3.5, nil, 0])
    #expect(byLoop.fixCount == 3)
    #expect(byLoop.fixCount == byNext.fixCount)
    #expect(byLoop.skippedRowCount == 2)
    #expect(byLoop.issues == byNext.issues)
    #expect(byLoop.issues.map(\.line) == [3, 5])
  }

  /// After some rows read by `next()`, the loop goes on from there and counts on from there.
  @Test func theLoopContinuesWhereNextLeftOff() throws {
    let reader = try TrackReader(text: Self.text, name: "t.csv")
    let first = try #require(try reader.next())
    var rest: [LocationFix] = []
    try reader.forEachRemainingFix { rest.append($0) }
    #expect(first.latitude == 40.5)
    #expect(rest.map(\.latitude) == [40.6, 40.8])
    #expect(reader.fixCount == 3)
    #expect(reader.skippedRowCount == 2)
    #expect(try reader.next() == nil)
  }

  /// Strict: the bad latitude stops the read with the error `next()` throws, after the fixes
  /// before it, which are counted.
  @Test func aStrictReadStopsAtTheSameRowWithTheSameError() throws {
    var options = TrackReadOptions()
    options.strict = true
    let byNext = try TrackReader(text: Self.text, name: "t.csv", options: options)
    var nextFixes: [LocationFix] = []
    let nextError = #expect(throws: TrackReadError.self) {
      while let fix = try byNext.next() { nextFixes.append(fix) }
    }
    let byLoop = try TrackReader(text: Self.text, name: "t.csv", options: options)
    var loopFixes: [LocationFix] = []
    let loopError = #expect(throws: TrackReadError.self) {
      try byLoop.forEachRemainingFix { loopFixes.append($0) }
    }
    #expect(loopError == nextError)
    #expect(loopError?.line == 3)
    #expect(loopFixes == nextFixes)
    #expect(loopFixes.map(\.device) == ["a"])
    #expect(byLoop.fixCount == 1)
  }
}
