import Testing

@testable import FenceEngine

/// A device's state keeps whether its last fix had a speed and a course as bits of one byte:
/// the values come back exactly as set, each independent of the other, in 80 bytes (the name is in a column of its own).
@Suite struct DeviceStateStorageTests {
  @Test func speedAndCourseComeBackExactly() {
    #expect(MemoryLayout<DeviceState>.stride == 80)
    #expect(MemoryLayout<CellMemo>.size == 20)
    var state = DeviceState()
    #expect(state.lastSpeed == nil)
    #expect(state.lastCourse == nil)
    state.setLastMotion(speed: -0.0, course: nil)
    #expect(state.lastSpeed?.bitPattern == (-0.0 as Double).bitPattern)
    #expect(state.lastCourse == nil)
    state.setLastMotion(speed: nil, course: 0)
    #expect(state.lastSpeed == nil)
    #expect(state.lastCourse?.bitPattern == (0.0 as Double).bitPattern)
    state.setLastMotion(speed: 12.5, course: .greatestFiniteMagnitude)
    #expect(state.lastSpeed == 12.5)
    #expect(state.lastCourse == .greatestFiniteMagnitude)
    state.setLastMotion(speed: nil, course: nil)
    #expect(state.lastSpeed == nil)
    #expect(state.lastCourse == nil)
  }
}

/// A zone record keeps its optional values (the exit's speed and course, the MRT window's
/// start, the stay's end at this fix) as values with a bit each: 120 bytes, each value back
/// exactly as set and independent of the others.
@Suite struct ZoneRecordStorageTests {
  @Test func optionalValuesComeBackExactly() {
    #expect(MemoryLayout<ZoneRecord>.stride == 120)
    var record = ZoneRecord(zone: 3)
    #expect(record.exitSpeed == nil && record.exitCourse == nil)
    #expect(record.windowStart == nil && record.checkedInUntil == nil)
    record.exitSpeed = -0.0
    #expect(record.exitSpeed?.sign == .minus)
    #expect(record.exitCourse == nil && record.windowStart == nil && record.checkedInUntil == nil)
    record.exitCourse = 359.5
    record.windowStart = Timestamp(microsecondsSinceEpoch: -1)
    record.checkedInUntil = Timestamp(microsecondsSinceEpoch: 0)
    #expect(record.exitSpeed == 0 && record.exitCourse == 359.5)
    #expect(record.windowStart == Timestamp(microsecondsSinceEpoch: -1))
    #expect(record.checkedInUntil == Timestamp(microsecondsSinceEpoch: 0))
    record.resetMarks()
    #expect(record.checkedInUntil == nil)
    #expect(record.exitSpeed == 0 && record.exitCourse == 359.5 && record.windowStart != nil)
    record.exitSpeed = nil
    record.windowStart = nil
    #expect(record.exitSpeed == nil && record.windowStart == nil && record.exitCourse == 359.5)
    #expect(record.zone == 3)
  }
}
