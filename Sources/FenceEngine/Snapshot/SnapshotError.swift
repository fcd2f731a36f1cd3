/// Bytes that are not a snapshot this version can read, or a snapshot that does not fit the
/// evaluator it is restored into.
///
/// Decoding and restoring check everything before anything changes: a restore that throws
/// leaves the evaluator as it was.
public struct SnapshotError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What is wrong.
  public enum Fault: Hashable, Sendable {
    /// The bytes end before the snapshot does: `needed` bytes, only `available`.
    case truncated(needed: Int, available: Int)
    /// The first four bytes are not `FKES` (not a FenceKit evaluator snapshot).
    case wrongMagic([UInt8])
    /// The snapshot was written in a format version this code cannot read.
    case unsupportedVersion(UInt16, supported: UInt16)
    /// More bytes follow the end of the snapshot.
    case trailingBytes(Int)
    /// The checksum over the snapshot's bytes does not match: the bytes were changed.
    case checksumMismatch(stored: UInt64, computed: UInt64)
    /// A value cannot be right (an unknown code, a count larger than the bytes left, an
    /// invalid coordinate or string).
    case malformed(String)
    /// The snapshot was taken from an evaluator with other zones (fingerprints differ).
    case zoneMismatch(snapshot: UInt64, evaluator: UInt64)
    /// The snapshot names a zone or fence the evaluator does not have.
    case unknownID(String)
  }

  /// What is wrong.
  public var fault: Fault
  /// The byte offset in the encoding where the fault was found, when decoding.
  public var offset: Int?

  /// An error with `fault`, found at `offset` when decoding.
  public init(_ fault: Fault, offset: Int? = nil) {
    self.fault = fault
    self.offset = offset
  }

  public var description: String {
    let place = offset.map { "snapshot byte \($0)" } ?? "snapshot"
    switch fault {
    case .truncated(let needed, let available):
      return "\(place): truncated, needs \(needed) bytes but only \(available) are there"
    case .wrongMagic(let bytes):
      let hex = bytes.map { String($0, radix: 16) }.joined(separator: " ")
      return "\(place): not a FenceKit evaluator snapshot (starts with \(hex), expected FKES)"
    case .unsupportedVersion(let version, let supported):
      return "\(place): format version \(version) is not supported (this code reads \(supported))"
    case .trailingBytes(let count):
      return "\(place): \(count) unexpected bytes after the end of the snapshot"
    case .checksumMismatch(let stored, let computed):
      return "\(place): checksum \(stored) does not match the bytes (\(computed)): corrupted"
    case .malformed(let what):
      return "\(place): malformed, \(what)"
    case .zoneMismatch(let snapshot, let evaluator):
      return
        "\(place): taken with other zones (fingerprint \(hex16(snapshot))) than the evaluator's "
        + "(\(hex16(evaluator))); restore into an evaluator built from the same zones"
    case .unknownID(let id):
      return "\(place): names \"\(id)\", which the evaluator does not have"
    }
  }
}

/// 16 lowercase hexadecimal digits.
func hex16(_ value: UInt64) -> String {
  let digits = String(value, radix: 16)
  return String(repeating: "0", count: 16 - digits.count) + digits
}
