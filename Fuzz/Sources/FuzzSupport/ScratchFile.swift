#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs `body` with the path of a file holding `bytes`, for the readers that only read files.
///
/// The file lives in `/dev/shm` (memory, so an execution costs no disk I/O) or, where that does
/// not exist, in `$TMPDIR` or `/tmp`; its name holds the process id, so fuzzers running side by
/// side never share one. It is removed when `body` returns. `suffix` is the extension the
/// reader chooses its format by (`.csv`, `.gpx`, `.ndjson`).
public func withScratchFile<Result>(
  holding bytes: UnsafeBufferPointer<UInt8>, suffix: String, _ body: (String) throws -> Result
) rethrows -> Result {
  let path = scratchDirectory() + "/fencekit-fuzz-\(getpid())\(suffix)"
  let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
  guard descriptor >= 0 else { fatalError("cannot create \(path): \(String(cString: strerror(errno)))") }
  var written = 0
  while written < bytes.count {
    let count = write(descriptor, bytes.baseAddress! + written, bytes.count - written)
    guard count > 0 else { fatalError("cannot write \(path): \(String(cString: strerror(errno)))") }
    written += count
  }
  close(descriptor)
  defer { unlink(path) }
  return try body(path)
}

/// `/dev/shm` when it can be written, else `$TMPDIR`, else `/tmp`.
private func scratchDirectory() -> String {
  if access("/dev/shm", W_OK) == 0 { return "/dev/shm" }
  if let temporary = getenv("TMPDIR") { return String(cString: temporary) }
  return "/tmp"
}
