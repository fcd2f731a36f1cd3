import FenceEngine
import FenceFormats
import FenceGeometry
import FenceTestSupport
import Foundation
import Testing

/// `ZoneEvent`'s `Codable` form: the events NDJSON line that `ndjsonLine` writes.
@Suite struct ZoneEventCodingTests {
  /// 2020-06-30T00:01:10Z.
  let t0 = Timestamp(microsecondsSinceEpoch: 1_593_475_270_000_000)

  /// One event of each kind and trigger, every optional member used somewhere, custom data of
  /// at most one member per object (Foundation's coders keep no member order).
  var handMadeEvents: [ZoneEvent] {
    var checkIn = ZoneEvent(kind: .checkIn, time: t0, device: "367000140")
    checkIn.zone = "st-george"
    checkIn.fence = "st-george-slips"
    checkIn.trigger = .fence
    checkIn.latitude = 40.6442
    checkIn.longitude = -74.07166
    checkIn.willCheckOut = true
    checkIn.customData = ["terminal": .object(["names": .array([.string("St. George"), .null])])]

    var crossing = ZoneEvent(kind: .checkIn, time: t0.adding(seconds: 0.167785), device: "d/1")
    crossing.zone = "narrows"
    crossing.fence = "narrows-line"
    crossing.trigger = .geoline
    crossing.direction = .rightToLeft
    crossing.latitude = 40.60482428571428
    crossing.longitude = -74.04470285714287
    crossing.speed = 3.6525555555555553
    crossing.course = -142.8
    crossing.willCheckOut = false
    crossing.customData = [:]

    var dwell = ZoneEvent(kind: .dwell, time: t0.adding(seconds: 60), device: "d")
    dwell.zone = "z"
    dwell.fence = "f"
    dwell.checkInTime = t0
    dwell.dwellSeconds = 60
    dwell.customData = ["open": .bool(true)]

    var checkOut = ZoneEvent(kind: .checkOut, time: t0.adding(seconds: 754), device: "d")
    checkOut.zone = "z"
    checkOut.fence = "f"
    checkOut.checkInTime = t0
    checkOut.durationSeconds = 754
    checkOut.customData = ["berths": .number(12.5)]

    var monitored = ZoneEvent(kind: .monitoredSetChanged, time: t0, device: "d")
    monitored.on = ["a", "b"]
    monitored.off = []

    var rejected = ZoneEvent(kind: .rejected, time: t0, device: "quote\"d")
    rejected.reason = .outOfOrder

    var events = [checkIn, crossing, dwell, checkOut, monitored, rejected]
    for index in events.indices { events[index].id = "e\(index + 1)" }
    return events
  }

  /// Every golden event of the harbor's first hour (fence and GEOLINE check-ins, dwells,
  /// check-outs, monitored-set changes, rejections).
  func goldenEvents() throws -> [ZoneEvent] {
    try EventReader(path: fixturePath("golden/nyharbor-first-hour.ndjson")).readAll()
      + EventReader(path: fixturePath("golden/nyharbor-first-hour-monitor-diagnostics.ndjson"))
      .readAll()
  }

