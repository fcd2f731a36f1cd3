import FenceEngine
import FenceTesting
import Foundation
import Testing

@testable import FenceStore

/// A noted zone source holds while the zones are exactly what it loaded to, across restarts.
@Suite struct ZoneSourceTests {
  @Test func holdsUntilTheZonesChangeAndAcrossRestarts() throws {
    try withTemporaryDirectory { directory in
      let path = directory.sub("store")
      do {
        let store = try FenceStore(directory: path)
        #expect(try !store.holdsZoneSource(digest: 7))
        _ = try store.execute(.replaceAllZones([Story.depot, Story.yard]))
        try store.noteZoneSource(digest: 7)
        #expect(try store.holdsZoneSource(digest: 7))
        #expect(try !store.holdsZoneSource(digest: 8))
        _ = try store.execute(.fixes([fix("a", 10, base)]))
        #expect(try store.holdsZoneSource(digest: 7))
        try store.close()
      }
      do {
        // Restored from the snapshot written at close.
        let store = try FenceStore(directory: path)
        #expect(store.recovery.snapshotCommandSeq == 2)
        #expect(try store.holdsZoneSource(digest: 7))
        // A zone change, found by replay after a crash (no snapshot after it).
        _ = try store.execute(.addZones([Story.dock]))
        #expect(try !store.holdsZoneSource(digest: 7))
        let copy = directory.sub("crashed")
        try crashCopy(from: path, to: copy)
        let crashed = try FenceStore(directory: copy)
        #expect(crashed.recovery.commandsReplayed == 1)
        #expect(try !crashed.holdsZoneSource(digest: 7))
        // Back to the noted zones by another path: the same zone set, so it holds again.
        _ = try crashed.execute(.removeZone("dock"))
        #expect(try crashed.holdsZoneSource(digest: 7))
        try crashed.close()
        try store.close()
      }
    }
  }
}
