import FenceEngine
import Testing

@testable import FenceFormats

@Suite struct FixBatchReaderTests {
  func t(_ text: String) -> Timestamp {
    guard let time = TimestampParser.parse(text) else { preconditionFailure("bad time \(text)") }
    return time
  }

  func read(_ body: String, maximumLineLength: Int = FixBatchReader.defaultMaximumLineLength)
    throws(FixBatchError) -> [LocationFix]
  {
    try FixBatchReader.fixes(in: Array(body.utf8), maximumLineLength: maximumLineLength)
  }

  /// The error for a body, or nil when it was accepted.
  func error(_ body: String, maximumLineLength: Int = FixBatchReader.defaultMaximumLineLength)
    -> FixBatchError?
  {
    do {
      _ = try read(body, maximumLineLength: maximumLineLength)
      return nil
    } catch {
      return error
    }
  }

  func problems(_ list: [(Int, String)], count: Int? = nil, array: Bool = false) -> FixBatchError {
    FixBatchError(
      problems: list.map { FixBatchError.Problem(line: $0.0, reason: $0.1) },
      problemCount: count ?? list.count, isJSONArray: array)
  }

  let lines = [
    #"{"device":"truck-1","time":"2026-01-05T10:00:00Z","lat":51.9,"lon":4.4}"#,
    #"{"device":244660000,"time":1593475200,"lat":40.6442,"lon":-74.0716,"accuracy":5.5,"speed":0,"course":360,"extra":{"x":[1]}}"#,
    #"{"lon":180,"lat":-90,"time":"2026-01-05 10:00:01.250+01:00","device":"b","accuracy":null,"speed":null,"course":null}"#,
  ]

  var expected: [LocationFix] {
    [
      LocationFix(device: "truck-1", time: t("2026-01-05T10:00:00Z"), latitude: 51.9, longitude: 4.4),
      LocationFix(
        device: "244660000", time: Timestamp(microsecondsSinceEpoch: 1_593_475_200_000_000),
        latitude: 40.6442, longitude: -74.0716, accuracy: 5.5, speed: 0, course: 360),
      LocationFix(device: "b", time: t("2026-01-05T09:00:01.25Z"), latitude: -90, longitude: 180),
    ]
  }

  // MARK: Good bodies

  @Test func readsNDJSON() throws {
    #expect(try read(lines.joined(separator: "\n")) == expected)
    #expect(try read(lines.joined(separator: "\n") + "\n") == expected)
  }

  @Test func readsAJSONArray() throws {
    #expect(try read("[" + lines.joined(separator: ",") + "]") == expected)
    let pretty = "\n  [\n    " + lines.joined(separator: ",\n    ") + "\n  ]\n"
    #expect(try read(pretty) == expected)
    #expect(try read("[" + lines[0] + "]") == [expected[0]])
  }

  @Test func readsCRLFBlankLinesAndAByteOrderMark() throws {
    #expect(try read(lines.joined(separator: "\r\n") + "\r\n") == expected)
    let blanks = "\n\n  \n" + lines[0] + "\n\t\n\r\n" + lines[1] + "\n \t \n" + lines[2] + "\n\n\n"
    #expect(try read(blanks) == expected)
    #expect(try read("\u{FEFF}" + lines.joined(separator: "\n")) == expected)
    #expect(try read("\u{FEFF}[" + lines.joined(separator: ",\r\n") + "]\r\n") == expected)
  }

  @Test func emptyBodiesHaveNoFixes() throws {
    for body in ["", " ", "\n", "\r\n\r\n", " \t\n  \n", "[]", " [ \r\n ] \n", "\u{FEFF}", "\u{FEFF}[]"] {
      #expect(try read(body) == [], "body \(body.debugDescription)")
    }
  }

  @Test func anyCollectionOfBytesIsRead() throws {
    let body = Array(lines.joined(separator: "\n").utf8)
    // Not contiguous: copied first.
    #expect(try FixBatchReader.fixes(in: body.lazy.map { $0 }) == expected)
    #expect(try FixBatchReader.fixes(in: body[...]) == expected)
    #expect(try FixBatchReader.fixes(in: lines.joined(separator: "\n").utf8) == expected)
  }

