/// A track file format the readers understand.
public enum TrackFormat: String, Hashable, Sendable, CaseIterable {
  /// Comma-separated values with a header row (see ``CSVColumns``).
  case csv
  /// GPX 1.1 (`trk`/`trkseg`/`trkpt`).
  case gpx
  /// One JSON object per line (`.ndjson`, `.jsonl`): the daemon wire format.
  case ndjson

  /// The format a file name's extension implies, looking through a final `.gz`; `nil` when the
  /// extension is none of `.csv`, `.gpx`, `.ndjson`, `.jsonl` (case-insensitive).
  public init?(path: String) {
    var name = Substring(path.lowercased())
    if name.hasSuffix(".gz") { name = name.dropLast(3) }
    if name.hasSuffix(".csv") {
      self = .csv
    } else if name.hasSuffix(".gpx") {
      self = .gpx
    } else if name.hasSuffix(".ndjson") || name.hasSuffix(".jsonl") {
      self = .ndjson
    } else {
      return nil
    }
  }
}
