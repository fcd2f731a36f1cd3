import FenceEngine
import FenceFormats
import FenceStore
import FuzzSupport

import Foundation

/// The store's binary readers: command payloads (``StoreCommand/init(kindCode:payload:commandSeq:)``)
/// and the binary zone set of its snapshots (read when a store recovers).
///
/// With an even first byte, the second chooses a command kind (1 to 5, or an unknown 6) and the
/// rest is its payload. Decoding must end in a command or a ``StoreError``; a decoded command
/// must encode to a payload that decodes and encodes the same (zone commands may be refused by
/// the zone writer, since the log's zones are loaded without GEOS validation); executed on an
/// in-memory store loaded with ``FixtureZones`` it must succeed or throw, never trap; and a
/// second store opened on that storage must recover, replaying the command to the same events.
///
/// With an odd first byte the rest follows the `FKZ1` magic of a snapshot's zone set, put in
/// place of the zone set of a real snapshot (of ``FixtureZones``) in a fresh in-memory storage:
/// opening a store on it must recover or throw a ``StoreError``, never trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStore(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  let input = Array(UnsafeBufferPointer(start: data, count: size))
  guard input.count >= 2 else { return 0 }
  if input[0] & 1 == 0 {
    checkCommand(kindCode: 1 + Int(input[1]) % 6, payload: Array(input.dropFirst(2)))
  } else {
    checkZoneSet(Array("FKZ1".utf8) + input.dropFirst())
  }
  return 0
}

private func checkCommand(kindCode: Int, payload: [UInt8]) {
  let command: StoreCommand
  do {
    command = try StoreCommand(kindCode: kindCode, payload: payload, commandSeq: 7)
  } catch is StoreError {
    return
  } catch {
    fuzzCheck(false, "decoding threw \(type(of: error)): \(error)")
    return
  }
  fuzzCheck(command.kindCode == kindCode, "kind \(kindCode) decoded as \(command.kindCode)")
  do {
    let encoded = try command.encodedPayload()
    let again = try StoreCommand(kindCode: kindCode, payload: encoded, commandSeq: 8)
    let reencoded = try again.encodedPayload()
    fuzzCheck(reencoded == encoded, "a decoded payload does not encode the same twice")
  } catch is ZoneWriteError where kindCode == 3 || kindCode == 4 {
  } catch {
    fuzzCheck(false, "a decoded command does not round-trip: \(error)")
  }

  let storage = MemoryStorage()
  do {
    let store = try FenceStore(storage: storage)
    try store.execute(.addZones(FixtureZones.zones()))
    do {
      try store.execute(command)
    } catch is ZoneError {
    } catch is StoreError {
    }
    _ = try FenceStore(storage: storage)
  } catch {
    fuzzCheck(false, "the store over the command failed: \(error)")
  }
}

/// A snapshot record of ``FixtureZones`` (after a few fixes), whose zone set the odd inputs
/// replace.
private let template: SnapshotRecord = {
  do {
    let storage = MemoryStorage()
    let store = try FenceStore(storage: storage)
    try store.execute(.addZones(FixtureZones.zones()))
    let fixes = FixtureZones.stops.enumerated().map { index, stop in
      LocationFix(
        device: "d", time: Timestamp(microsecondsSinceEpoch: 1_600_000_000_000_000 + Int64(index) * 10_000_000),
        latitude: stop.latitude, longitude: stop.longitude)
    }
    try store.execute(.fixes(fixes))
    try store.snapshot()
    guard let record = try storage.latestSnapshot() else { fatalError("no snapshot written") }
    return record
  } catch {
    fatalError("cannot make the template snapshot: \(error)")
  }
}()

private func checkZoneSet(_ zoneSet: [UInt8]) {
  var record = template
  record.zoneSet = zoneSet
  record.zoneSetHash = nil
  let storage = MemoryStorage()
  do {
    try storage.writeSnapshot(record)
    let store = try FenceStore(storage: storage)
    try store.execute(
      .fixes([
        LocationFix(
          device: "d", time: Timestamp(microsecondsSinceEpoch: 1_700_000_000_000_000),
          latitude: FixtureZones.center.latitude, longitude: FixtureZones.center.longitude)
      ]))
  } catch is StoreError {
  } catch {
    fuzzCheck(false, "opening a store on a fuzzed zone set threw \(type(of: error)): \(error)")
  }
}

/// Runs libFuzzer on ``fuzzStore(_:_:)`` (see ``FuzzSupport/runFuzzer(_:)``).
@main
enum FuzzStoreMain {
  static func main() { runFuzzer(fuzzStore) }
}
