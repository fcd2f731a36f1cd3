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

/// A zone record is a plain value of 56 bytes (the first fix of a pending exit is in the
/// evaluator's `PendingExitTable`, the check-in fence an element slot) and keeps the MRT
/// window's start as a value with a bit: back exactly as set, not touched by the per-fix reset.
@Suite struct ZoneRecordStorageTests {
  @Test func theWindowStartComesBackExactly() {
    #expect(MemoryLayout<ZoneRecord>.stride == 56)
    #expect(_isPOD(ZoneRecord.self))
    var record = ZoneRecord(zone: 3)
    #expect(record.windowStart == nil)
    record.windowStart = Timestamp(microsecondsSinceEpoch: 0)
    #expect(record.windowStart == Timestamp(microsecondsSinceEpoch: 0))
    record.windowStart = Timestamp(microsecondsSinceEpoch: -1)
    record.isInsideNow = true
    record.fenceNow = 5
    record.resetMarks()
    #expect(record.windowStart == Timestamp(microsecondsSinceEpoch: -1))
    #expect(!record.isInsideNow && record.fenceNow == -1)
    record.windowStart = nil
    #expect(record.windowStart == nil)
    #expect(record.zone == 3)
  }
}
