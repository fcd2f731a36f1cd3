/// A GEOS call that failed, with the function's name and GEOS's own message.
///
/// GEOS reports failures through a sentinel (a null pointer, 0 from a count or flag, 2 from a
/// predicate) and a message handler; ``GEOSContext`` captures that message so it ends up here.
public struct GEOSError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The C function that reported the failure, such as `"GEOSPreparedCovers_r"`.
  public let function: String
  /// GEOS's error text (for example `"IllegalArgumentException: Points of LinearRing do not form
  /// a closed linestring"`), or a note that GEOS gave none.
  public let message: String

  public init(function: String, message: String) {
    self.function = function
    self.message = message
  }

  public var description: String { "\(function) failed: \(message)" }
}
