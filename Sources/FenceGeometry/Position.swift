/// A validated position together with its ECEF vector, computed once per fix.
///
/// Every containment and distance test of one fix takes a `Position`, so the trigonometry is
/// paid once per fix rather than once per fence.
public struct Position: Hashable, Sendable {
  public let coordinate: Coordinate
  public let ecef: ECEFPosition

  @inlinable
  public init(_ coordinate: Coordinate) {
    self.coordinate = coordinate
    self.ecef = ECEFPosition(coordinate)
  }

  @inlinable public var latitude: Double { coordinate.latitude }
  @inlinable public var longitude: Double { coordinate.longitude }
}