  @Test func readsABodyOf5000Fixes() throws {
    var body = ""
    var fixes: [LocationFix] = []
    for i in 0..<5000 {
      let latitude = Double(i) / 100 - 25
      let longitude = Double(i % 360) - 179.5
      let speed = Double(i % 40) * 0.25
      body += #"{"device":"d\#(i % 17)","time":\#(1_700_000_000 + i),"lat":\#(latitude),"lon":\#(longitude),"speed":\#(speed)}"# + "\n"
      fixes.append(
        LocationFix(
          device: "d\(i % 17)", time: Timestamp(microsecondsSinceEpoch: Int64(1_700_000_000 + i) * 1_000_000),
          latitude: latitude, longitude: longitude, speed: speed))
    }
    let parsed = try read(body)
    #expect(parsed.count == 5000)
    #expect(parsed == fixes)
    let array = "[" + body.split(separator: "\n").joined(separator: ",\n") + "]"
    #expect(try read(array) == fixes)
  }

  // MARK: Problems

  @Test func eachKindOfProblemHasItsLineAndReason() throws {
    let long = String(repeating: "x", count: 60)
    let body = [
      #"{"device":"a","time":0,"lat":1,"lon":2}"#,
      #"{"device":"a","time":0,"lat":1,"lon":2"#,
      #"[1,2]"#,
      #"{"time":0,"lat":1,"lon":2}"#,
      #"{"device":"a","lat":1,"lon":2}"#,
      #"{"device":"a","time":"yesterday","lat":1,"lon":2}"#,
      #"{"device":"a","time":0,"lat":"51.9","lon":2}"#,
      #"{"device":"a","time":0,"lat":91,"lon":2}"#,
      #"{"device":"a","time":0,"lat":1,"lon":-180.5}"#,
      #"{"device":"a","time":0,"lat":1e999,"lon":2}"#,
      #"{"device":"a","time":0,"lat":1,"lon":2,"accuracy":-0.5}"#,
      #"{"device":"a","time":0,"lat":1,"lon":2,"speed":-3}"#,
      #"{"device":"a","time":0,"lat":1,"lon":2,"course":360.5}"#,
      #"{"device":"a","time":0,"lat":1,"lon":2,"course":-360.5}"#,
      #"{"device":"","time":0,"lat":1,"lon":2}"#,
      #"{"device":"a","time":0,"lon":2}"#,
      #"{"device":"a","time":0,"lat":null,"lon":2}"#,
      #"{"device":true,"time":0,"lat":1,"lon":2}"#,
      #"{"device":"a","time":1e300,"lat":1,"lon":2}"#,
      #"{"device":"a","time":"\#(long)","lat":1,"lon":2}"#,
      #"{"device":"a","time":0,"lat":1,"lon":2,"note":"\#(String(repeating: "y", count: 200))"}"#,
      #"{"device":"a","time":0,"lat":90,"lon":-180,"accuracy":0,"speed":0,"course":0}"#,
    ].joined(separator: "\n")
    #expect(
      error(body, maximumLineLength: 200)
        == problems([
          (2, "invalid JSON at column 39: unterminated object: expected ',' or '}'"),
          (3, "expected a JSON object, got an array"),
          (4, #"missing "device""#),
          (5, #"missing "time""#),
          (6, #""time": expected an RFC 3339 time, got "yesterday""#),
          (7, #""lat": expected a number, got "51.9""#),
          (8, #""lat": 91 is outside [-90, 90]"#),
          (9, #""lon": -180.5 is outside [-180, 180]"#),
          (10, "invalid JSON at column 30: number out of range"),
          (11, #""accuracy": -0.5 is negative"#),
          (12, #""speed": -3 is negative"#),
          (13, #""course": 360.5 is outside [-360, 360]"#),
          (14, #""course": -360.5 is outside [-360, 360]"#),
          (15, #""device": expected a non-empty id, got """#),
          (16, #"missing "lat""#),
          (17, #""lat": expected a number, got null"#),
          (18, #""device": expected a string or a number, got true"#),
          (19, #""time": epoch number out of range: 1e+300"#),
          (20, #""time": expected an RFC 3339 time, got "\#(String(repeating: "x", count: 40))...""#),
          (21, "line longer than 200 bytes"),
        ]))
  }

  @Test func lineNumbersCountBlankLinesAndCRLF() throws {
    let body = "\r\n" + #"{"device":"a","time":0,"lat":1,"lon":2}"# + "\r\n\r\n  \r\n{}\r\n" + #"{"device":"a"}"#
    #expect(error(body) == problems([(5, #"missing "device""#), (6, #"missing "time""#)]))
    #expect(error("\u{FEFF}\n{}") == problems([(2, #"missing "device""#)]))
  }

  @Test func oneBadLineRejectsTheBatch() throws {
    let good = #"{"device":"a","time":0,"lat":1,"lon":2}"#
    let bad = #"{"device":"a","time":0,"lat":-91,"lon":2}"#
    let body = Array(repeating: good, count: 50) + [bad] + Array(repeating: good, count: 50)
    #expect(error(body.joined(separator: "\n")) == problems([(51, #""lat": -91 is outside [-90, 90]"#)]))
    #expect(
      error("[" + body.joined(separator: ",") + "]")
        == problems([(51, #""lat": -91 is outside [-90, 90]"#)], array: true))
  }

  @Test func theFirst100ProblemsAreKeptAndAllAreCounted() throws {
    var body: [String] = []
    for i in 0..<300 {
      body.append(
        i % 3 == 0
          ? #"{"device":"a","time":0,"lat":1,"lon":2}"#
          : #"{"device":"a","time":0,"lat":1,"lon":2,"speed":-\#(i)}"#)
    }
    let found = error(body.joined(separator: "\n"))
    let expectedProblems = (0..<300).filter { $0 % 3 != 0 }.prefix(100).map {
      ($0 + 1, #""speed": -\#($0) is negative"#)
    }
    #expect(found == problems(expectedProblems, count: 200))
    #expect(found?.problems.count == FixBatchReader.keptProblemLimit)
    #expect(found?.problems.last == FixBatchError.Problem(line: 150, reason: #""speed": -149 is negative"#))
  }

  @Test func arrayProblemsAreNumberedByElement() throws {
    let body = """
      [
      {"device":"a","time":0,"lat":1,"lon":2},
      "not a fix",
      {"device":"a","time":0,"lat":95,"lon":2},
      {"device":"a","time":0,"lat":1,"lon":2,},
      ,
      {"device":"a","time":0,"lat":1,"lon":2},
      [{"device":"a","time":0,"lat":1,"lon":2}]
      ]
      """
    #expect(
      error(body)
        == problems(
          [
            (2, #"expected a JSON object, got "not a fix""#),
            (3, #""lat": 95 is outside [-90, 90]"#),
            (4, "invalid JSON at line 5, column 40: expected a string key in object, found '}'"),
            (5, "expected a fix object before ','"),
            (7, "expected a JSON object, got an array"),
          ], array: true))
  }

  @Test func theArrayItselfMustBeWellFormed() throws {
    let fix = #"{"device":"a","time":0,"lat":1,"lon":2}"#
    #expect(
      error("[" + fix)
        == problems([(2, "the array is not closed: expected ',' or ']' after element 1")], array: true))
    #expect(
      error("[" + fix + ",")
        == problems([(2, "the array is not closed: expected a fix object or ']'")], array: true))
    #expect(error("[") == problems([(1, "the array is not closed: expected a fix object or ']'")], array: true))
    #expect(error("[" + fix + ",]") == problems([(2, "expected a fix object before ']'")], array: true))
    #expect(
      error("[,]")
        == problems(
          [(1, "expected a fix object before ','"), (2, "expected a fix object before ']'")], array: true))
    #expect(
      error("[" + fix + "] x")
        == problems([(2, "unexpected text after the array's closing ']'")], array: true))
    #expect(error("[]\n[]") == problems([(1, "unexpected text after the array's closing ']'")], array: true))
    // A string left open runs to the end: only its element is at fault.
    #expect(
      error(#"[{"device":"a"#)
        == problems([(1, "invalid JSON at line 1, column 12: unterminated string")], array: true))
    #expect(
      error(#"[{"device":"a","time":0,"lat":1,"lon":2}}]"#)
        == problems([(1, "invalid JSON at line 1, column 41: unexpected '}' after the JSON value")], array: true))
    #expect(
      error("[1, 2.5e3 , null]")
        == problems(
          [
            (1, "expected a JSON object, got 1"), (2, "expected a JSON object, got 2500"),
            (3, "expected a JSON object, got null"),
          ], array: true))
  }

  @Test func longLinesAndElementsAreNotParsed() throws {
    let fix = #"{"device":"a","time":0,"lat":1,"lon":2}"#
    #expect(fix.utf8.count == 39)
    #expect(try read(fix + "\r\n" + fix, maximumLineLength: 39).count == 2)
    #expect(error(fix + "\n " + fix, maximumLineLength: 39) == problems([(2, "line longer than 39 bytes")]))
    #expect(try read("[ " + fix + " ,\n" + fix + "]", maximumLineLength: 39).count == 2)
    #expect(
      error("[" + fix + ",{" + fix + "}]", maximumLineLength: 39)
        == problems([(2, "element longer than 39 bytes")], array: true))
    // Even when it is not JSON at all.
    #expect(
      error(String(repeating: "\u{1}", count: 41), maximumLineLength: 39)
        == problems([(1, "line longer than 39 bytes")]))
  }

  @Test func errorsDescribeThemselves() {
    #expect(
      problems([(2, #"missing "device""#), (5, "line longer than 40 bytes")]).description
        == #"2 bad fixes: line 2: missing "device"; line 5: line longer than 40 bytes"#)
    #expect(
      problems([(3, "expected a JSON object, got 1")], count: 120, array: true).description
        == "120 bad fixes: element 3: expected a JSON object, got 1 (and 119 more)")
    #expect(problems([(1, "x")]).description == "1 bad fix: line 1: x")
    #expect(FixBatchError.Problem(line: 4, reason: "x").description == "line 4: x")
  }

  // MARK: Large bodies, read in parts

  /// The body read from start to end on one thread: the reference for the parallel reading.
  func readInOnePiece(_ body: String) -> Result<[LocationFix], FixBatchError> {
    var reading = FixBatchReading(maximumLength: FixBatchReader.defaultMaximumLineLength)
    Array(body.utf8).withUnsafeBufferPointer { reading.readLines($0) }
    return reading.result
  }

  @Test func aLargeBodyReadInPartsGivesWhatOnePieceGives() throws {
    var lines: [String] = []
    for i in 0..<4000 {
      let crlf = i % 7 == 0 ? "\r" : ""
      lines.append(
        #"{"device":"v\#(i % 23)","time":"2020-12-01T00:00:\#(String(format2: i % 60))Z","lat":\#(40 + Double(i) / 10_000),"lon":-74.5}"#
          + crlf)
      if i % 500 == 250 { lines.append("") }
    }
    let body = lines.joined(separator: "\n")
    #expect(body.utf8.count > 4 * FixBatchReader.parallelReadingThreshold)
    let whole = try readInOnePiece(body).get()
    #expect(whole.count == 4000)
    #expect(try read(body) == whole)

    // Problems on both sides of every cut, each at the line one reading gives.
    var broken = lines
    for index in stride(from: 3, to: broken.count, by: 37) { broken[index] = #"{"device":"x","#  }
    broken[broken.count - 1] = "[]"
    let brokenBody = broken.joined(separator: "\n")
    guard case .failure(let expected) = readInOnePiece(brokenBody) else {
      Issue.record("the broken body was accepted")
      return
    }
    #expect(expected.problemCount == 110)
    #expect(expected.problems.count == FixBatchReader.keptProblemLimit)
    #expect(expected.problems[1].line == 41)
    #expect(error(brokenBody) == expected)
  }
}

extension String {
  /// Two digits, zero-padded.
  fileprivate init(format2 value: Int) {
    self = value < 10 ? "0\(value)" : "\(value)"
  }
}
