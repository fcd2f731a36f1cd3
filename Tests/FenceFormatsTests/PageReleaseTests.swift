import CMemoryHints
import FenceEngine
import FenceTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@testable import FenceFormats

/// A large zone file gives its pages back as its features are parsed (`PageRelease`): the zones
/// must be those of its bytes read in memory, and a file with a fault must report the fault of
/// reading it whole (it is read again, its first copy being partly zeros).
@Suite struct PageReleaseTests {
  /// Whole pages only, rounded inward, and the end of what was given back returned.
  @Test func pagesAreGivenBackRoundedInward() throws {
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    let base = UnsafeMutableRawPointer.allocate(byteCount: 5 * page, alignment: page)
    defer { base.deallocate() }
    base.initializeMemory(as: UInt8.self, repeating: 0xAB, count: 5 * page)
    let end = fencekit_release_pages(base + 100, base + 3 * page + 50)
    let bytes = base.assumingMemoryBound(to: UInt8.self)
    #if os(Linux)
      #expect(end == UnsafeRawPointer(base + 3 * page))
      #expect((page..<(3 * page)).allSatisfy { bytes[$0] == 0 })
    #endif
    // The pages holding bytes outside the range are kept.
    #expect((0..<page).allSatisfy { bytes[$0] == 0xAB })
    #expect(((3 * page)..<(5 * page)).allSatisfy { bytes[$0] == 0xAB })
    // Less than a page from an aligned start: nothing given back, the start returned.
    let none = fencekit_release_pages(base + 3 * page, base + 3 * page + 10)
    #expect(none == UnsafeRawPointer(base + 3 * page))
    #expect(bytes[3 * page] == 0xAB)
  }

  /// 12,000 features (about 2.6 MB): read from a file, in parts, with pages given back.
  @Test func aLargeFileGivesTheZonesOfItsBytes() throws {
    let text = ParallelZoneLoadingTests.collection(count: 12_000)
    #expect(text.utf8.count > ZoneLoading.splitThreshold)
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = try directory.write("large.geojson", text)
    let fromFile = try ZoneLoader.loadZones(contentsOf: path)
    let fromBytes = try ZoneLoader.loadZones(from: Array(text.utf8), file: path)
    // 222 features in 9 shared zones (the first 100, then every 97th), the rest one each.
    #expect(fromFile.count == 9 + 11_778)
    #expect(fromFile == fromBytes)
  }

  /// A fault late in a large file: the error of reading its bytes whole, feature and message.
  @Test func aLargeFileWithAFaultIsReadAgainForItsError() throws {
    let bad =
      "{\"type\":\"Feature\",\"id\":\"bad\",\"properties\":{\"radius\":-1},\"geometry\":{\"type\":\"Point\",\"coordinates\":[-73,40]}}"
    let text = ParallelZoneLoadingTests.collection(count: 12_000, extraFeature: bad, at: 11_500)
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = try directory.write("faulty.geojson", text)
    let fromFile = #expect(throws: ZoneLoadError.self) { try ZoneLoader.loadZones(contentsOf: path) }
    let fromBytes = #expect(throws: ZoneLoadError.self) {
      try ZoneLoader.loadZones(from: Array(text.utf8), file: path)
    }
    #expect(fromFile?.featureIndex == 11_501)
    #expect(fromFile.map { "\($0)" } == fromBytes.map { "\($0)" })
    #expect(fromFile.map { "\($0)" }?.contains("expected a number of metres above 0") == true)
  }
}
