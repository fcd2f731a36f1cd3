/// A disc on the ellipsoid: every position whose WGS84 distance from `center` is at most `radius`.
///
/// The boundary counts as inside. Membership is tested by comparing the squared ECEF chord from
/// the centre with a chord computed from the radius, which is exact up to the chord/arc
/// conversion (well under 1 mm at 10 km).
///
/// A circle keeps only its centre and radius (24 bytes): its ECEF centre, chord limit and local
/// radius are computed when read (a few sines and a square root each). Zone values of a million
/// circles held 40 bytes more each, in every copy a load makes. Code that tests one circle
/// many times keeps its ``chordTest``.
public struct Circle: Hashable, Sendable {
  /// The radius a point fence gets when its user did not choose one, in metres.
  public static let defaultPointRadius = 100.0

  public let center: Coordinate
  /// Metres, finite and greater than 0.
  public let radius: Double

  /// The centre as an ECEF vector.
  @inlinable
  public var centerECEF: ECEFPosition { ECEFPosition(center) }
  /// The Gaussian radius of curvature at the centre, used for chord/arc conversion.
  @inlinable
  public var localRadius: Double { WGS84.gaussianRadius(latitude: center.latitude) }
  /// The squared chord that corresponds to `radius` at the centre's latitude.
  @inlinable
  public var chordSquaredLimit: Double {
    let chord = WGS84.chord(arc: radius, radius: localRadius)
    return chord * chord
  }

  /// A circle of `radius` metres around `center`.
  ///
  /// - Throws: ``GeometryError/Fault/nonPositiveRadius(_:)`` when the radius is not a finite
  ///   number greater than 0.
  public init(center: Coordinate, radius: Double, name: String = "circle") throws {
    guard radius.isFinite, radius > 0 else {
      throw GeometryError(shape: name, fault: .nonPositiveRadius(radius))
    }
    self.init(validatedCenter: center, radius: radius)
  }

  /// A circle of `radius` metres around `center`, which the caller has checked to be a finite
  /// number greater than 0 (the engine makes a circle again from the centre and radius it
  /// keeps).
  package init(validatedCenter center: Coordinate, radius: Double) {
    self.center = center
    self.radius = radius
  }

  /// The containment test with its ECEF centre and chord limit computed once, for testing one
  /// circle against many positions.
  @inlinable
  public var chordTest: ChordTest {
    ChordTest(centerECEF: centerECEF, chordSquaredLimit: chordSquaredLimit)
  }

  /// A circle's containment test on ECEF vectors, as ``Circle/contains(_:)-(ECEFPosition)``.
  public struct ChordTest: Hashable, Sendable {
    public let centerECEF: ECEFPosition
    public let chordSquaredLimit: Double

    @usableFromInline
    init(centerECEF: ECEFPosition, chordSquaredLimit: Double) {
      self.centerECEF = centerECEF
      self.chordSquaredLimit = chordSquaredLimit
    }

    /// Whether the circle holds a position whose ECEF vector is given (boundary included).
    @inlinable
    public func contains(_ position: ECEFPosition) -> Bool {
      centerECEF.chordSquared(to: position) <= chordSquaredLimit
    }
  }

  /// Whether the circle holds a position whose ECEF vector is given (boundary included).
  @inlinable
  public func contains(_ position: ECEFPosition) -> Bool {
    chordTest.contains(position)
  }

  /// Whether the circle holds a position (boundary included).
  @inlinable
  public func contains(_ c: Coordinate) -> Bool {
    contains(ECEFPosition(c))
  }

  /// Metres from the centre to a position whose ECEF vector is given.
  @inlinable
  public func distanceFromCenter(_ position: ECEFPosition) -> Double {
    WGS84.arc(chord: centerECEF.chord(to: position), radius: localRadius)
  }

  /// Metres from a position to the circle: 0 inside, else the distance to its edge.
  @inlinable
  public func distance(from position: ECEFPosition) -> Double {
    max(0, distanceFromCenter(position) - radius)
  }

  /// Metres from a position to the circle's edge, whether inside or outside.
  @inlinable
  public func distanceToBoundary(from position: ECEFPosition) -> Double {
    abs(distanceFromCenter(position) - radius)
  }

  /// A box that holds the whole circle, crossing the antimeridian or spanning every longitude
  /// (when the circle holds a pole) as needed.
  public var boundingBox: BoundingBox { Self.boundingBox(center: center, radius: radius) }

  /// ``boundingBox`` of the circle of `radius` metres around `center`, without making the
  /// circle (its box needs neither its ECEF centre nor its chord).
  public static func boundingBox(center: Coordinate, radius: Double) -> BoundingBox {
    // Degrees of latitude per metre is smallest where M is largest (the poles); use the smallest
    // radius of curvature so the box errs on the large side, plus a relative margin.
    let margin = 1.0 + 1e-9
    let dLat = radius / WGS84.minimumRadiusOfCurvature * 180 / .pi * margin
    let south = center.latitude - dLat
    let north = center.latitude + dLat
    if south <= -90 || north >= 90 {
      return .allLongitudes(south: max(south, -90), north: min(north, 90))
    }
    // The widest longitude extent is reached away from the centre's parallel; bound it with the
    // parallel closest to the pole inside the latitude band.
    let poleward = max(abs(south), abs(north)) * .pi / 180
    let parallelRadius = WGS84.minimumRadiusOfCurvature * cos(poleward)
    let ratio = radius * margin / parallelRadius
    if ratio >= 1 { return .allLongitudes(south: south, north: north) }
    let dLon = asin(ratio) * 180 / .pi * margin
    if dLon >= 180 { return .allLongitudes(south: south, north: north) }
    var west = center.longitude - dLon
    var east = center.longitude + dLon
    if west < -180 { west += 360 }
    if east > 180 { east -= 360 }
    return BoundingBox(south: south, west: west, north: north, east: east)
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif
