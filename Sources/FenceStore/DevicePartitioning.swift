/// Which partition of a scaled-out store a device belongs to: the 64-bit FNV-1a hash of its
/// id's UTF-8 modulo the partition count, the same in every process and every release (Swift's
/// `Hasher` is seeded per process, so it cannot serve).
public struct DevicePartitioning: Hashable, Sendable {
  /// The number of partitions, fixed when the store is created.
  public let count: Int32

  /// - Precondition: `count` is from 1 to 65,536.
  public init(count: Int32) {
    precondition((1...65_536).contains(count), "a partition count is from 1 to 65536")
    self.count = count
  }

  /// The partition of `device`, from 0 to `count - 1`.
  public func partition(of device: String) -> Int32 {
    var hash = ContentHash()
    hash.combine(Array(device.utf8))
    return Int32(hash.value % UInt64(count))
  }
}
