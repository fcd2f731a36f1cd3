/// A latitude/longitude box that may cross the antimeridian.
///
/// `west` and `east` are the longitudes of the box's western and eastern edges. When
/// `west > east` the box crosses the antimeridian: a box from 170 to -170 holds longitude 180
/// (and -180, the same meridian), not 0. Latitudes are plain: `south <= north`.
public struct BoundingBox: Hashable, Sendable, CustomStringConvertible {
  public var south: Double
  public var west: Double
  public var north: Double
  public var east: Double

  /// A box from its edges. `west > east` means the box crosses the antimeridian.
  @inlinable
  public init(south: Double, west: Double, north: Double, east: Double) {
    self.south = south
    self.west = west
    self.north = north
    self.east = east
  }

  /// The box holding one position.
  @inlinable
  public init(_ c: Coordinate) {
    self.init(south: c.latitude, west: c.longitude, north: c.latitude, east: c.longitude)
  }

  /// The box holding every longitude between the given latitudes.
  @inlinable
  public static func allLongitudes(south: Double, north: Double) -> BoundingBox {
    BoundingBox(south: south, west: -180, north: north, east: 180)
  }

  /// Whether the box crosses the antimeridian (`west > east`).
  @inlinable
  public var crossesAntimeridian: Bool { west > east }

  /// Whether the box holds a position (edges included).
  @inlinable
  public func contains(latitude: Double, longitude: Double) -> Bool {
    guard latitude >= south, latitude <= north else { return false }
    if west <= east { return longitude >= west && longitude <= east }
    return longitude >= west || longitude <= east || abs(longitude) == 180
  }

  /// Whether the box holds a position (edges included).
  @inlinable
  public func contains(_ c: Coordinate) -> Bool {
    contains(latitude: c.latitude, longitude: c.longitude)
  }

  /// The box split at the antimeridian into one or two boxes with `west <= east`.
  ///
  /// The index stores these planar parts; a box that does not cross gives itself.
  @inlinable
  public var planarParts: (BoundingBox, BoundingBox?) {
    if west <= east { return (self, nil) }
    return (
      BoundingBox(south: south, west: west, north: north, east: 180),
      BoundingBox(south: south, west: -180, north: north, east: east)
    )
  }

  /// Whether two planar boxes (neither crossing the antimeridian) share any point.
  @inlinable
  public func planarIntersects(_ other: BoundingBox) -> Bool {
    south <= other.north && north >= other.south && west <= other.east && east >= other.west
  }

  /// Whether two boxes share any point, either of them possibly crossing the antimeridian.
  public func intersects(_ other: BoundingBox) -> Bool {
    let (a0, a1) = planarParts
    let (b0, b1) = other.planarParts
    if a0.planarIntersects(b0) { return true }
    if let b1, a0.planarIntersects(b1) { return true }
    if let a1 {
      if a1.planarIntersects(b0) { return true }
      if let b1, a1.planarIntersects(b1) { return true }
    }
    return false
  }

  public var description: String {
    "[lat \(south)...\(north), lon \(west)...\(east)\(crossesAntimeridian ? " across 180" : "")]"
  }
}
