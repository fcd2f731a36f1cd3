import FenceEngine
import FenceGeometry
import Testing

@testable import FenceFormats

@Suite struct EventNDJSONTests {
  let t0 = TimestampParser.parse("2020-06-30T00:01:10Z")!

  var checkIn: ZoneEvent {
    var e = ZoneEvent(kind: .checkIn, time: t0, device: "367000140")
    e.id = "e1"
    e.zone = "st-george"
    e.fence = "st-george-slips"
    e.trigger = .fence
    e.latitude = 40.6442
    e.longitude = -74.07166
    e.willCheckOut = true
    e.customData = ["terminal": .string("St. George")]
    return e
  }

  @Test func eachKindWritesTheSpecsLine() throws {
    #expect(
      checkIn.ndjsonLine
        == #"{"id":"e1","kind":"checkIn","time":"2020-06-30T00:01:10Z","device":"367000140","zone":"st-george","fence":"st-george-slips","trigger":"fence","lat":40.6442,"lon":-74.07166,"willCheckOut":true,"customData":{"terminal":"St. George"}}"#)

    var crossing = ZoneEvent(kind: .checkIn, time: t0.adding(seconds: 0.25), device: "d")
    crossing.id = "e2"
    crossing.zone = "narrows"
    crossing.fence = "narrows-line"
    crossing.trigger = .geoline
    crossing.direction = .leftToRight
    crossing.latitude = 40.605
    crossing.longitude = -74.044
    crossing.speed = 5.5
    crossing.course = 12
    crossing.willCheckOut = false
    crossing.customData = [:]
    #expect(
      crossing.ndjsonLine
        == #"{"id":"e2","kind":"checkIn","time":"2020-06-30T00:01:10.25Z","device":"d","zone":"narrows","fence":"narrows-line","trigger":"geoline","direction":"leftToRight","lat":40.605,"lon":-74.044,"speed":5.5,"course":12,"willCheckOut":false,"customData":{}}"#)

    var dwell = ZoneEvent(kind: .dwell, time: t0.adding(seconds: 60), device: "d")
    dwell.id = "e3"
    dwell.zone = "z"
    dwell.fence = "f"
    dwell.checkInTime = t0
    dwell.dwellSeconds = 60
    #expect(
      dwell.ndjsonLine
        == #"{"id":"e3","kind":"dwell","time":"2020-06-30T00:02:10Z","device":"d","zone":"z","fence":"f","checkInTime":"2020-06-30T00:01:10Z","dwellSeconds":60}"#)

    var checkOut = ZoneEvent(kind: .checkOut, time: t0.adding(seconds: 754), device: "d")
    checkOut.id = "e4"
    checkOut.zone = "z"
    checkOut.checkInTime = t0
    checkOut.durationSeconds = 754
    #expect(
      checkOut.ndjsonLine
        == #"{"id":"e4","kind":"checkOut","time":"2020-06-30T00:13:44Z","device":"d","zone":"z","checkInTime":"2020-06-30T00:01:10Z","durationSeconds":754.0}"#)

    var monitored = ZoneEvent(kind: .monitoredSetChanged, time: t0, device: "d")
    monitored.id = "e5"
    monitored.on = ["a", "b"]
    monitored.off = []
    #expect(
      monitored.ndjsonLine
        == #"{"id":"e5","kind":"monitoredSetChanged","time":"2020-06-30T00:01:10Z","device":"d","on":["a","b"],"off":[]}"#)

    var rejected = ZoneEvent(kind: .rejected, time: t0, device: "quote\"d")
    rejected.id = "e6"
    rejected.reason = .outOfOrder
    #expect(
      rejected.ndjsonLine
        == #"{"id":"e6","kind":"rejected","time":"2020-06-30T00:01:10Z","device":"quote\"d","reason":"outOfOrder"}"#)

    for event in [checkIn, crossing, dwell, checkOut, monitored, rejected] {
      #expect(try ZoneEvent(ndjsonLine: event.ndjsonLine) == event)
    }
  }

  @Test func writerAndReaderRoundTripThroughFilesAndGzip() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    var events: [ZoneEvent] = []
    for index in 0..<5_000 {
      var e = checkIn
      e.id = "e\(index)"
      e.time = t0.adding(seconds: Double(index))
      events.append(e)
    }
    for name in ["events.ndjson", "events.ndjson.gz"] {
      let writer = try EventWriter(path: directory.path + "/" + name)
      try writer.write(contentsOf: events)
      try writer.close()
      #expect(writer.eventCount == 5_000)
      #expect(try EventReader(path: directory.path + "/" + name).readAll() == events)
    }
    let text = try directory.read("events.ndjson")
    #expect(text.hasPrefix(checkIn.ndjsonLine.replacingOccurrences(of: "\"e1\"", with: "\"e0\"") + "\n"))
  }

  @Test func readerNamesTheBadLine() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = try directory.write(
      "bad.ndjson", checkIn.ndjsonLine + "\n\n" + #"{"kind":"teleport","time":"2020-06-30T00:01:10Z","device":"d"}"# + "\n")
    let reader = try EventReader(path: path)
    #expect(try reader.next() == checkIn)
    #expect(throws: EventReadError(file: path, line: 3, reason: #""kind": unknown value "teleport""#)) {
      try reader.next()
    }
  }
}
