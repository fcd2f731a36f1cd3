internal import CZlib

/// Why gzip data could not be inflated.
public enum GunzipError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The data inflates to more than `limit` bytes. Inflating stopped as soon as the output
  /// would have gone past the limit, so no more than about `limit` bytes were allocated.
  case largerThanLimit(limit: Int)
  /// The input ends inside a gzip member: in its header, its compressed data or its 8-byte
  /// trailer. An empty input is truncated too (a gzip stream has at least one member).
  case truncated
  /// The input does not start with a gzip header, or the bytes after a complete member do not
  /// start another one (trailing garbage, including zero padding). `detail` says which.
  case badHeader(detail: String)
  /// The header was read but the compressed data is damaged, or its CRC-32 or length check
  /// fails (zlib's "incorrect data check" and "incorrect length check"). `detail` is zlib's
  /// message, with the member's number when it is not the first.
  case corrupt(detail: String)
  /// zlib itself failed (it could not start, or ran out of memory).
  case zlibFailure(detail: String)

  /// What went wrong, as a sentence fragment for a log line or an HTTP error body.
  public var reason: String {
    switch self {
    case .largerThanLimit(let limit):
      return "the uncompressed data is larger than the limit of \(limit) bytes"
    case .truncated: return "the gzip data is truncated"
    case .badHeader(let detail): return "not gzip data: \(detail)"
    case .corrupt(let detail): return "corrupt gzip data: \(detail)"
    case .zlibFailure(let detail): return "zlib failed: \(detail)"
    }
  }

  public var description: String { reason }
}

/// Inflates gzip data (RFC 1952) held in memory, through the system zlib, with a bound on the
/// size of the result so a small hostile input (a "gzip bomb") cannot exhaust memory.
///
/// Only the gzip format is accepted: neither raw deflate nor the zlib format (RFC 1950), and
/// not plain text passed through either. Several members one after the other (as `cat a.gz
/// b.gz` makes them) inflate to the concatenation of their data; anything after the last
/// member is an error, even zero padding.
public enum Gunzip {
  /// How many bytes zlib writes per call; the output grows from these pieces.
  static let pieceSize = 1 << 16

  /// The uncompressed bytes of gzip data.
  ///
  /// Memory: the result grows as the data inflates, with its capacity never set beyond
  /// `limit`, plus one 64 KiB scratch buffer; the whole input is not inflated first and
  /// checked afterwards. Every member's CRC-32 and length are checked.
  ///
  /// - Parameter limit: the largest acceptable result in bytes (>= 0); one byte more is an
  ///   error.
  /// - Throws: ``GunzipError``: `.largerThanLimit` as soon as the output would exceed `limit`;
  ///   `.truncated`, `.badHeader` or `.corrupt` for input that is not complete, intact gzip.
  public static func inflate(_ bytes: [UInt8], limit: Int) throws(GunzipError) -> [UInt8] {
    try inflateCountingOutput(bytes, limit: limit).result.get()
  }

  /// ``inflate(_:limit:)``'s result (which it unwraps), and how many bytes zlib inflated in all
  /// before it returned or stopped: at most `limit` plus one piece (``pieceSize``) when it stops
  /// at the limit (tests read it: a gzip bomb must stop there, not inflate on).
  static func inflateCountingOutput(
    _ bytes: [UInt8], limit: Int
  ) -> (result: Result<[UInt8], GunzipError>, inflated: Int) {
    precondition(limit >= 0, "the limit of Gunzip.inflate must be >= 0, got \(limit)")
    guard !bytes.isEmpty else { return (.failure(.truncated), 0) }
    let inflater: Inflater
    do { inflater = try Inflater() } catch { return (.failure(error), 0) }
    let result = bytes.withUnsafeBufferPointer { input in
      Result { () throws(GunzipError) in try inflater.inflate(input, limit: limit) }
    }
    return (result, inflater.inflatedBytes)
  }
}

/// One zlib inflate stream and its scratch buffer, freed on deinit.
///
/// zlib keeps a pointer back to its `z_stream` and checks it on every call, so the stream lives
/// at a fixed heap address rather than in a Swift variable.
private final class Inflater {
  let stream: UnsafeMutablePointer<z_stream>
  /// Filled in by zlib as it reads a member's header; `done` tells whether the header is
  /// complete, which separates a bad header from bad data.
  let header: UnsafeMutablePointer<gz_header>
  /// The bytes zlib has inflated so far, over every member (tests).
  private(set) var inflatedBytes = 0
  let piece: UnsafeMutablePointer<UInt8>

