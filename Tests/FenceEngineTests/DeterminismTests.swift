import FenceEngine
import FenceTestSupport
import Testing

@Suite struct DeterminismTests {
  func scenario() throws -> [ZoneEvent] {
    var evaluator = try ZoneEvaluator(
      configuration: .init(proximity: .init()),
      zones: [
        circleZone("z", rules: ZoneRules(dwell: 30)),
        Zone(id: "line", geolines: [try geoline("g", [(200, -1000), (200, 1000)])]),
      ])
    var events: [ZoneEvent] = []
    for step in 0..<60 {
      evaluator.process(fix(Double(step) * 7, north: Double(step % 12) * 40 - 100), into: &events)
    }
    evaluator.advance(to: t(10_000), into: &events)
    return events
  }

  @Test func theSameInputGivesTheSameEventsWithTheSameIDs() throws {
    let first = try scenario()
    let second = try scenario()
    #expect(first == second)
    #expect(first.count > 10)
    #expect(Set(first.map(\.id)).count == first.count)
    #expect(first.allSatisfy { $0.id.count == 16 && $0.id.allSatisfy(\.isHexDigit) })
    // The engine hashes each record's device and zone once (a prefix kept per record): its ids
    // must still be the reference hash of every event's whole content.
    let reference = first.map {
      Self.referenceID(
        device: $0.device, zone: $0.zone, fence: $0.fence, kind: $0.kind.rawValue,
        micros: $0.time.microsecondsSinceEpoch)
    }
    #expect(first.map(\.id) == reference)
  }

  @Test func idsHashDeviceZoneFenceKindAndTime() {
    let id = ZoneEvent.deterministicID(
      device: "367000140", zone: "st-george", fence: "st-george-slips", kind: .checkIn,
      time: Timestamp(microsecondsSinceEpoch: 1_593_475_270_000_000))
    // Checked against an independent FNV-1a 64 computation of the same bytes.
    #expect(id == "c05128cce4a29c89")
    let variants = [
      ZoneEvent.deterministicID(
        device: "367000141", zone: "st-george", fence: "st-george-slips", kind: .checkIn,
        time: Timestamp(microsecondsSinceEpoch: 1_593_475_270_000_000)),
      ZoneEvent.deterministicID(
        device: "367000140", zone: "st-george", fence: nil, kind: .checkIn,
        time: Timestamp(microsecondsSinceEpoch: 1_593_475_270_000_000)),
      ZoneEvent.deterministicID(
        device: "367000140", zone: "st-george", fence: "st-george-slips", kind: .checkOut,
        time: Timestamp(microsecondsSinceEpoch: 1_593_475_270_000_000)),
      ZoneEvent.deterministicID(
        device: "367000140", zone: "st-george", fence: "st-george-slips", kind: .checkIn,
        time: Timestamp(microsecondsSinceEpoch: 1_593_475_270_000_001)),
    ]
    #expect(Set(variants + [id]).count == 5)
  }

  /// Texts that stress the UTF-8 paths: empty, small and heap strings, multi-byte scalars, the
  /// separators themselves, a string built from a substring.
  static let texts: [String?] = [
    nil, "", "a", "367000140", "st-george-slips", "America/Argentina/ComodRivadavia", "é", "Zoë",
    "日本語の港", "ship 🚢 ⚓︎", "\u{1F}", "\u{1E}", "\u{0}", String(repeating: "x", count: 300),
    String("prefix/Europe/Zürich".dropFirst(7)),
  ]

