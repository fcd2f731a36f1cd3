@testable import FenceEngine
import Testing

/// `registerDevices(named:)`: one call giving what `handle(forDevice:)` gives name by name,
/// whether the evaluator keeps the caller's array (no device yet, no name twice) or registers
/// the names one by one.
@Suite struct DeviceRegistrationTests {
  /// Fixes of three devices in and out of one circle, in time order.
  private let fixes = [
    fix(0, north: 300, device: "b"), fix(1, device: "a"), fix(2, device: "c"),
    fix(10, device: "b"), fix(11, north: 300, device: "a"), fix(12, north: 300, device: "c"),
    fix(20, north: 300, device: "b"),
  ]

  /// Events and final snapshot of `evaluator` over `fixes`, by the handles of `handles`.
  private func replay(
    _ evaluator: inout ZoneEvaluator, handles: [String: ZoneEvaluator.DeviceHandle]
  ) -> [ZoneEvent] {
    var events: [ZoneEvent] = []
    for f in fixes { evaluator.process(f, device: handles[f.device]!, into: &events) }
    return events
  }

  @Test func anEmptyEvaluatorTakesTheNamesAndGivesTheEventsOfOneByOne() throws {
    var byName = try ZoneEvaluator(zones: [circleZone("z")])
    var expected: [ZoneEvent] = []
    for f in fixes { byName.process(f, into: &expected) }

    var registered = try ZoneEvaluator(zones: [circleZone("z")])
    let handles = registered.registerDevices(named: ["b", "a", "c"])
    #expect(handles.map(\.slot) == [0, 1, 2])
    #expect(registered.deviceCount == 3)
    #expect(handles.map { registered.deviceName($0) } == ["b", "a", "c"])
    #expect(registered.handle(forDevice: "a") == handles[1])
    #expect(registered.deviceCount == 3)
    let events = replay(&registered, handles: ["b": handles[0], "a": handles[1], "c": handles[2]])
    #expect(events == expected)
    #expect(events.map(\.kind) == [.checkIn, .checkIn, .checkIn, .checkOut, .checkOut, .checkOut])
    #expect(registered.snapshot() == byName.snapshot())
    #expect(registered.deviceStatus(named: "c")?.device == "c")
    #expect(registered.deviceStatus(named: "d") == nil)
  }

  /// The names taken whole are filed by name only when a change needs it: lookups that
  /// change nothing scan them, the next registration by name files them all.
  @Test func takenNamesAreFiledWhenAChangeNeedsThem() throws {
    var registered = try ZoneEvaluator(zones: [circleZone("z")])
    let handles = registered.registerDevices(named: ["b", "a", "c"])
    #expect(!registered.deviceNamesAreFiled && registered.deviceSlotByName.count == 0)
    #expect(registered.deviceSlot(named: "c") == 2)
    #expect(registered.deviceSlot(named: "d") == nil)
    #expect(registered.deviceStatus(named: "a")?.device == "a")
    #expect(registered.tags(ofDevice: "a") == [])
    #expect(!registered.deviceNamesAreFiled)
    // A copy keeps its own state: filing in one leaves the other as it was.
    var copy = registered
    #expect(copy.handle(forDevice: "a") == handles[1])
    #expect(copy.deviceNamesAreFiled && copy.deviceSlotByName.count == 3)
    #expect(!registered.deviceNamesAreFiled)
    #expect(copy.handle(forDevice: "d") == ZoneEvaluator.DeviceHandle(slot: 3))
    #expect(copy.deviceSlot(named: "d") == 3 && copy.deviceSlot(named: "b") == 0)
    // A fix by name files them too.
    var events: [ZoneEvent] = []
    registered.process(fix(0, device: "c"), into: &events)
    #expect(registered.deviceNamesAreFiled && registered.deviceCount == 3)
    #expect(events.map(describe) == ["0 checkIn c z/z-fence"])
  }

  @Test func aNameGivenTwiceSharesItsFirstSlot() throws {
    var evaluator = try ZoneEvaluator(zones: [circleZone("z")])
    let handles = evaluator.registerDevices(named: ["a", "b", "a", "c"])
    #expect(handles.map(\.slot) == [0, 1, 0, 2])
    #expect(evaluator.deviceCount == 3)
    #expect(handles.map { evaluator.deviceName($0) } == ["a", "b", "a", "c"])
    #expect(evaluator.handle(forDevice: "c") == handles[3])
  }

  @Test func anEvaluatorWithDevicesRegistersOnlyTheNewOnes() throws {
    var evaluator = try ZoneEvaluator(zones: [circleZone("z")])
    let x = evaluator.handle(forDevice: "x")
    let handles = evaluator.registerDevices(named: ["y", "x", "z"])
    #expect(handles == [ZoneEvaluator.DeviceHandle(slot: 1), x, .init(slot: 2)])
    #expect(evaluator.deviceCount == 3)
    #expect(evaluator.registerDevices(named: []) == [])
    #expect(evaluator.deviceName(handles[2]) == "z")
  }

  @Test func aRestoredSnapshotKeepsTheTakenNames() throws {
    var source = try ZoneEvaluator(zones: [circleZone("z")])
    let handles = source.registerDevices(named: ["b", "a", "c"])
    _ = replay(&source, handles: ["b": handles[0], "a": handles[1], "c": handles[2]])
    var restored = try ZoneEvaluator(zones: [circleZone("z")])
    _ = restored.registerDevices(named: ["someone else"])
    try restored.restore(source.snapshot())
    #expect(restored.snapshot().deviceNames == ["b", "a", "c"])
    #expect(restored.handle(forDevice: "c") == handles[2])
    #expect(restored.deviceCount == 3)
  }
}
