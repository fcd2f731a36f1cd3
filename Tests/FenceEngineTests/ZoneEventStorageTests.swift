import FenceEngine
import Testing

/// `ZoneEvent` keeps its optional numbers as values with a bit each: what is set reads back
/// exactly as set (signed zeros and NaN's payload included), what is unset reads nil, and
/// equality sees only the set values.
@Suite struct ZoneEventStorageTests {
  let t0 = Timestamp(microsecondsSinceEpoch: 1_593_475_270_000_000)

  @Test func eventIs184Bytes() {
    #expect(MemoryLayout<ZoneEvent>.size <= 184)
    #expect(MemoryLayout<ZoneEvent>.stride == 184)
  }

  /// `ZoneEvent`'s equality is written out field by field (an assigned id is resolved only
  /// when compared): every stored property must take part. The count fails when one is added
  /// without being added to `==`.
  @Test func equalityComparesEveryField() {
    var blank = ZoneEvent(kind: .checkIn, time: t0, device: "d")
    #expect(Mirror(reflecting: blank).children.count == 24)
    blank.assignDeterministicID()
    let changes: [(String, (inout ZoneEvent) -> Void)] = [
      ("id", { $0.id = "x" }),
      ("kind", { $0.kind = .dwell }),
      ("trigger", { $0.trigger = .fence }),
      ("direction", { $0.direction = .leftToRight }),
      ("willCheckOut", { $0.willCheckOut = false }),
      ("reason", { $0.reason = .duplicate }),
      ("checkOutReason", { $0.checkOutReason = .zoneRemoved }),
      ("time", { $0.time = Timestamp(microsecondsSinceEpoch: 1) }),
      ("device", { $0.device = "e" }),
      ("zone", { $0.zone = "z" }),
      ("fence", { $0.fence = "f" }),
      ("latitude", { $0.latitude = 1 }),
      ("longitude", { $0.longitude = 1 }),
      ("speed", { $0.speed = 1 }),
      ("course", { $0.course = 1 }),
      ("checkInTime", { $0.checkInTime = Timestamp(microsecondsSinceEpoch: 1) }),
      ("dwellSeconds", { $0.dwellSeconds = 1 }),
      ("durationSeconds", { $0.durationSeconds = 1 }),
      ("distance", { $0.distance = 1 }),
      ("customData", { $0.customData = ["k": .number(1)] }),
      ("on", { $0.on = ["a"] }),
      ("off", { $0.off = ["a"] }),
      ("roamingDevice", { $0.roamingDevice = "r" }),
    ]
    for (name, change) in changes {
      var event = blank
      change(&event)
      #expect(event != blank, "\(name)")
      #expect(blank != event, "\(name)")
      // Set back (an assigned id fixed by a content change stays that content's id).
      var same = blank
      change(&same)
      #expect(event == same, "\(name)")
      #expect(event.hashValue == same.hashValue, "\(name)")
    }
    // Equal content, one id assigned and one written: equal, and hashed alike.
    var written = ZoneEvent(kind: .checkIn, time: t0, device: "d")
    written.id = blank.id
    #expect(written == blank)
    #expect(Set([written, blank]).count == 1)
  }

  @Test func eachOptionalNumberReadsBackAsSetAndUnsets() {
    let numbers: [WritableKeyPath<ZoneEvent, Double?>] = [
      \.latitude, \.longitude, \.speed, \.course, \.dwellSeconds, \.durationSeconds, \.distance,
    ]
    for (k, path) in numbers.enumerated() {
      let blank = ZoneEvent(kind: .checkOut, time: t0, device: "d")
      var event = blank
      #expect(event[keyPath: path] == nil)
      for value in [-0.0, 0.0, 1e-300, -7.25, .infinity] {
        event[keyPath: path] = value
        #expect(event[keyPath: path]?.bitPattern == value.bitPattern)
        // The other numbers stay unset.
        for (j, other) in numbers.enumerated() where j != k {
          #expect(event[keyPath: other] == nil)
        }
        #expect(event.checkInTime == nil)
        #expect(event != blank)
      }
      event[keyPath: path] = nil
      #expect(event[keyPath: path] == nil)
      #expect(event == blank)
      #expect(event.hashValue == blank.hashValue)
    }
  }

  @Test func checkInTimeReadsBackAsSetAndUnsets() {
    let blank = ZoneEvent(kind: .dwell, time: t0, device: "d")
    var event = blank
    for time in [Timestamp(microsecondsSinceEpoch: 0), t0, Timestamp(microsecondsSinceEpoch: -1)] {
      event.checkInTime = time
      #expect(event.checkInTime == time)
      #expect(event != blank)
    }
    event.latitude = 0
    event.checkInTime = nil
    #expect(event.checkInTime == nil)
    #expect(event.latitude == 0)
    event.latitude = nil
    #expect(event == blank)
  }
}
