import FenceEngine
import FenceTestSupport
import Testing

@testable import FenceFormats

@Suite struct FixTableTests {
  @Test func readSortedIsAStableSortByTimeAcrossFiles() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let a = try directory.write("a.csv", "device,time,lat,lon\nx,3,1,1\ny,1,1,2\nx,1,1,3\n")
    let b = try directory.write("b.ndjson", #"{"device":"z","time":1,"lat":2,"lon":1,"speed":4}"# + "\n" + #"{"device":"z","time":2,"lat":2,"lon":2}"# + "\n")
    let table = try readSorted(paths: [a, b])
    #expect(table.map { "\($0.device)@\($0.time.secondsSinceEpoch),\($0.longitude)" } == [
      "y@1.0,2.0", "x@1.0,3.0", "z@1.0,1.0", "z@2.0,2.0", "x@3.0,1.0",
    ])
    #expect(table[2].speed == 4)
    #expect(table[0].speed == nil)
    #expect(table.devices == ["x", "y", "z"])
    #expect(table.indices.map { table.deviceIndex(at: $0) } == [1, 0, 2, 2, 0])
    #expect(table.indices.allSatisfy { table.devices[table.deviceIndex(at: $0)] == table[$0].device })
  }

  /// A row is 8 bytes; an optional value takes a column only once some fix has it, and its
  /// values follow their fixes through the sort (and a second sort after more rows).
  @Test func optionalValuesAreStoredOnlyWhenSomeFixHasThem() throws {
    #expect(FixTable.rowBytes == 8)
    func fix(_ device: String, _ time: Double, accuracy: Double? = nil, speed: Double? = nil, course: Double? = nil) -> LocationFix {
      LocationFix(
        device: device, time: Timestamp(secondsSinceEpoch: time), latitude: 1, longitude: time,
        accuracy: accuracy, speed: speed, course: course)
    }
    var plain = FixTable()
    for t in [3.0, 1, 2] { plain.append(fix("a", t)) }
    plain.sortByTime()
    #expect(plain.storedColumns == (false, false, false))
    #expect(plain.map(\.longitude) == [1, 2, 3])
    #expect(plain.allSatisfy { $0.accuracy == nil && $0.speed == nil && $0.course == nil })

    var table = FixTable()
    table.append(fix("a", 5))
    table.append(fix("b", 4, speed: 0))
    table.append(fix("a", 3, course: 90))
    table.append(fix("b", 4, speed: 7.5, course: 180))
    #expect(table.storedColumns == (false, true, true))
    table.sortByTime()
    #expect(table.map { "\($0.device)@\($0.longitude) \($0.speed.map { "\($0)" } ?? "-") \($0.course.map { "\($0)" } ?? "-")" } == [
      "a@3.0 - 90.0", "b@4.0 0.0 -", "b@4.0 7.5 180.0", "a@5.0 - -",
    ])
    table.append(fix("c", 1, accuracy: 12))
    table.append(fix("c", 4, speed: 1))
    #expect(table.storedColumns == (true, true, true))
    table.sortByTime()
    #expect(table.map { "\($0.device)@\($0.longitude) \($0.accuracy.map { "\($0)" } ?? "-") \($0.speed.map { "\($0)" } ?? "-")" } == [
      "c@1.0 12.0 -", "a@3.0 - -", "b@4.0 - 0.0", "b@4.0 - 7.5", "c@4.0 - 1.0", "a@5.0 - -",
    ])
  }

  /// Decimals as tracks write them are kept as integers of their digits and come back bit for
  /// bit; -0.0 keeps its sign.
  @Test func decimalValuesComeBackBitForBit() throws {
    var state: UInt64 = 7
    /// A decimal text of `digits` digits after the point within ±`range`, parsed.
    func decimal(_ range: Int64, _ digits: Int) -> Double {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let unit = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000][digits] as Int64
      let n = Int64((state >> 11) % UInt64(2 * range * unit)) - range * unit
      let fraction = String(n.magnitude % UInt64(unit))
      let text = (n < 0 ? "-" : "") + "\(n.magnitude / UInt64(unit))."
        + String(repeating: "0", count: digits - fraction.count) + fraction
      return Double(text)!
    }
    var table = FixTable()
    var expected: [LocationFix] = []
    for k in 0..<2_000 {
      let fix = LocationFix(
        device: "d\(k % 7)", time: Timestamp(secondsSinceEpoch: Double(k)),
        latitude: k == 5 ? -0.0 : decimal(90, 7), longitude: decimal(180, 6 + k % 2),
        accuracy: k % 3 == 0 ? nil : decimal(2_000, 2), speed: decimal(300, 2), course: k == 9 ? -0.0 : decimal(360, 1))
      expected.append(fix)
      table.append(fix)
    }
    table.sortByTime()
    #expect(table.columnsHoldingDoubles == [])
    #expect(table.count == expected.count)
    for (fix, want) in zip(table, expected) {
      #expect(fix.latitude.bitPattern == want.latitude.bitPattern)
      #expect(fix.longitude.bitPattern == want.longitude.bitPattern)
      #expect(fix.accuracy?.bitPattern == want.accuracy?.bitPattern)
      #expect(fix.speed?.bitPattern == want.speed?.bitPattern)
      #expect(fix.course?.bitPattern == want.course?.bitPattern)
    }
    #expect(table[5].latitude.sign == .minus && table[5].latitude == 0)
    #expect(table[9].course?.sign == .minus)
  }

  /// Speeds of two decimals up to 327.67 and courses and accuracies of one up to 3,276.7 take
  /// 2 bytes; the first value with more digits widens its column to 4-byte codes, or to
  /// `Double`s when an earlier value is past the 4-byte codes' ±2,147.48, and every value,
  /// -0.0 and absent ones included, reads back bit for bit through the sort.
  @Test func shortDecimalsTakeTwoBytesAndWidenExactly() throws {
    func fix(_ time: Double, accuracy: Double? = nil, speed: Double?, course: Double?) -> LocationFix {
      LocationFix(
        device: "a", time: Timestamp(secondsSinceEpoch: time), latitude: 1, longitude: time,
        accuracy: accuracy, speed: speed, course: course)
    }
    let given: [(speed: Double?, course: Double?)] = [
      (5.0, 235.6), (12.34, nil), (nil, 0), (-0.0, -0.0), (327.67, 3_000.5), (-327.65, 0.1),
    ]
    var table = FixTable()
    for (k, value) in given.enumerated() {
      table.append(fix(Double(10 - k), speed: value.speed, course: value.course))
    }
    #expect(table.narrowColumns == ["speed", "course"])
    #expect(table.storedColumns == (false, true, true))
    func expectGiven(_ table: FixTable, _ given: [(speed: Double?, course: Double?)]) {
      // Appended at times 10, 9, 8, ...: sorted, the last given comes first.
      for (fix, want) in zip(table, given.reversed()) {
        #expect(fix.speed?.bitPattern == want.speed?.bitPattern)
        #expect(fix.course?.bitPattern == want.course?.bitPattern)
      }
    }
    var sorted = table
    sorted.sortByTime()
    expectGiven(sorted, given)
    // 327.68 and 1.234 have no 2-byte code: the speed column widens to 4-byte codes.
    var widened = table
    widened.append(fix(4, speed: 327.68, course: 1))
    widened.append(fix(3, speed: 1.234, course: 2))
    #expect(widened.narrowColumns == ["course"])
    #expect(widened.columnsHoldingDoubles == [])
    widened.sortByTime()
    expectGiven(widened, given + [(327.68, 1), (1.234, 2)])
    // 1.25 has no 2-byte course code, and 3,000.5 no 4-byte one: the course column moves to
    // `Double`s.
    var doubled = table
    doubled.append(fix(4, speed: 1, course: 1.25))
    #expect(doubled.narrowColumns == ["speed"])
    #expect(doubled.columnsHoldingDoubles == ["course"])
    doubled.sortByTime()
    expectGiven(doubled, given + [(1, 1.25)])
    // An accuracy of one decimal is narrow too; a column no fix has a value for stores nothing.
    var accurate = FixTable()
    accurate.append(fix(1, accuracy: 3_276.7, speed: nil, course: nil))
    accurate.append(fix(2, accuracy: nil, speed: nil, course: nil))
    #expect(accurate.narrowColumns == ["accuracy"])
    #expect(accurate.storedColumns == (true, false, false))
    #expect(accurate.map(\.accuracy) == [3_276.7, nil])
  }

  /// Taking the device names hands them over in index order and leaves the table without
  /// them: each fix's device index stays, and `fix(at:device:)` builds the fix with a name
  /// kept elsewhere, every other value as before.
  @Test func takenDeviceNamesLeaveTheFixesAndTheirDeviceIndexes() {
    var table = FixTable()
    for (k, device) in ["b", "a", "b", "c"].enumerated() {
      table.append(
        LocationFix(
          device: device, time: Timestamp(secondsSinceEpoch: Double(10 - k)), latitude: 1,
          longitude: Double(k), speed: Double(k)))
    }
    table.sortByTime()
    let before = Array(table)
    let indexes = table.indices.map { table.deviceIndex(at: $0) }
    let names = table.takeDeviceNames()
    #expect(names == ["b", "a", "c"])
    #expect(table.devices.isEmpty && table.deviceNamesTaken)
    #expect(table.indices.map { table.deviceIndex(at: $0) } == indexes)
    let rebuilt = table.indices.map { table.fix(at: $0, device: names[table.deviceIndex(at: $0)]) }
    #expect(rebuilt == before)
    #expect(rebuilt.map(\.device) == ["c", "b", "a", "b"])
  }

  /// A value with no exact code (more digits, out of range, NaN given through the API) moves its
  /// column to `Double`s, the rows before it included; the other columns stay codes.
  @Test func aValueWithoutAnExactCodeKeepsItsColumnInDoubles() throws {
    func fix(_ time: Double, latitude: Double = 1.5, longitude: Double = 2.25, accuracy: Double? = nil, speed: Double? = nil) -> LocationFix {
      LocationFix(
        device: "a", time: Timestamp(secondsSinceEpoch: time), latitude: latitude, longitude: longitude,
        accuracy: accuracy, speed: speed)
    }
    var table = FixTable()
    table.append(fix(4, latitude: 40.1234567, speed: 3))
    table.append(fix(3, latitude: 1.0 / 3, speed: nil))
    table.append(fix(2, longitude: 214.75, accuracy: 2_147.483647))
    table.append(fix(1, latitude: .nan, accuracy: 2_147.483648, speed: 12.0000001))
    #expect(table.columnsHoldingDoubles == ["latitude", "longitude", "accuracy", "speed"])
    table.sortByTime()
    #expect(table[0].latitude.isNaN)
    #expect(table.map(\.latitude).dropFirst() == [1.5, 1.0 / 3, 40.1234567])
    #expect(table.map(\.longitude) == [2.25, 214.75, 2.25, 2.25])
    #expect(table.map(\.accuracy) == [2_147.483648, 2_147.483647, nil, nil])
    #expect(table.map(\.speed) == [12.0000001, nil, nil, 3])
    #expect(table.map(\.course) == [nil, nil, nil, nil])

    var coded = FixTable()
    coded.append(fix(1, latitude: -214.7483645, longitude: 214.7483647, accuracy: -2_147.483645))
    #expect(coded.columnsHoldingDoubles == [])
    #expect(coded[0].latitude == -214.7483645 && coded[0].longitude == 214.7483647)
    #expect(coded[0].accuracy == -2_147.483645)
  }

  /// Times of whole seconds from the first are kept as 32-bit offsets; a time that is not
  /// (a fraction of a second, or beyond 68 years) moves every time to microseconds. Either way
  /// they come back exactly and sort stably.
  @Test(arguments: [false, true])
  func timesComeBackExactlyAndSortStably(withFraction: Bool) {
    let base: Int64 = 1_606_780_800_000_000  // 2020-12-01T00:00:00Z
    let seconds: [Int64] = [40, -3, 40, 7, 0, -3, 2_000_000_000, 7, -2_000_000_000]
    var expected: [Int64] = seconds.map { base + $0 * 1_000_000 }
    if withFraction { expected.append(base + 5 * 1_000_000 + 250_000) }
    var table = FixTable()
    for (k, time) in expected.enumerated() {
      table.append(
        LocationFix(
          device: "d\(k)", time: Timestamp(microsecondsSinceEpoch: time), latitude: 1,
          longitude: 2))
    }
    #expect(table.timesAreCoded == !withFraction)
    #expect(table.indices.map { table.time(at: $0).microsecondsSinceEpoch } == expected)
    table.sortByTime()
    let order = expected.indices.sorted { (expected[$0], $0) < (expected[$1], $1) }
    #expect(table.map(\.device) == order.map { "d\($0)" })
    #expect(table.map(\.time.microsecondsSinceEpoch) == order.map { expected[$0] })
    // A time 68 years on has no 32-bit offset.
    table.append(
      LocationFix(
        device: "late", time: Timestamp(microsecondsSinceEpoch: base + 2_200_000_000 * 1_000_000),
        latitude: 1, longitude: 2))
    #expect(!table.timesAreCoded)
    #expect(table.last?.time.microsecondsSinceEpoch == base + 2_200_000_000 * 1_000_000)
    #expect(table.dropLast().map(\.time.microsecondsSinceEpoch) == order.map { expected[$0] })
  }

  @Test func presortedMergeEqualsTheStableSortOfSortedFiles() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let a = try directory.write("a.csv", "device,time,lat,lon\na,1,1,1\na,2,1,1\na,2,1,2\na,5,1,1\n")
    let b = try directory.write("b.csv", "device,time,lat,lon\nb,0,1,1\nb,2,1,1\nb,9,1,1\n")
    let c = try directory.write("c.csv", "device,time,lat,lon\n")
    let merger = try PresortedTrackMerger(paths: [a, b, c])
    var merged: [LocationFix] = []
    while let fix = try merger.next() { merged.append(fix) }
    #expect(merged == Array(try readSorted(paths: [a, b, c])))
    #expect(merger.backwardStepCount == 0)
  }

  @Test func presortedMergeInternsDevicesInOrderOfTheirFirstFix() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let a = try directory.write("a.csv", "device,time,lat,lon\nq,1,1,1\np,3,1,1\nq,4,1,2\n")
    let b = try directory.write("b.csv", "device,time,lat,lon\nr,2,1,1\nq,3,1,1\n")
    let merger = try PresortedTrackMerger(paths: [a, b])
    var merged: [String] = []
    while let (fix, device) = try merger.nextWithDeviceIndex() {
      merged.append("\(fix.device)#\(device)@\(fix.time.secondsSinceEpoch)")
      #expect(merger.devices[device] == fix.device)
    }
    #expect(merged == ["q#0@1.0", "r#1@2.0", "p#2@3.0", "q#0@3.0", "q#0@4.0"])
    #expect(merger.devices == ["q", "r", "p"])
  }

  @Test func presortedMergeCountsBackwardStepsAndPassesThemOn() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let a = try directory.write("a.csv", "device,time,lat,lon\na,5,1,1\na,3,1,1\n")
    let b = try directory.write("b.gpx", #"<gpx><trk><trkseg><trkpt lat="1" lon="2"><time>1970-01-01T00:00:04Z</time></trkpt></trkseg></trk></gpx>"#)
    try run("/bin/gzip", [b])
    let merger = try PresortedTrackMerger(paths: [a, b + ".gz"])
    var merged: [String] = []
    while let fix = try merger.next() { merged.append("\(fix.device)@\(fix.time.secondsSinceEpoch)") }
    #expect(merged == ["b@4.0", "a@5.0", "a@3.0"])
    #expect(merger.backwardStepCount == 1)
  }

  @Test func firstHourSortsToTheSameCountInTimeOrder() throws {
    let table = try readSorted(paths: [fixturePath("tracks/nyharbor-ais-2020-06-30-first-hour.csv")])
    #expect(table.count == 8_689)
    #expect(zip(table.indices.dropLast(), table.indices.dropFirst()).allSatisfy { table.time(at: $0) <= table.time(at: $1) })
  }
}