  init() throws(GunzipError) {
    stream = .allocate(capacity: 1)
    stream.initialize(to: z_stream())
    header = .allocate(capacity: 1)
    header.initialize(to: gz_header())
    piece = .allocate(capacity: Gunzip.pieceSize)
    // windowBits 16 + 15: gzip only, with the largest window.
    let status = inflateInit2_(stream, 16 + MAX_WBITS, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
    guard status == Z_OK else {
      let detail = message(status)
      stream.deinitialize(count: 1)
      stream.deallocate()
      header.deinitialize(count: 1)
      header.deallocate()
      piece.deallocate()
      throw .zlibFailure(detail: "inflateInit2 returned \(detail)")
    }
    inflateGetHeader(stream, header)
  }

  deinit {
    inflateEnd(stream)
    stream.deinitialize(count: 1)
    stream.deallocate()
    header.deinitialize(count: 1)
    header.deallocate()
    piece.deallocate()
  }

  /// zlib's message for the last error, else the status code's name.
  func message(_ status: Int32) -> String {
    if let text = stream.pointee.msg { return String(cString: text) }
    switch status {
    case Z_MEM_ERROR: return "out of memory"
    case Z_STREAM_ERROR: return "inconsistent stream state"
    case Z_VERSION_ERROR: return "incompatible zlib version"
    case Z_NEED_DICT: return "a preset dictionary is needed"
    default: return "status \(status)"
    }
  }

  func inflate(_ input: UnsafeBufferPointer<UInt8>, limit: Int) throws(GunzipError) -> [UInt8] {
    guard let base = input.baseAddress else { throw .truncated }
    var output: [UInt8] = []
    // zlib's avail_in is 32 bits: hand the input over in pieces of at most 4 GiB - 1.
    var handedOver = 0
    var member = 1
    func inMember(_ detail: String) -> String { member == 1 ? detail : "member \(member): \(detail)" }
    stream.pointee.avail_in = 0
    while true {
      if stream.pointee.avail_in == 0, handedOver < input.count {
        let count = min(input.count - handedOver, Int(UInt32.max))
        stream.pointee.next_in = UnsafeMutablePointer(mutating: base + handedOver)
        stream.pointee.avail_in = UInt32(count)
        handedOver += count
      }
      stream.pointee.next_out = piece
      stream.pointee.avail_out = UInt32(Gunzip.pieceSize)
      let status = CZlib.inflate(stream, Z_NO_FLUSH)
      let produced = Gunzip.pieceSize - Int(stream.pointee.avail_out)
      inflatedBytes += produced
      if produced > 0 {
        guard produced <= limit - output.count else { throw .largerThanLimit(limit: limit) }
        if output.count + produced > output.capacity {
          // Grow geometrically, but never reserve past the limit.
          output.reserveCapacity(min(limit, max(output.capacity * 2, output.count + produced)))
        }
        output.append(contentsOf: UnsafeBufferPointer(start: piece, count: produced))
      }
      switch status {
      case Z_OK:
        continue
      case Z_STREAM_END:
        let consumed = handedOver - Int(stream.pointee.avail_in)
        if consumed == input.count { return output }
        // More bytes: they must be another member.
        guard input[consumed] == 0x1F else {
          throw .badHeader(
            detail: "\(input.count - consumed) bytes after gzip member \(member) do not start another member")
        }
        guard inflateReset(stream) == Z_OK else {
          throw .zlibFailure(detail: "inflateReset failed")
        }
        inflateGetHeader(stream, header)
        member += 1
      case Z_BUF_ERROR:
        // No progress with room for output: the input ran out inside a member.
        if stream.pointee.avail_in == 0, handedOver == input.count { throw .truncated }
        throw .zlibFailure(detail: inMember(message(status)))
      case Z_DATA_ERROR, Z_NEED_DICT:
        let detail = inMember(message(status))
        // `done` is 1 once the header is complete (-1 when the input is not gzip at all).
        if header.pointee.done != 1 { throw .badHeader(detail: detail) }
        throw .corrupt(detail: detail)
      default:
        throw .zlibFailure(detail: inMember(message(status)))
      }
    }
  }
}
