/// How to read track files.
public struct TrackReadOptions: Hashable, Sendable {
  /// The format; `nil` chooses by file extension (``TrackFormat/init(path:)``).
  public var format: TrackFormat?
  /// CSV column names that override the defaults, one per field.
  public var columns: CSVColumns
  /// The unit of the CSV speed column; `nil` means knots for a column named `sog` and metres
  /// per second for any other.
  public var speedUnit: SpeedUnit?
  /// The CSV field separator (an ASCII byte; default `,`).
  public var delimiter: UInt8
  /// The device for fixes whose file names none: a CSV without a device column, or a GPX
  /// track without a `name` (default: the file name without its extensions).
  public var device: String?
  /// Whether a row that cannot be parsed ends reading with an error instead of being skipped.
  public var strict: Bool
  /// How many skipped-row issues a reader keeps (all are counted).
  public var maximumRetainedIssues: Int

  public init(
    format: TrackFormat? = nil, columns: CSVColumns = CSVColumns(), speedUnit: SpeedUnit? = nil,
    delimiter: UInt8 = UInt8(ascii: ","), device: String? = nil, strict: Bool = false,
    maximumRetainedIssues: Int = 1000
  ) {
    self.format = format
    self.columns = columns
    self.speedUnit = speedUnit
    self.delimiter = delimiter
    self.device = device
    self.strict = strict
    self.maximumRetainedIssues = maximumRetainedIssues
  }
}

/// Column names of a CSV track file. Each `nil` is found from the header by the spec's
/// candidate names (case-insensitive, first candidate present wins).
public struct CSVColumns: Hashable, Sendable {
  public var device: String?
  public var time: String?
  public var latitude: String?
  public var longitude: String?
  public var accuracy: String?
  public var speed: String?
  public var course: String?

  public init(
    device: String? = nil, time: String? = nil, latitude: String? = nil,
    longitude: String? = nil, accuracy: String? = nil, speed: String? = nil,
    course: String? = nil
  ) {
    self.device = device
    self.time = time
    self.latitude = latitude
    self.longitude = longitude
    self.accuracy = accuracy
    self.speed = speed
    self.course = course
  }

  /// Candidate header names per field, in priority order (formats.md).
  public static let deviceCandidates = [
    "device", "device_id", "id", "mmsi", "object_id", "name", "vehicle",
  ]
  public static let timeCandidates = ["time", "timestamp", "datetime", "basedatetime", "date_time"]
  public static let latitudeCandidates = ["lat", "latitude"]
  public static let longitudeCandidates = ["lon", "lng", "long", "longitude"]
  public static let accuracyCandidates = ["accuracy", "hacc", "horizontal_accuracy"]
  /// `speed` is in metres per second, `sog` in knots.
  public static let speedCandidates = ["speed", "sog"]
  public static let courseCandidates = ["course", "cog", "bearing", "heading"]
}

/// A unit of speed in a track file; fixes always carry metres per second.
public enum SpeedUnit: String, Hashable, Sendable, CaseIterable {
  case metresPerSecond, knots, kilometresPerHour

  /// Metres per second in one unit (a knot is 1852 m per hour).
  public var metresPerSecond: Double {
    switch self {
    case .metresPerSecond: return 1
    case .knots: return 1852.0 / 3600.0
    case .kilometresPerHour: return 1000.0 / 3600.0
    }
  }

  /// `value` in this unit, in metres per second.
  ///
  /// Knots and km/h are converted as `value * 1852 / 3600` and `value * 1000 / 3600` (one
  /// multiplication, then one division), so `10 kn` is exactly `18520.0 / 3600`.
  @inlinable
  public func toMetresPerSecond(_ value: Double) -> Double {
    switch self {
    case .metresPerSecond: return value
    case .knots: return value * 1852 / 3600
    case .kilometresPerHour: return value * 1000 / 3600
    }
  }
}
