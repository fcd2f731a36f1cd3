import FenceEngine
import Testing

@testable import FenceFormats

/// The fast reading of flat fix lines against the full JSON parse, which is its reference.
@Suite struct SimpleFixLineTests {
  func fast(_ line: String) -> LocationFix? {
    Array(line.utf8).withUnsafeBufferPointer { SimpleFixLine.fix($0) }
  }

  func full(_ line: String) -> Result<LocationFix, RowProblem> {
    var tape = JSONTape()
    return Array(line.utf8).withUnsafeBufferPointer {
      NDJSONTrackParser.fullyParsedFix(fromLine: $0, tape: &tape)
    }
  }

  @Test func readsTheUsualShapeAsTheFullParseDoes() throws {
    let line =
      #" {"device":"366999711", "time":"2020-12-01T00:00:07Z","lat":40.68473,"lon":-74.02554,"speed":5.1,"course":-49.6,"accuracy":0,"source":"ais","valid":true,"note":null,"n":-1.5e2} "#
    let fix = try #require(fast(line))
    #expect(fix.device == "366999711")
    #expect(fix.time == TimestampParser.parse("2020-12-01T00:00:07Z"))
    #expect(fix.latitude == 40.68473)
    #expect(fix.longitude == -74.02554)
    #expect(fix.speed == 5.1)
    #expect(fix.course == -49.6)
    #expect(fix.accuracy == 0)
    #expect(try full(line).get() == fix)
  }

  @Test(arguments: [
    // Shapes the fast path leaves to the full parse (which reads them or words the problem).
    #"{"device":244660000,"time":"2020-12-01T00:00:07Z","lat":1,"lon":2}"#,  // numeric device
    #"{"device":"a","time":1593475200,"lat":1,"lon":2}"#,  // epoch time
    #"{"device":"a","time":"2020-12-01T00:00:07Z","lat":1,"lon":2,"speed":null}"#,  // null
    #"{"device":"a\u0062","time":"2020-12-01T00:00:07Z","lat":1,"lon":2}"#,  // escape
    #"{"device":"é","time":"2020-12-01T00:00:07Z","lat":1,"lon":2}"#,  // UTF-8
    #"{"device":"a","time":"2020-12-01T00:00:07Z","lat":1,"lon":2,"x":{"y":1}}"#,  // nested
    #"{"device":"a","time":"2020-12-01T00:00:07Z","lat":1,"lon":2,"x":[1]}"#,  // array
    #"{"device":"a","device":"b","time":"2020-12-01T00:00:07Z","lat":1,"lon":2}"#,  // twice
    #"{"device":"a","time":"2020-12-01T00:00:07Z","lat":1}"#,  // missing lon
    #"{"device":"a","time":"yesterday","lat":1,"lon":2}"#,  // bad time
    #"{"device":"a","time":"2020-12-01T00:00:07Z","lat":01,"lon":2}"#,  // leading zero
    #"{"device":"a","time":"2020-12-01T00:00:07Z","lat":1e999,"lon":2}"#,  // out of range
    #"{"device":"a","time":"2020-12-01T00:00:07Z","lat":1,"lon":2,}"#,  // trailing comma
    #"{"device":"a","time":"2020-12-01T00:00:07Z","lat":1,"lon":2} x"#,  // text after
    #"{"device":"a","time":"2020-12-01T00:00:07Z","lat":1,"lon":2"#,  // not closed
    #"[{"device":"a","time":"2020-12-01T00:00:07Z","lat":1,"lon":2}]"#,  // not an object
    "{}",
  ])
  func leavesOtherShapesToTheFullParse(line: String) {
    #expect(fast(line) == nil)
  }

  /// Lines built from the usual shape with random changes: whatever the fast path reads, the
  /// full parse reads as the same fix.
  @Test func agreesWithTheFullParseOnMutatedLines() {
    var random = LineRandom(seed: 0x5EED)
    let values: [(String, [String])] = [
      ("device", [#""366999711""#, #""truck-1""#, "42", #""""#, #""a\"b""#, "null"]),
      ("time", [#""2020-12-01T00:00:07Z""#, #""2020-12-01 00:00:07.25+01:00""#, "1593475200", #""x""#]),
      ("lat", ["40.68473", "-90", "0", "-0", "1e1", "91", "null", #""40""#, "1.", "-"]),
      ("lon", ["-74.02554", "180", "1E-2", "2.5e+1", "true"]),
      ("speed", ["5.1", "0", "null", "-1"]),
      ("course", ["-49.6", "360", "null"]),
      ("accuracy", ["3", "null", "[1]"]),
      ("extra", [#""ais""#, "false", "null", #"{"a":1}"#, "-0.5E3"]),
    ]
    let damage = Array(#"{}[]":,.-e0 \"#.utf8)
    var read = 0
    var agreed = 0
    for _ in 0..<20_000 {
      var members: [String] = []
      for (key, choices) in values {
        if random.next(5) == 0, key != "device", key != "time" { continue }
        let value = choices[random.next(choices.count) == 0 ? random.next(choices.count) : 0]
        let space = random.next(8) == 0 ? " " : ""
        members.append("\"\(key)\"\(space):\(space)\(value)")
      }
      members.shuffle(using: &random)
      var bytes = Array("{\(members.joined(separator: ","))}".utf8)
      // Damage some lines byte by byte.
      for _ in 0..<(random.next(3) == 0 ? random.next(3) + 1 : 0) {
        let position = random.next(bytes.count)
        let replacement = damage[random.next(damage.count)]
        switch random.next(3) {
        case 0: bytes[position] = replacement
        case 1: bytes.insert(replacement, at: position)
        default: bytes.remove(at: position)
        }
      }
      let line = String(decoding: bytes, as: UTF8.self)
      guard let fix = fast(line) else { continue }
      read += 1
      if case .success(let reference) = full(line), reference == fix { agreed += 1 }
    }
    #expect(read > 3_000)
    #expect(agreed == read)
  }
}

/// SplitMix64, for lines that are the same on every run.
struct LineRandom: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  mutating func next(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
