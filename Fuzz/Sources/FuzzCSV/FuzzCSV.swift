import FenceFormats
import FuzzSupport

/// The CSV track reader on any bytes, as a `.csv` file (gzip bytes are read through zlib, as
/// for a `.csv.gz`): it must end with fixes or a ``TrackReadError``, never trap, and its
/// lenient and strict passes must agree (``TrackFileReading/checkLenientAgainstStrict(path:options:)``),
/// and `readAll()` must give what a loop of `next()` gives
/// (``TrackFileReading/checkReadAll(path:options:against:)``).
/// A second pass reads the same bytes as semicolon-separated values.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCSV(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  let bytes = UnsafeBufferPointer(start: data, count: size)
  withScratchFile(holding: bytes, suffix: ".csv") { path in
    TrackFileReading.checkLenientAgainstStrict(path: path, options: TrackReadOptions())
    TrackFileReading.checkLenientAgainstStrict(
      path: path,
      options: TrackReadOptions(delimiter: UInt8(ascii: ";"), device: "fixed", maximumRetainedIssues: 2))
  }
  return 0
}

/// Runs libFuzzer on ``fuzzCSV(_:_:)`` (see ``FuzzSupport/runFuzzer(_:)``).
@main
enum FuzzCSVMain {
  static func main() { runFuzzer(fuzzCSV) }
}