  @Test func encodesTheSameJSONAsTheNDJSONWriter() throws {
    let events = try goldenEvents() + handMadeEvents
    #expect(events.count == 57 + 303 + 6)
    for event in events {
      let encoded = try CodingTestSupport.encodedText(event)
      #expect(
        try CodingTestSupport.canonicalJSON(encoded)
          == CodingTestSupport.canonicalJSON(event.ndjsonLine), "\(event.ndjsonLine)")
    }
  }

  @Test func leavesOutMembersThatAreNil() throws {
    let texts = try handMadeEvents.map {
      try CodingTestSupport.encodedText($0, formatting: [.sortedKeys, .withoutEscapingSlashes])
    }
    #expect(
      texts == [
        #"{"customData":{"terminal":{"names":["St. George",null]}},"device":"367000140","fence":"st-george-slips","id":"e1","kind":"checkIn","lat":40.6442,"lon":-74.07166,"time":"2020-06-30T00:01:10Z","trigger":"fence","willCheckOut":true,"zone":"st-george"}"#,
        #"{"course":-142.8,"customData":{},"device":"d/1","direction":"rightToLeft","fence":"narrows-line","id":"e2","kind":"checkIn","lat":40.60482428571428,"lon":-74.04470285714287,"speed":3.6525555555555553,"time":"2020-06-30T00:01:10.167785Z","trigger":"geoline","willCheckOut":false,"zone":"narrows"}"#,
        #"{"checkInTime":"2020-06-30T00:01:10Z","customData":{"open":true},"device":"d","dwellSeconds":60,"fence":"f","id":"e3","kind":"dwell","time":"2020-06-30T00:02:10Z","zone":"z"}"#,
        #"{"checkInTime":"2020-06-30T00:01:10Z","customData":{"berths":12.5},"device":"d","durationSeconds":754,"fence":"f","id":"e4","kind":"checkOut","time":"2020-06-30T00:13:44Z","zone":"z"}"#,
        #"{"device":"d","id":"e5","kind":"monitoredSetChanged","off":[],"on":["a","b"],"time":"2020-06-30T00:01:10Z"}"#,
        #"{"device":"quote\"d","id":"e6","kind":"rejected","reason":"outOfOrder","time":"2020-06-30T00:01:10Z"}"#,
      ])
  }

  @Test func aRoundTripThroughFoundationsCodersGivesTheSameEvent() throws {
    let encoder = JSONEncoder()
    let decoder = JSONDecoder()
    for event in handMadeEvents {
      #expect(try decoder.decode(ZoneEvent.self, from: try encoder.encode(event)) == event)
    }
    // Golden custom data has several members, which Foundation's coders may reorder: the
    // events are equal once the members are sorted.
    for event in try goldenEvents() {
      let decoded = try decoder.decode(ZoneEvent.self, from: try encoder.encode(event))
      #expect(
        CodingTestSupport.sortingCustomData(decoded) == CodingTestSupport.sortingCustomData(event))
    }
  }

  @Test func theNDJSONReaderAndJSONDecoderReadEachOthersWriters() throws {
    for event in try goldenEvents() + handMadeEvents {
      let fromLine = try CodingTestSupport.decoded(ZoneEvent.self, from: event.ndjsonLine)
      let fromEncoder = try ZoneEvent(ndjsonLine: try CodingTestSupport.encodedText(event))
      #expect(
        CodingTestSupport.sortingCustomData(fromLine) == CodingTestSupport.sortingCustomData(event))
      #expect(
        CodingTestSupport.sortingCustomData(fromEncoder)
          == CodingTestSupport.sortingCustomData(event))
    }
  }

  @Test func decodesTheDaemonsLinesSkippingSeq() throws {
    let event = handMadeEvents[3]
    var bytes: [UInt8] = []
    event.appendNDJSON(to: &bytes, seq: 42)
    let line = String(decoding: bytes, as: UTF8.self)
    #expect(line.hasPrefix(#"{"seq":42,"id":"#))
    #expect(try CodingTestSupport.decoded(ZoneEvent.self, from: line) == event)
  }

  @Test func decodesNullAsAbsentAndAMissingIDAsEmpty() throws {
    let line =
      #"{"kind":"rejected","time":"2020-06-30T00:01:10Z","device":"d","zone":null,"reason":"duplicate"}"#
    var expected = ZoneEvent(kind: .rejected, time: t0, device: "d")
    expected.reason = .duplicate
    #expect(try CodingTestSupport.decoded(ZoneEvent.self, from: line) == expected)
    #expect(try CodingTestSupport.decoded(ZoneEvent.self, from: line).id == "")
  }

  @Test func anUnknownKindIsAnError() {
    let error = #expect(throws: DecodingError.self) {
      try CodingTestSupport.decoded(
        ZoneEvent.self,
        from: #"{"id":"x","kind":"arrived","time":"2020-06-30T00:01:10Z","device":"d"}"#)
    }
    guard case .dataCorrupted(let context)? = error else {
      Issue.record("expected dataCorrupted, got \(String(describing: error))")
      return
    }
    #expect(context.codingPath.map(\.stringValue) == ["kind"])
  }
}
