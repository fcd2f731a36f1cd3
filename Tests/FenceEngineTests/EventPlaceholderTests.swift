import Testing

@testable import FenceEngine

/// The per-fix step appends a placeholder event and initializes its zone, custom data and fence
/// where it lies (`ZoneEvent.initializeZoneFields`), instead of assigning them: the event must
/// be the one the public setters would make, id included.
@Suite struct EventPlaceholderTests {
  let t0 = Timestamp(microsecondsSinceEpoch: 1_593_475_270_000_000)

  @Test func zoneFieldsInitializedInPlaceGiveTheEventTheSettersMake() {
    var events = [ZoneEvent(placeholderKind: .checkIn, time: t0, device: "367000140")]
    events.withUnsafeMutableBufferPointer { appended in
      appended[0].initializeZoneFields(
        zone: "st-george", customData: ["pier": .number(3)], fence: "slip-2")
      appended[0].latitude = 40.64
      appended[0].assignDeterministicIDOverPlaceholder()
    }
    #expect(events[0].idStorage == .ofContent)
    var expected = ZoneEvent(kind: .checkIn, time: t0, device: "367000140")
    expected.zone = "st-george"
    expected.customData = ["pier": .number(3)]
    expected.fence = "slip-2"
    expected.latitude = 40.64
    expected.assignDeterministicID()

    let event = events[0]
    #expect(event.zone == "st-george")
    #expect(event.fence == "slip-2")
    #expect(event.customData == ["pier": .number(3)])
    #expect(event == expected)
    #expect(event.id == expected.id)
    #expect(
      event.id
        == ZoneEvent.deterministicID(
          device: "367000140", zone: "st-george", fence: "slip-2", kind: .checkIn, time: t0))
    // The setters still fix an assigned id before changing what it is made of.
    var changed = event
    changed.zone = "other"
    changed.fence = nil
    #expect(changed.id == event.id)
    #expect(changed.zone == "other" && changed.fence == nil)
  }

  /// A roaming event's device set on the placeholder before its id is marked: the id is made
  /// of it, as `assignDeterministicID()` after the setter would make it.
  @Test func theMarkOverAPlaceholderCoversFieldsSetBeforeIt() {
    var events = [ZoneEvent(placeholderKind: .checkIn, time: t0, device: "tug-7")]
    events.withUnsafeMutableBufferPointer { appended in
      appended[0].initializeZoneFields(zone: "escort", customData: nil, fence: nil)
      appended[0].roamingDevice = "tanker-1"
      appended[0].assignDeterministicIDOverPlaceholder()
    }
    var expected = ZoneEvent(kind: .checkIn, time: t0, device: "tug-7")
    expected.zone = "escort"
    expected.roamingDevice = "tanker-1"
    expected.assignDeterministicID()
    #expect(events[0] == expected)
    #expect(events[0].id == expected.id)
    #expect(
      events[0].id
        == ZoneEvent.deterministicID(
          device: "tug-7", zone: "escort", fence: "tanker-1", kind: .checkIn, time: t0))
  }

  /// A zone without custom data and an event without a fence: `nil`s initialized over `nil`s.
  @Test func nilZoneFieldsStayNil() {
    var events = [ZoneEvent(placeholderKind: .checkOut, time: t0, device: "d")]
    events.withUnsafeMutableBufferPointer { appended in
      appended[0].initializeZoneFields(zone: "z", customData: nil, fence: nil)
    }
    #expect(events[0].zone == "z")
    #expect(events[0].customData == nil)
    #expect(events[0].fence == nil)
  }
}
