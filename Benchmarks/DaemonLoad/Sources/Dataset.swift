import FenceEngine
import FenceFormats
import Foundation
import NIOCore

/// The fixes of one AIS track file in time order, repeated in laps as long as needed: lap `k`
/// is the file shifted `k` times by a whole number of days longer than its span, so that every
/// device's fixes keep going forward in time and the engine sees a longer week, not
/// out-of-order fixes.
struct TrackData {
  let path: String
  /// The file's fixes, stably sorted by time (equal times keep file order).
  let fixes: [LocationFix]
  let deviceCount: Int
  /// How far each lap is shifted from the one before, in microseconds.
  let lapShift: Int64
  /// Seconds reading and sorting took (outside any measurement).
  let readSeconds: Double

  init(path: String) throws {
    let start = ContinuousClock.now
    let reader = try TrackReader(path: path)
    let read = try reader.readAll()
    guard !read.isEmpty else { throw LoadFailure("\(path) holds no fixes") }
    let order = read.indices.sorted { a, b in
      read[a].time == read[b].time ? a < b : read[a].time < read[b].time
    }
    fixes = order.map { read[$0] }
    self.path = path
    deviceCount = Set(fixes.map(\.device)).count
    let span = fixes.last!.time.microsecondsSinceEpoch - fixes.first!.time.microsecondsSinceEpoch
    let day: Int64 = 86_400_000_000
    lapShift = (span / day + 1) * day
    readSeconds = (ContinuousClock.now - start).seconds
  }

  /// The `index`-th fix of the endless stream of laps.
  func fix(at index: Int) -> LocationFix {
    var fix = fixes[index % fixes.count]
    let lap = Int64(index / fixes.count)
    if lap > 0 {
      fix.time = Timestamp(microsecondsSinceEpoch: fix.time.microsecondsSinceEpoch + lap * lapShift)
    }
    return fix
  }

  /// The daemon's wire format for one fix: `{"device","time","lat","lon"}` and the optional
  /// `accuracy`, `speed`, `course` when the file has them, then a newline.
  static func appendNDJSON(_ fix: LocationFix, to out: inout String) {
    out += "{\"device\":"
    JSONWriter.appendString(fix.device, to: &out)
    out += ",\"time\":\""
    out += RFC3339.format(fix.time)
    out += "\",\"lat\":"
    out += JSONWriter.numberText(fix.latitude)
    out += ",\"lon\":"
    out += JSONWriter.numberText(fix.longitude)
    if let accuracy = fix.accuracy { out += ",\"accuracy\":" + JSONWriter.numberText(accuracy) }
    if let speed = fix.speed { out += ",\"speed\":" + JSONWriter.numberText(speed) }
    if let course = fix.course { out += ",\"course\":" + JSONWriter.numberText(course) }
    out += "}\n"
  }
}

/// One request body, encoded before anything is timed.
struct Batch: Sendable {
  let body: ByteBuffer
  let fixCount: Int
}

/// The first `fixCount` fixes of the stream, split over `clients` senders and cut into batches
/// of `batchSize`, as NDJSON bodies.
///
/// With several clients every device belongs to one client (devices are dealt out by their fix
/// count, largest first, to the client with the fewest fixes so far), so each device's fixes
/// still arrive in time order and no fix is rejected as out of order; the clients carry about
/// the same number of fixes. With `group`, whole groups of devices (devices with the same key,
/// such as their partition) are dealt out that way instead of single devices.
struct LoadPlan: Sendable {
  let batchesPerClient: [[Batch]]
  let fixCount: Int
  let bodyBytes: Int
  let encodeSeconds: Double

  init(data: TrackData, fixCount: Int, batchSize: Int, clients: Int, group: ((String) -> String)? = nil) {
    let start = ContinuousClock.now
    let key = group ?? { $0 }
    var owner: [String: Int] = [:]
    if clients > 1 {
      var counts: [String: Int] = [:]
      for index in 0..<fixCount { counts[key(data.fixes[index % data.fixes.count].device), default: 0] += 1 }
      let groups = counts.sorted { $0.value == $1.value ? $0.key < $1.key : $0.value > $1.value }
      var load = [Int](repeating: 0, count: clients)
      for (name, count) in groups {
        let client = load.indices.min { load[$0] == load[$1] ? $0 < $1 : load[$0] < load[$1] }!
        owner[name] = client
        load[client] += count
      }
    }
    var streams = [[Int]](repeating: [], count: clients)
    for index in 0..<fixCount {
      let device = data.fixes[index % data.fixes.count].device
      streams[owner[key(device)] ?? 0].append(index)
    }
    var bytes = 0
    var batches: [[Batch]] = []
    for stream in streams {
      var list: [Batch] = []
      var position = 0
      var text = ""
      while position < stream.count {
        let end = min(position + batchSize, stream.count)
        text.removeAll(keepingCapacity: true)
        for index in stream[position..<end] { TrackData.appendNDJSON(data.fix(at: index), to: &text) }
        list.append(Batch(body: ByteBuffer(string: text), fixCount: end - position))
        bytes += text.utf8.count
        position = end
      }
      batches.append(list)
    }
    batchesPerClient = batches
    self.fixCount = fixCount
    bodyBytes = bytes
    encodeSeconds = (ContinuousClock.now - start).seconds
  }

  var batchCount: Int { batchesPerClient.reduce(0) { $0 + $1.count } }
}
