import FenceFormats
import FuzzSupport

/// The GPX track reader (its streaming XML scanner) on any bytes, as a `.gpx` file: it must end
/// with fixes or a ``TrackReadError``, never trap, and its lenient and strict passes must agree
/// (``TrackFileReading/checkLenientAgainstStrict(path:options:)``).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGPX(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  let bytes = UnsafeBufferPointer(start: data, count: size)
  withScratchFile(holding: bytes, suffix: ".gpx") { path in
    TrackFileReading.checkLenientAgainstStrict(path: path, options: TrackReadOptions())
  }
  return 0
}

/// Runs libFuzzer on ``fuzzGPX(_:_:)`` (see ``FuzzSupport/runFuzzer(_:)``).
@main
enum FuzzGPXMain {
  static func main() { runFuzzer(fuzzGPX) }
}
