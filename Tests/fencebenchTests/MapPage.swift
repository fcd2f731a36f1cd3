import Foundation

/// A `--map` page written by the binary, with its inline drawing data decoded (the parts the
/// tests look at).
struct MapPage {
  struct Frame: Decodable, Equatable {
    var fits: String
    var south: Double
    var west: Double
    var north: Double
    var east: Double
  }

  struct Zone: Decodable {
    var id: String
    var name: String?
  }

  struct Fence: Decodable {
    var id: String
    var z: Int
    var label: String?
    var at: [Double]
    var rings: [[Double]]?
  }

  struct Part: Decodable, Equatable {
    var points: [Double]
    var times: [Int]
  }

  struct Track: Decodable {
    var device: String
    var parts: [Part]
  }

  struct Event: Decodable {
    var kind: String
    var t: Int
    var x: Double?
  }

  struct Kind: Decodable, Equatable {
    var count: Int
    var drawn: Int
  }

  struct Legend: Decodable {
    var fencesDrawn: Int
    var devices: Int
    var trackParts: Int
    var gapSeconds: Double
    var kinds: [String: Kind]
    var notDrawn: [String: Int]
  }

  /// The inline JSON block.
  struct Drawing: Decodable {
    var width: Int
    var height: Int
    var frame: Frame
    var t0: Int
    var span: Int
    var zones: [Zone]
    var fences: [Fence]
    var tracks: [Track]
    var events: [Event]
    var legend: Legend
  }

  let html: String
  let data: Drawing

  /// Runs `fencebench run` on `zones` and `tracks` with `options`, writing a page, and reads
  /// it back.
  static func run(zones: [String], tracks: [String], options: [String] = []) throws -> MapPage {
    let path = FenceBenchProcess.temporaryPath("map.html")
    let result = try FenceBenchProcess.run(
      ["run"] + zones.flatMap { ["--zones", $0] } + tracks + ["--map", path] + options)
    guard result.status == 0 else {
      throw Failure(message: "fencebench exited \(result.status): \(result.standardError)")
    }
    let html = try String(contentsOfFile: path, encoding: .utf8)
    let start = "<script type=\"application/json\" id=\"data\">"
    guard let open = html.range(of: start),
      let close = html.range(of: "</script>", range: open.upperBound..<html.endIndex)
    else { throw Failure(message: "no data block in the page") }
    let json = Data(html[open.upperBound..<close.lowerBound].utf8)
    return MapPage(html: html, data: try JSONDecoder().decode(Drawing.self, from: json))
  }

  /// Writes `text` to a fresh temporary file named like `name` and returns its path.
  static func file(_ name: String, _ text: String) throws -> String {
    let path = FenceBenchProcess.temporaryPath(name)
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  struct Failure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
  }
}
