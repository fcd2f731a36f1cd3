import FenceEngine

/// One format's parser, pulling fixes from a ``ByteInput``.
protocol TrackParser: AnyObject {
  /// The next fix, skipping (and logging) rows that cannot be parsed; `nil` at end of input.
  func next(_ log: inout IssueLog) throws(TrackReadError) -> LocationFix?
}

extension InputError {
  var trackReadError: TrackReadError { TrackReadError(file: path, line: line, reason: reason) }
}

/// The file name without directories and without its extensions (`a/b/ferry.gpx.gz` gives
/// `ferry`): the device of a GPX track without a name.
func baseName(of path: String) -> String {
  let name = path.split(separator: "/").last.map(String.init) ?? path
  guard let dot = name.firstIndex(of: "."), dot != name.startIndex else { return name }
  return String(name[..<dot])
}
