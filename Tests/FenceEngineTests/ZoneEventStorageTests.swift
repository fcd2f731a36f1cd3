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
