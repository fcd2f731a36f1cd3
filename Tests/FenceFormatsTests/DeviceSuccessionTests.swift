import FenceEngine
import FenceTestSupport
import Testing

@testable import FenceFormats

@Suite struct DeviceSuccessionTests {
  /// Device indices as a plain dictionary interns them: in order of first appearance.
  static func reference(_ names: [String]) -> (devices: [String], indices: [Int]) {
    var index: [String: Int] = [:]
    var devices: [String] = []
    var indices: [Int] = []
    for name in names {
      if let known = index[name] {
        indices.append(known)
      } else {
        index[name] = devices.count
        indices.append(devices.count)
        devices.append(name)
      }
    }
    return (devices, indices)
  }

  static func table(_ names: [String]) -> FixTable {
    var table = FixTable()
    for (k, name) in names.enumerated() {
      table.append(
        LocationFix(
          device: name, time: Timestamp(secondsSinceEpoch: Double(k)), latitude: 1,
          longitude: 2))
    }
    return table
  }

  /// Rounds in one order, rounds shuffled, an order that changes between rounds, devices
  /// repeating themselves, and names that differ only in their last character: the table's
  /// devices and each row's device are the reference's.
  @Test(arguments: ["fixed rounds", "shuffled rounds", "two swapped", "repeats", "near names"])
  func indicesAreThoseOfFirstAppearance(_ pattern: String) {
    var generator = SeededGenerator(seed: 7)
    let fleet = (0..<300).map { "vessel-\($0)" }
    var names: [String] = []
    for round in 0..<6 {
      switch pattern {
      case "fixed rounds": names += fleet
      case "shuffled rounds": names += fleet.shuffled(using: &generator)
      case "two swapped":
        var order = fleet
        if round >= 3 { order.swapAt(10, 200) }
        names += order
      case "repeats": for name in fleet.prefix(50) { names += [name, name, name] }
      default: names += (0..<40).map { "d\($0 % 10)" } + (0..<40).map { "d\(9 - $0 % 10)" }
      }
    }
    let table = Self.table(names)
    let expected = Self.reference(names)
    #expect(table.devices == expected.devices)
    #expect(table.indices.map { table.deviceIndex(at: $0) } == expected.indices)
  }

  /// Appending after the name table was dropped (``FixTable/finishAppending()``) rebuilds it:
  /// known names keep their index, new ones get the next.
  @Test func appendingAfterFinishingKeepsTheIndices() {
    let first = (0..<50).map { "v\($0)" }
    var table = Self.table(first + first)
    table.finishAppending()
    let more = ["v7", "new-1", "v0", "new-2", "new-1", "v49"]
    for (k, name) in more.enumerated() {
      table.append(
        LocationFix(
          device: name, time: Timestamp(secondsSinceEpoch: Double(1_000 + k)), latitude: 1,
          longitude: 2))
    }
    let expected = Self.reference(first + first + more)
    #expect(table.devices == expected.devices)
    #expect(table.indices.map { table.deviceIndex(at: $0) } == expected.indices)
  }

  @Test func guessesTheLastSuccessorAndPausesAfterAPoorWindow() {
    var succession = DeviceSuccession()
    succession.addDevice()
    succession.addDevice()
    #expect(succession.guess(after: 0) == nil)
    succession.miss(after: 0, came: 1)
    #expect(succession.guess(after: 0) == 1)
    #expect(succession.guess(after: 1) == nil)
    // That window has had one guess; a window holds 16,384, none of them right from here.
    for _ in 2...DeviceSuccession.window { #expect(succession.guess(after: 0) == 1) }
    var silent = 0
    while succession.guess(after: 0) == nil { silent += 1 }
    #expect(silent == DeviceSuccession.window * DeviceSuccession.pause)
  }

  @Test func aWindowWithAQuarterRightKeepsGuessing() {
    var succession = DeviceSuccession()
    succession.addDevice()
    succession.addDevice()
    succession.miss(after: 0, came: 1)
    for k in 0..<(3 * DeviceSuccession.window) {
      #expect(succession.guess(after: 0) == 1)
      if k % 4 == 0 { succession.hit() }
    }
  }

  /// After the first rows of a plain file, the reader's guess of its fixes is the rows read
  /// scaled by the share of bytes they took; gzip data and bytes in memory give none.
  @Test func estimatedFixCountScalesTheRowsReadByTheirShareOfTheFile() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let header = "device,time,lat,lon\n"
    let row = "d1,1000,40.5,-74.25\n"  // every row the same length
    var text = header
    for _ in 0..<1_000 { text += row }
    let path = try directory.write("t.csv", text)
    let reader = try TrackReader(path: path)
    #expect(reader.estimatedFixCount == nil)
    for _ in 0..<100 { _ = try reader.next() }
    let read = Double(header.utf8.count + 100 * row.utf8.count)
    let expected = Int((100 * Double(text.utf8.count) / read).rounded(.up))
    #expect(reader.estimatedFixCount == expected)
    #expect(expected > 900 && expected < 1_100)

    #expect(try run("/bin/gzip", ["-k", path]) == 0)
    let zipped = try TrackReader(path: path + ".gz")
    _ = try zipped.next()
    #expect(zipped.estimatedFixCount == nil)
    let inMemory = try TrackReader(text: text, name: "t.csv")
    _ = try inMemory.next()
    #expect(inMemory.estimatedFixCount == nil)
  }
}
