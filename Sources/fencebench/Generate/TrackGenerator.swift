import FenceEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes synthetic device tracks as CSV (`device,time,lat,lon,speed,course`), streaming, with
/// rows in time order across devices (so `fencebench run --presorted` can read them as they
/// are).
///
/// Each device starts at a random position in the box and moves `speed` m/s between fixes
/// `step` seconds apart:
/// - `walk`: a random walk whose heading turns by up to ±0.5 rad per fix; a device that would
///   leave the box turns back.
/// - `waypoint`: straight legs towards random waypoints in the box, a new one on arrival.
///
/// The written position is the true one plus `jitter` metres of uniform noise in a disc (GPS
/// error); `speed` and `course` are the true movement's.
///
/// - Complexity: O(`devices` × `fixes`) time, O(`devices`) memory.
struct TrackGenerator {
  enum Movement: String, CaseIterable, Sendable {
    case walk, waypoint
  }

  var devices: Int
  var fixes: Int
  var step: Double
  var speed: Double
  var jitter: Double
  var movement: Movement
  var box: GeneratorBox
  var start: Timestamp
  var seed: UInt64

  private struct Device {
    var id: String
    var latitude: Double
    var longitude: Double
    var heading: Double
    var target: (latitude: Double, longitude: Double)
  }

  func write(to output: OutputFile) throws {
    var random = SplitMix64(seed: seed)
    let metresPerLat = box.metresPerDegreeLatitude
    let metresPerLon = box.metresPerDegreeLongitude
    let width = String(max(devices - 1, 0)).count
    var states: [Device] = (0..<devices).map { index in
      let position = box.randomPosition(using: &random)
      let digits = String(index)
      let id = "d" + String(repeating: "0", count: width - digits.count) + digits
      return Device(
        id: id, latitude: position.latitude, longitude: position.longitude,
        heading: random.uniform(0...(2 * Double.pi)), target: box.randomPosition(using: &random))
    }
    try output.write("device,time,lat,lon,speed,course\n")
    let distance = speed * step
    for fix in 0..<fixes {
      let time = RFC3339.format(start.adding(seconds: Double(fix) * step))
      for index in states.indices {
        if fix > 0 { advance(&states[index], by: distance, metresPerLat, metresPerLon, &random) }
        let device = states[index]
        let noise = jitter * random.unit().squareRoot()
        let noiseAngle = random.uniform(0...(2 * Double.pi))
        let lat = device.latitude + noise * sin(noiseAngle) / metresPerLat
        let lon = device.longitude + noise * cos(noiseAngle) / metresPerLon
        var course = 90 - device.heading * 180 / .pi
        course = course.truncatingRemainder(dividingBy: 360)
        if course < 0 { course += 360 }
        try output.write(device.id)
        try output.write(",")
        try output.write(time)
        try output.write(",")
        try output.write(fixed: lat, digits: 6)
        try output.write(",")
        try output.write(fixed: lon, digits: 6)
        try output.write(",")
        try output.write(fixed: speed, digits: 2)
        try output.write(",")
        try output.write(fixed: course, digits: 1)
        try output.write("\n")
      }
    }
    try output.close()
  }

  /// Moves a device `distance` metres; `heading` is mathematical (radians counter-clockwise
  /// from east).
  private func advance(
    _ device: inout Device, by distance: Double, _ metresPerLat: Double, _ metresPerLon: Double,
    _ random: inout SplitMix64
  ) {
    switch movement {
    case .walk:
      device.heading += random.uniform(-0.5...0.5)
    case .waypoint:
      var dy = (device.target.latitude - device.latitude) * metresPerLat
      var dx = (device.target.longitude - device.longitude) * metresPerLon
      if (dx * dx + dy * dy).squareRoot() <= distance {
        device.target = box.randomPosition(using: &random)
        dy = (device.target.latitude - device.latitude) * metresPerLat
        dx = (device.target.longitude - device.longitude) * metresPerLon
      }
      device.heading = atan2(dy, dx)
    }
    var lat = device.latitude + distance * sin(device.heading) / metresPerLat
    var lon = device.longitude + distance * cos(device.heading) / metresPerLon
    if lat < box.south || lat > box.north {
      device.heading = -device.heading
      lat = min(max(lat, box.south), box.north)
    }
    if lon < box.west || lon > box.east {
      device.heading = .pi - device.heading
      lon = min(max(lon, box.west), box.east)
    }
    device.latitude = lat
    device.longitude = lon
  }
}
