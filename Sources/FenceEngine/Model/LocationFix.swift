import FenceGeometry

/// One location report of one device.
///
/// Coordinates are kept as given: the engine itself rejects a fix whose coordinates are not
/// finite or out of range (`invalidCoordinate`) or exactly (0, 0) (`nullIsland`), counting the
/// reason, so nothing is lost between a reader and the engine.
public struct LocationFix: Hashable, Sendable {
  /// The device's identifier (an MMSI, a phone's install id, ...).
  public var device: String
  /// When the device was there.
  public var time: Timestamp
  /// WGS84 degrees.
  public var latitude: Double
  /// WGS84 degrees.
  public var longitude: Double
  /// Horizontal accuracy in metres, when reported.
  public var accuracy: Double?
  /// Speed over ground in metres per second, when reported.
  public var speed: Double?
  /// Course over ground in degrees clockwise from true north, when reported.
  public var course: Double?

  /// A fix; the optional fields default to not reported.
  public init(
    device: String, time: Timestamp, latitude: Double, longitude: Double,
    accuracy: Double? = nil, speed: Double? = nil, course: Double? = nil
  ) {
    self.device = device
    self.time = time
    self.latitude = latitude
    self.longitude = longitude
    self.accuracy = accuracy
    self.speed = speed
    self.course = course
  }
}
