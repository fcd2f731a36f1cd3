import CMemoryHints

/// Huge pages under large tables read at random (Linux transparent huge pages).
///
/// A table of hundreds of megabytes read at random, such as a million fences' cores or the
/// point grid's listings, misses the processor's address-translation caches at almost every
/// read with 4 KiB pages, and under a virtual machine each such miss walks two levels of page
/// tables; a prefetch waits for that walk too. Mapped in 2 MiB pages the same table needs a few
/// hundred translations, which stay cached. The kernel is asked to map the table so when its
/// pages are first written: a table is advised right after its storage is reserved, before it is
/// filled (remapping written pages, `MADV_COLLAPSE`, copies them: 0.9 s for a million circles'
/// tables, measured, more than it saves). Contents, addresses and sizes never change.
///
/// On other systems, and for tables smaller than ``minimumBytes``, this does nothing.
public enum HugePages {
  /// Smallest table worth advising: two huge pages.
  public static let minimumBytes = 4 << 20

  /// Advises the storage of `table` up to its capacity (so that elements appended later land
  /// in huge pages too); returns how many bytes the advice covers.
  @discardableResult
  public static func advise<Element>(_ table: inout ContiguousArray<Element>) -> Int {
    let bytes = table.capacity &* MemoryLayout<Element>.stride
    guard bytes >= minimumBytes else { return 0 }
    return table.withUnsafeMutableBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return 0 }
      return fencekit_advise_huge_pages(UnsafeMutableRawPointer(base), bytes)
    }
  }

  /// Advises the storage of `table` up to its capacity; see the `ContiguousArray` form.
  @discardableResult
  public static func advise<Element>(_ table: inout [Element]) -> Int {
    let bytes = table.capacity &* MemoryLayout<Element>.stride
    guard bytes >= minimumBytes else { return 0 }
    return table.withUnsafeMutableBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return 0 }
      return fencekit_advise_huge_pages(UnsafeMutableRawPointer(base), bytes)
    }
  }

  /// A table of `count` copies of `value` whose storage is advised before it is written.
  public static func table<Element>(repeating value: Element, count: Int) -> ContiguousArray<
    Element
  > {
    ContiguousArray(unsafeUninitializedCapacity: count) { buffer, initialized in
      if count &* MemoryLayout<Element>.stride >= minimumBytes, let base = buffer.baseAddress {
        fencekit_advise_huge_pages(
          UnsafeMutableRawPointer(base), count &* MemoryLayout<Element>.stride)
      }
      if count > 0 { buffer.baseAddress!.initialize(repeating: value, count: count) }
      initialized = count
    }
  }
}
