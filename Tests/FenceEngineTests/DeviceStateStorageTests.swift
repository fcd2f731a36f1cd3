import Testing

@testable import FenceEngine

/// A device's state keeps whether its last fix had a speed and a course as bits of one byte:
/// the values come back exactly as set, each independent of the other, in 120 bytes.
@Suite struct DeviceStateStorageTests {
  @Test func speedAndCourseComeBackExactly() {
    #expect(MemoryLayout<DeviceState>.stride == 120)
    var state = DeviceState(name: "d")
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
