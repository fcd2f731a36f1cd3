import ArgumentParser

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a run writes: checked against its inputs before anything is opened, and written
/// through a temporary file beside the destination that replaces it only when the run succeeds.
///
/// So `--events` naming a track or zone file is refused instead of truncating it, `--events`
/// and `--map` cannot name one file, and a failed run leaves neither an empty nor a partial
/// output behind (an existing file of that name is kept as it was). A device or a named pipe
/// (`--events /dev/null`) is written directly: renaming over it would replace it.
enum OutputPaths {
  /// Refuses an output that is an input or another output: the same path once made absolute
  /// and cleaned up (`./a/../b`), or the same file through a link (device and inode).
  ///
  /// `-` (standard output) is not a path; two outputs on `-` are refused too.
  static func checkCollisions(inputs: [(name: String, path: String)], outputs: [(name: String, path: String)])
    throws
  {
    for (index, output) in outputs.enumerated() {
      for other in outputs[..<index] where other.path == output.path || sameFile(other.path, output.path) {
        throw ValidationError("\(output.name) and \(other.name) name the same file (\(output.path)); give each output its own.")
      }
      guard output.path != "-" else { continue }
      for input in inputs where sameFile(input.path, output.path) {
        throw ValidationError(
          "\(output.name) \(output.path) is the \(input.name) \(input.path): writing it would destroy the input.")
      }
    }
  }

  /// Whether two paths are the same file (or would be, for one that does not exist yet).
  static func sameFile(_ a: String, _ b: String) -> Bool {
    if a == "-" || b == "-" { return false }
    if normalized(a) == normalized(b) { return true }
    var first = stat()
    var second = stat()
    guard stat(a, &first) == 0, stat(b, &second) == 0 else { return false }
    return first.st_dev == second.st_dev && first.st_ino == second.st_ino
  }

  /// An absolute path without `.`, `..` or repeated slashes (symbolic links are left to
  /// ``sameFile(_:_:)``'s inode check).
  static func normalized(_ path: String) -> String {
    var absolute = path
    if !path.hasPrefix("/") {
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      if getcwd(&buffer, buffer.count) != nil {
        absolute = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/" + path
      }
    }
    var parts: [Substring] = []
    for part in absolute.split(separator: "/") {
      switch part {
      case ".": continue
      case "..": if !parts.isEmpty { parts.removeLast() }
      default: parts.append(part)
      }
    }
    return "/" + parts.joined(separator: "/")
  }

  /// The temporary path a run writes `path` through, or `nil` when it writes `path` itself:
  /// standard output (`-`), and an existing file that is not a regular file (`/dev/null`, a
  /// named pipe, a terminal), which renaming a finished file over would replace.
  static func temporaryPath(forOutput path: String) -> String? {
    if path == "-" { return nil }
    var status = stat()
    if stat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG { return nil }
    return temporaryPath(for: path)
  }

  /// A temporary path beside `path` that keeps its name's ending (so `.gz` still compresses):
  /// `dir/.name.fencebench-PID.partial-name`.
  static func temporaryPath(for path: String) -> String {
    let slash = path.lastIndex(of: "/")
    let directory = slash.map { String(path[...$0]) } ?? ""
    let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
    return "\(directory).fencebench-\(getpid())-\(name)"
  }

  /// Replaces `path` by the finished temporary file.
  static func commit(_ temporary: String, to path: String) throws {
    guard rename(temporary, path) == 0 else {
      let reason = String(cString: strerror(errno))
      _ = unlink(temporary)
      throw OutputFile.Failure(path: path, reason: "cannot put the finished file in place: \(reason)")
    }
  }

  /// Removes a temporary file of a run that failed.
  static func discard(_ temporary: String) {
    _ = unlink(temporary)
  }
}

/// Standard output with every write checked: a summary that cannot be written (a full disk, a
/// closed pipe) is an error, not a silent exit 0.
enum StandardOutput {
  static func write(_ text: String) throws {
    var text = text
    let failure: Int32? = text.withUTF8 { bytes in
      guard let base = bytes.baseAddress else { return nil }
      var offset = 0
      while offset < bytes.count {
        let written = systemWrite(1, base + offset, bytes.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          return errno
        }
        offset += written
      }
      return nil
    }
    if let failure {
      throw OutputFile.Failure(path: "standard output", reason: String(cString: strerror(failure)))
    }
  }
}

private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
  write(fd, bytes, count)
}