  @Test func idsEqualAPlainFNV1aOfTheDocumentedBytes() {
    var random = SeededGenerator(seed: 0xF1A)
    let times: [Int64] = [0, 1, -1, .min, .max, 1_593_475_270_000_000, 0x0102_0304_0506_0708]
    var checked = 0
    for kind in ZoneEvent.Kind.allCases {
      for device in Self.texts.compactMap({ $0 }) {
        for _ in 0..<6 {
          let zone = Self.texts[random.int(below: Self.texts.count)]
          let fence = Self.texts[random.int(below: Self.texts.count)]
          let micros = times[random.int(below: times.count)]
          let time = Timestamp(microsecondsSinceEpoch: micros)
          let expected = Self.referenceID(
            device: device, zone: zone, fence: fence, kind: kind.rawValue, micros: micros)
          #expect(
            ZoneEvent.deterministicID(
              device: device, zone: zone, fence: fence, kind: kind, time: time) == expected)
          var event = ZoneEvent(kind: kind, time: time, device: device)
          event.zone = zone
          event.fence = fence
          #expect(event.withDeterministicID().id == expected)
          event.assignDeterministicID()
          #expect(event.id == expected)
          checked += 1
        }
      }
    }
    #expect(checked == 5 * 14 * 6)
  }

  @Test func nilAndEmptyFieldsHashApart() {
    let time = Timestamp(microsecondsSinceEpoch: 0)
    let ids = [
      ZoneEvent.deterministicID(device: "d", zone: nil, fence: nil, kind: .dwell, time: time),
      ZoneEvent.deterministicID(device: "d", zone: "", fence: nil, kind: .dwell, time: time),
      ZoneEvent.deterministicID(device: "d", zone: nil, fence: "", kind: .dwell, time: time),
      ZoneEvent.deterministicID(device: "d", zone: "", fence: "", kind: .dwell, time: time),
    ]
    #expect(Set(ids).count == 4)
    #expect(ids[0] == Self.referenceID(device: "d", zone: nil, fence: nil, kind: "dwell", micros: 0))
  }

  /// The engine keeps assigned ids as 64-bit values; set texts of 16 lowercase hex digits are
  /// kept the same way, so equality and hashing follow the text.
  @Test func idsReadBackAsTextAndCompareByText() {
    var assigned = ZoneEvent(kind: .checkIn, time: t(5), device: "d")
    assigned.zone = "z"
    assigned.fence = "f"
    assigned.assignDeterministicID()
    let text = Self.referenceID(device: "d", zone: "z", fence: "f", kind: "checkIn", micros: t(5).microsecondsSinceEpoch)
    #expect(assigned.id == text)
    var set = assigned
    set.id = text
    #expect(set == assigned)
    #expect(Set([set, assigned]).count == 1)
    // Other texts are kept as they are, and differ from the hash's digits.
    for other in ["", "x", text.uppercased(), text + "0", String(text.dropLast()), "0x" + text.dropFirst(2)] {
      var event = assigned
      event.id = other
      #expect(event.id == other)
      #expect(event != assigned)
    }
    var zeros = assigned
    zeros.id = "0000000000000000"
    #expect(zeros.id == "0000000000000000")
  }

  /// An assigned id is hashed only when read, from the content the event has then; changing
  /// a field it is made of afterwards must not change it (the field's observer fixes it first).
  @Test func assignedIDsStayWhenTheirContentChanges() {
    var base = ZoneEvent(kind: .checkOut, time: t(7), device: "367000140")
    base.zone = "st-george"
    base.fence = "slip-2"
    let expected = Self.referenceID(
      device: "367000140", zone: "st-george", fence: "slip-2", kind: "checkOut",
      micros: t(7).microsecondsSinceEpoch)
    let changes: [(String, (inout ZoneEvent) -> Void)] = [
      ("kind", { $0.kind = .dwell }),
      ("time", { $0.time = t(8) }),
      ("device", { $0.device = "other" }),
      ("zone", { $0.zone = nil }),
      ("fence", { $0.fence = "slip-3" }),
      ("roamingDevice", { $0.roamingDevice = "tug" }),
    ]
    for (name, change) in changes {
      var event = base
      event.assignDeterministicID()
      change(&event)
      #expect(event.id == expected, "after changing \(name)")
      // The same as the id set as text on the changed content.
      var written = event
      written.id = expected
      #expect(event == written, "after changing \(name)")
      #expect(event.hashValue == written.hashValue, "after changing \(name)")
      // A second change keeps it too.
      change(&event)
      #expect(event.id == expected, "after changing \(name) twice")
      // Assigned again, it is the new content's id.
      event.assignDeterministicID()
      #expect(event.id == event.withDeterministicID().id)
      #expect(
        event.id
          == ZoneEvent.deterministicID(
            device: event.device, zone: event.zone, fence: event.fence ?? event.roamingDevice,
            kind: event.kind, time: event.time))
      #expect(name == "roamingDevice" || event.id != expected, "after reassigning \(name)")
    }
    // Fields outside the id leave an assigned id alone without fixing it.
    var event = base
    event.assignDeterministicID()
    event.latitude = 40.6
    event.customData = ["pier": .number(3)]
    event.on = ["a"]
    #expect(event.id == expected)
  }

  /// Without a fence, a roaming zone's event hashes its roaming device in the fence's place.
  @Test func aRoamingEventsIDHashesItsRoamingDevice() {
    var event = ZoneEvent(kind: .checkIn, time: t(3), device: "d")
    event.zone = "escort"
    event.roamingDevice = "tug-9"
    event.assignDeterministicID()
    #expect(
      event.id
        == Self.referenceID(
          device: "d", zone: "escort", fence: "tug-9", kind: "checkIn",
          micros: t(3).microsecondsSinceEpoch))
    var other = event
    other.roamingDevice = "tug-10"
    other.assignDeterministicID()
    #expect(other.id != event.id)
    #expect(other != event)
  }

  /// FNV-1a 64 written out byte by byte from the layout in `Docs/EventSemantics.md`, sharing
  /// nothing with the library's code.
  static func referenceID(
    device: String, zone: String?, fence: String?, kind: String, micros: Int64
  ) -> String {
    var bytes: [UInt8] = []
    for field in [device, zone, fence, kind] {
      if let field {
        bytes += Array(field.utf8) + [0x1F]
      } else {
        bytes.append(0x1E)
      }
    }
    for shift in stride(from: 0, to: 64, by: 8) {
      bytes.append(UInt8(truncatingIfNeeded: UInt64(bitPattern: micros) >> UInt64(shift)))
    }
    var hash: UInt64 = 14_695_981_039_346_656_037
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
    let digits = String(hash, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }
}
