import FenceFormats
import Foundation
import Testing

@testable import FenceEngine

/// The `schedule` zone rule: its JSON form and errors (`ZoneSchedule`, `ScheduleError`) and
/// when it arms a zone (`ScheduleClock`), checked against the tz database's transitions:
///
/// - America/New_York 2021: 2021-03-14 02:00 EST → 03:00 EDT at 07:00Z (local 02:00–03:00
///   skipped); 2021-11-07 02:00 EDT → 01:00 EST at 06:00Z (local 01:00–02:00 twice: 05:00Z–06:00Z
///   and 06:00Z–07:00Z).
/// - Australia/Lord_Howe 2021 (30-minute shifts): 2021-04-04 02:00 +11 → 01:30 +10:30 at
///   2021-04-03T15:00Z (01:30–02:00 twice); 2021-10-03 02:00 +10:30 → 02:30 +11 at
///   2021-10-02T15:30Z (02:00–02:30 skipped).
/// - Pacific/Apia 2011: 2011-12-29 23:59:59 −10 → 2011-12-31 00:00 +14 at 2011-12-30T10:00Z
///   (a base-offset change: the whole local date 2011-12-30, a Friday, skipped).
/// - Europe/London 2021: 2021-03-28 01:00 GMT → 02:00 BST at 01:00Z; 2021-10-31 02:00 BST →
///   01:00 GMT at 01:00Z.
///
/// (As `zdump -v` prints them from the system's tz database.)
@Suite struct ZoneScheduleTests {
  /// The example of the spec (rules-v2.md).
  static let specExample = """
    {"timeZone": "America/New_York",
     "windows": [{"days": ["mon","tue","wed","thu","fri"], "from": "07:00", "to": "19:00"},
                 {"days": ["sat"], "from": "22:00", "to": "02:00"}],
     "except": ["2020-12-25"]}
    """

  // MARK: - JSON

  @Test func theSpecExampleParsesAndRoundTrips() throws {
    let value = try JSONReader.parse(Self.specExample)
    let schedule = try ZoneSchedule(json: value)
    let expected = ZoneSchedule(
      timeZone: "America/New_York",
      windows: [
        .init(
          days: [.mon, .tue, .wed, .thu, .fri], from: time(7, 0), to: time(19, 0)),
        .init(days: [.sat], from: time(22, 0), to: time(2, 0)),
      ],
      exceptions: [ZoneSchedule.LocalDate(year: 2020, month: 12, day: 25)!])
    #expect(schedule == expected)
    #expect(schedule.json == value)
    #expect(try ZoneSchedule(json: schedule.json) == schedule)
    #expect(
      JSONWriter.string(schedule.json)
        == #"{"timeZone":"America/New_York","windows":[{"days":["mon","tue","wed","thu","fri"],"from":"07:00","to":"19:00"},{"days":["sat"],"from":"22:00","to":"02:00"}],"except":["2020-12-25"]}"#
    )
    #expect(schedule.windows.map(\.runsPastMidnight) == [false, true])
  }

  @Test func exceptIsOptionalAndLeftOutWhenEmpty() throws {
    let text = #"{"timeZone":"UTC","windows":[{"days":["sun"],"from":"00:00","to":"00:00"}]}"#
    let schedule = try ZoneSchedule(json: JSONReader.parse(text))
    #expect(schedule.exceptions.isEmpty)
    #expect(schedule.timeZone == "UTC")
    #expect(JSONWriter.string(schedule.json) == text)
    let withEmptyExcept = try ZoneSchedule(
      json: JSONReader.parse(
        #"{"timeZone":"UTC","windows":[{"days":["sun"],"from":"00:00","to":"00:00"}],"except":[]}"#
      ))
    #expect(withEmptyExcept == schedule)
    #expect(JSONWriter.string(withEmptyExcept.json) == text)
  }

  @Test func codableGoesThroughTheJSONValue() throws {
    let schedule = try ZoneSchedule(json: JSONReader.parse(Self.specExample))
    let data = try JSONEncoder().encode(schedule)
    #expect(try JSONDecoder().decode(ZoneSchedule.self, from: data) == schedule)
    // Foundation's coders keep no member order; the members and values are the spec's.
    #expect(
      try JSONReader.parse(String(decoding: data, as: UTF8.self)).sortedMembers
        == JSONReader.parse(Self.specExample).sortedMembers)
  }

  @Test func codableRefusalsCarryThePathAndTheMessage() {
    let text =
      #"{"timeZone":"UTC","windows":[{"days":["mon"],"from":"07:00","to":"08:00"},{"days":["mon","tue","monday"],"from":"07:00","to":"08:00"}]}"#
    let error = #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(ZoneSchedule.self, from: Data(text.utf8))
    }
    guard case .dataCorrupted(let context)? = error else {
      Issue.record("expected dataCorrupted, got \(String(describing: error))")
      return
    }
    #expect(context.codingPath.map(\.stringValue) == ["windows", "1", "days", "2"])
    #expect(context.codingPath.map(\.intValue) == [nil, 1, nil, 2])
    #expect(
      context.debugDescription
        == #"expected a day name (sun, mon, tue, wed, thu, fri, sat), got "monday""#)
  }

  /// A schedule the reader refuses: the place and the message.
  struct Refusal: Sendable, CustomStringConvertible {
    var json: String
    var path: String
    var message: String
    var description: String { json }
  }

  @Test(arguments: [
    Refusal(
      json: "[]", path: "",
      message: "expected a schedule object with timeZone, windows and except, got an array"),
    Refusal(
      json: #""America/New_York""#, path: "",
      message:
        #"expected a schedule object with timeZone, windows and except, got "America/New_York""#
    ),
    Refusal(
      json: #"{"timeZone":"UTC","windows":["# + goodWindow + #"],"exceptions":[]}"#,
      path: "exceptions",
      message: #"unknown member "exceptions" (expected timeZone, windows or except)"#),
    Refusal(
      json: #"{"windows":["# + goodWindow + "]}", path: "timeZone",
      message: "expected an IANA time zone name, got nothing"),
    Refusal(
      json: #"{"timeZone":-5,"windows":["# + goodWindow + "]}", path: "timeZone",
      message: "expected an IANA time zone name, got -5.0"),
    Refusal(
      json: #"{"timeZone":null,"windows":["# + goodWindow + "]}", path: "timeZone",
      message: "expected an IANA time zone name, got null"),
    Refusal(
      json: #"{"timeZone":"Mars/Olympus","windows":["# + goodWindow + "]}", path: "timeZone",
      message: #"unknown time zone "Mars/Olympus""#),
    Refusal(
      json: #"{"timeZone":"america/new_york","windows":["# + goodWindow + "]}",
      path: "timeZone", message: #"unknown time zone "america/new_york""#),
    Refusal(
      json: #"{"timeZone":"","windows":["# + goodWindow + "]}", path: "timeZone",
      message: #"unknown time zone """#),
    Refusal(
      json: #"{"timeZone":"UTC"}"#, path: "windows",
      message: "expected an array of windows, got nothing"),
    Refusal(
      json: #"{"timeZone":"UTC","windows":"# + goodWindow + "}", path: "windows",
      message: "expected an array of windows, got an object"),
    Refusal(
      json: #"{"timeZone":"UTC","windows":[]}"#, path: "windows",
      message: "expected at least one window"),
    Refusal(
      json: withWindow("true"), path: "windows[0]",
      message: "expected a window object with days, from and to, got true"),
    Refusal(
      json: #"{"timeZone":"UTC","windows":["# + goodWindow + #",[]]}"#, path: "windows[1]",
      message: "expected a window object with days, from and to, got an array"),
    Refusal(
      json: withWindow(#"{"days":["mon"],"from":"07:00","until":"19:00"}"#),
      path: "windows[0].until",
      message: #"unknown member "until" (expected days, from or to)"#),
    Refusal(
      json: withWindow(#"{"from":"07:00","to":"19:00"}"#), path: "windows[0].days",
      message: "expected an array of day names, got nothing"),
    Refusal(
      json: withWindow(#"{"days":"mon","from":"07:00","to":"19:00"}"#), path: "windows[0].days",
      message: #"expected an array of day names, got "mon""#),
    Refusal(
      json: withWindow(#"{"days":[],"from":"07:00","to":"19:00"}"#), path: "windows[0].days",
      message: "expected at least one day name"),
    Refusal(
      json: #"{"timeZone":"UTC","windows":["# + goodWindow
        + #",{"days":["mon","tue","monday"],"from":"07:00","to":"19:00"}]}"#,
      path: "windows[1].days[2]",
      message: #"expected a day name (sun, mon, tue, wed, thu, fri, sat), got "monday""#),
    Refusal(
      json: withWindow(#"{"days":["Mon"],"from":"07:00","to":"19:00"}"#),
      path: "windows[0].days[0]",
      message: #"expected a day name (sun, mon, tue, wed, thu, fri, sat), got "Mon""#),
    Refusal(
      json: withWindow(#"{"days":[1],"from":"07:00","to":"19:00"}"#), path: "windows[0].days[0]",
      message: "expected a day name (sun, mon, tue, wed, thu, fri, sat), got 1.0"),
    Refusal(
      json: withWindow(#"{"days":["mon"],"from":"7:00","to":"19:00"}"#), path: "windows[0].from",
      message: #"expected a time HH:MM from 00:00 to 23:59, got "7:00""#),
    Refusal(
      json: withWindow(#"{"days":["mon"],"to":"19:00"}"#), path: "windows[0].from",
      message: "expected a time HH:MM from 00:00 to 23:59, got nothing"),
    Refusal(
      json: withWindow(#"{"days":["mon"],"from":"07:00","to":"24:00"}"#), path: "windows[0].to",
      message: #"expected a time HH:MM from 00:00 to 23:59, got "24:00""#),
    Refusal(
      json: withWindow(#"{"days":["mon"],"from":"07:00","to":"19:00:00"}"#),
      path: "windows[0].to",
      message: #"expected a time HH:MM from 00:00 to 23:59, got "19:00:00""#),
    Refusal(
      json: withWindow(#"{"days":["mon"],"from":"07:00","to":1900}"#), path: "windows[0].to",
      message: "expected a time HH:MM from 00:00 to 23:59, got 1900.0"),
    Refusal(
      json: #"{"timeZone":"UTC","windows":["# + goodWindow + #"],"except":"2020-12-25"}"#,
      path: "except", message: #"expected an array of dates YYYY-MM-DD, got "2020-12-25""#),
    Refusal(
      json: #"{"timeZone":"UTC","windows":["# + goodWindow
        + #"],"except":["2020-12-25","2021-02-29"]}"#,
      path: "except[1]", message: #"expected a date YYYY-MM-DD, got "2021-02-29""#),
    Refusal(
      json: #"{"timeZone":"UTC","windows":["# + goodWindow + #"],"except":[20201225]}"#,
      path: "except[0]", message: "expected a date YYYY-MM-DD, got 20201225.0"),
    Refusal(
      json: #"{"timeZone":"UTC","windows":["# + goodWindow + #"],"except":["2020-12-5"]}"#,
      path: "except[0]", message: #"expected a date YYYY-MM-DD, got "2020-12-5""#),
  ])
  func refusesWhatTheSpecRefuses(_ refusal: Refusal) throws {
    let value = try JSONReader.parse(refusal.json)
    let error = #expect(throws: ScheduleError.self) { try ZoneSchedule(json: value) }
    #expect(error?.path == refusal.path)
    #expect(error?.message == refusal.message)
    let place = refusal.path.isEmpty ? "schedule" : "schedule.\(refusal.path)"
    #expect(error?.description == "\(place): \(refusal.message)")
  }

  @Test func messagesQuoteWhatTheyFoundAsJSONDoes() throws {
    let value = try JSONReader.parse(#"{"timeZone":"Mars\"\\\n","windows":[]}"#)
    let error = #expect(throws: ScheduleError.self) { try ZoneSchedule(json: value) }
    #expect(error?.message == #"unknown time zone "Mars\"\\\n""#)
  }

  @Test func timesAreExactlyTwoDigitsColonTwoDigits() {
    #expect(ZoneSchedule.LocalTime(parsing: "00:00")?.minutesSinceMidnight == 0)
    #expect(ZoneSchedule.LocalTime(parsing: "23:59")?.minutesSinceMidnight == 1439)
    #expect(ZoneSchedule.LocalTime(parsing: "07:05")?.description == "07:05")
    #expect(ZoneSchedule.LocalTime(parsing: "19:30") == time(19, 30))
    for bad in [
      "24:00", "7:00", "07:5", "0700", "07-00", "07:60", "-1:00", "+7:00", " 7:00", "07:00 ",
      "07:00:00", "", "٠٧:٠٠", "07:0a",
    ] {
      #expect(ZoneSchedule.LocalTime(parsing: bad) == nil, "\(bad)")
    }
    #expect(ZoneSchedule.LocalTime(hour: 24, minute: 0) == nil)
    #expect(ZoneSchedule.LocalTime(minutesSinceMidnight: 1440) == nil)
    #expect(ZoneSchedule.LocalTime(minutesSinceMidnight: -1) == nil)
    #expect(time(7, 0) < time(19, 0))
  }

  @Test func datesAreRealDatesWrittenYYYYMMDD() {
    #expect(ZoneSchedule.LocalDate(parsing: "2020-02-29")?.description == "2020-02-29")
    #expect(ZoneSchedule.LocalDate(parsing: "0033-01-02")?.year == 33)
    #expect(ZoneSchedule.LocalDate(year: 33, month: 1, day: 2)?.description == "0033-01-02")
    for bad in [
      "2021-02-29", "1900-02-29", "2020-13-01", "2020-00-10", "2020-01-32", "2020-04-31",
      "20-01-01", "2020-1-01", "+020-01-01", "2020/01/01", "2020-01-01T00:00", "",
    ] {
      #expect(ZoneSchedule.LocalDate(parsing: bad) == nil, "\(bad)")
    }
    #expect(ZoneSchedule.LocalDate(parsing: "2020-12-25")?.weekday == .fri)
    #expect(ZoneSchedule.LocalDate(parsing: "1970-01-01")?.weekday == .thu)
    #expect(ZoneSchedule.LocalDate(parsing: "1969-12-28")?.weekday == .sun)
    #expect(ZoneSchedule.LocalDate(parsing: "2011-12-30")?.weekday == .fri)
    let newYearsEve = ZoneSchedule.LocalDate(year: 2020, month: 12, day: 31)!
    #expect(newYearsEve < ZoneSchedule.LocalDate(year: 2021, month: 1, day: 1)!)
    #expect(newYearsEve > ZoneSchedule.LocalDate(year: 2020, month: 2, day: 29)!)
  }

  @Test func validateChecksWhatTheTypesDoNot() throws {
    let window = ZoneSchedule.Window(days: [.mon], from: time(7, 0), to: time(19, 0))
    func problem(_ schedule: ZoneSchedule) -> String? {
      do throws(ScheduleError) {
        try schedule.validate()
      } catch {
        #expect(throws: ScheduleError.self) { try ScheduleClock(schedule) }
        return error.description
      }
      return nil
    }
    #expect(problem(ZoneSchedule(timeZone: "Europe/Paris", windows: [window])) == nil)
    #expect(
      problem(ZoneSchedule(timeZone: "Mars/Olympus", windows: [window]))
        == #"schedule.timeZone: unknown time zone "Mars/Olympus""#)
    #expect(
      problem(ZoneSchedule(timeZone: "Europe/Paris", windows: []))
        == "schedule.windows: expected at least one window")
    #expect(
      problem(
        ZoneSchedule(
          timeZone: "Europe/Paris",
          windows: [window, .init(days: [], from: time(7, 0), to: time(19, 0))]))
        == "schedule.windows[1].days: expected at least one day name")
    _ = try ScheduleClock(ZoneSchedule(timeZone: "Europe/Paris", windows: [window]))
  }

  // MARK: - America/New_York: the gap

  @Test func aWindowOpeningInTheGapOpensWhenTheGapEnds() throws {
    let clock = try makeClock(
      zone: "America/New_York", #"{"days":["sun"],"from":"02:30","to":"04:00"}"#)
    // 2021-03-14 02:30 does not exist: the window opens at 03:00 EDT, closes at 04:00 EDT.
    #expect(
      armed(
        clock, "2021-03-14T06:59:59.999999Z", "2021-03-14T07:00:00Z",
        "2021-03-14T07:59:59.999999Z", "2021-03-14T08:00:00Z") == [false, true, true, false])
    #expect(
      changes(clock, after: "2021-03-06T00:00:00Z", count: 6) == [
        "2021-03-07T07:30:00Z", "2021-03-07T09:00:00Z",  // 02:30 EST, 04:00 EST
        "2021-03-14T07:00:00Z", "2021-03-14T08:00:00Z",  // 03:00 EDT, 04:00 EDT
        "2021-03-21T06:30:00Z", "2021-03-21T08:00:00Z",  // 02:30 EDT, 04:00 EDT
      ])
  }

  @Test func aWindowClosingInTheGapClosesWhenTheGapEnds() throws {
    let clock = try makeClock(
      zone: "America/New_York", #"{"days":["sat"],"from":"23:00","to":"02:30"}"#)
    // Opens 2021-03-13 23:00 EST; 2021-03-14 02:30 does not exist: closes at 03:00 EDT.
    #expect(
      changes(clock, after: "2021-03-13T12:00:00Z", count: 2)
        == ["2021-03-14T04:00:00Z", "2021-03-14T07:00:00Z"])
    #expect(
      armed(clock, "2021-03-14T06:59:59.999999Z", "2021-03-14T07:00:00Z") == [true, false])
  }

  @Test func aWindowWhollyInTheGapNeverOpens() throws {
    let clock = try makeClock(
      zone: "America/New_York", #"{"days":["sun"],"from":"02:10","to":"02:50"}"#)
    #expect(
      changes(clock, after: "2021-03-13T00:00:00Z", count: 2)
        == ["2021-03-21T06:10:00Z", "2021-03-21T06:50:00Z"])
    #expect(armed(clock, "2021-03-14T06:59:59Z", "2021-03-14T07:00:00Z") == [false, false])
  }

  @Test func aDayLongWindowIsShorterAcrossTheGap() throws {
    let clock = try makeClock(
      zone: "America/New_York", #"{"days":["sun"],"from":"02:30","to":"02:30"}"#)
    // Opens at 03:00 EDT (02:30 is skipped), closes Monday 02:30 EDT: 23 h 30 min.
    #expect(
      changes(clock, after: "2021-03-13T00:00:00Z", count: 2)
        == ["2021-03-14T07:00:00Z", "2021-03-15T06:30:00Z"])
  }

  // MARK: - America/New_York: the fold

  @Test func aWindowOpeningInTheFoldOpensAtTheFirstOccurrence() throws {
    let clock = try makeClock(
      zone: "America/New_York", #"{"days":["sun"],"from":"01:30","to":"03:00"}"#)
    // 2021-11-07 01:30 happens at 05:30Z (EDT) and 06:30Z (EST): the first; 03:00 EST is 08:00Z.
    #expect(
      armed(
        clock, "2021-11-07T05:29:59.999999Z", "2021-11-07T05:30:00Z", "2021-11-07T06:30:00Z",
        "2021-11-07T07:59:59.999999Z", "2021-11-07T08:00:00Z") == [false, true, true, true, false])
    #expect(
      changes(clock, after: "2021-10-31T00:00:00Z", count: 6) == [
        "2021-10-31T05:30:00Z", "2021-10-31T07:00:00Z",  // 01:30 EDT, 03:00 EDT
        "2021-11-07T05:30:00Z", "2021-11-07T08:00:00Z",  // 01:30 EDT, 03:00 EST
        "2021-11-14T06:30:00Z", "2021-11-14T08:00:00Z",  // 01:30 EST, 03:00 EST
      ])
  }

  @Test func aWindowClosingInTheFoldClosesAtTheFirstOccurrence() throws {
    let clock = try makeClock(
      zone: "America/New_York", #"{"days":["sat"],"from":"22:00","to":"01:30"}"#)
    // Opens 2021-11-06 22:00 EDT (02:00Z on the 7th), closes at the first 01:30 (05:30Z).
    #expect(
      changes(clock, after: "2021-11-06T12:00:00Z", count: 2)
        == ["2021-11-07T02:00:00Z", "2021-11-07T05:30:00Z"])
    #expect(
      armed(
        clock, "2021-11-07T05:29:59.999999Z", "2021-11-07T05:30:00Z", "2021-11-07T06:00:00Z",
        "2021-11-07T06:30:00Z") == [true, false, false, false])
  }

  @Test func aWindowWhollyInTheFoldIsOnlyItsFirstOccurrence() throws {
    let clock = try makeClock(
      zone: "America/New_York", #"{"days":["sun"],"from":"01:30","to":"01:45"}"#)
    #expect(
      changes(clock, after: "2021-11-07T00:00:00Z", count: 3)
        == ["2021-11-07T05:30:00Z", "2021-11-07T05:45:00Z", "2021-11-14T06:30:00Z"])
    #expect(armed(clock, "2021-11-07T05:40:00Z", "2021-11-07T06:40:00Z") == [true, false])
  }

  @Test func aDayLongWindowIsLongerAcrossTheFold() throws {
    let clock = try makeClock(
      zone: "America/New_York", #"{"days":["sun"],"from":"01:30","to":"01:30"}"#)
    // From the first 01:30 on Sunday to 01:30 EST on Monday: 25 hours.
    #expect(
      changes(clock, after: "2021-11-06T00:00:00Z", count: 2)
        == ["2021-11-07T05:30:00Z", "2021-11-08T06:30:00Z"])
  }

  // MARK: - The spec's example

  @Test func theSpecExampleAcrossTheSpringForwardWeek() throws {
    let clock = try ScheduleClock(ZoneSchedule(json: JSONReader.parse(Self.specExample)))
    #expect(
      changes(clock, after: "2021-03-08T00:00:00Z", count: 14) == [
        "2021-03-08T12:00:00Z", "2021-03-09T00:00:00Z",  // Mon 07:00–19:00 EST
        "2021-03-09T12:00:00Z", "2021-03-10T00:00:00Z",
        "2021-03-10T12:00:00Z", "2021-03-11T00:00:00Z",
        "2021-03-11T12:00:00Z", "2021-03-12T00:00:00Z",
        "2021-03-12T12:00:00Z", "2021-03-13T00:00:00Z",  // Fri
        "2021-03-14T03:00:00Z", "2021-03-14T07:00:00Z",  // Sat 22:00 EST to Sun 02:00 → 03:00 EDT
        "2021-03-15T11:00:00Z", "2021-03-15T23:00:00Z",  // Mon 07:00–19:00 EDT
      ])
    #expect(
      armed(
        clock, "2021-03-08T11:59:59.999999Z", "2021-03-08T12:00:00Z", "2021-03-09T00:00:00Z",
        "2021-03-14T02:59:59Z", "2021-03-14T03:00:00Z", "2021-03-14T06:59:59.999999Z",
        "2021-03-14T07:00:00Z") == [false, true, false, false, true, true, false])
  }

  @Test func theSpecExampleAcrossTheFallBackWeek() throws {
    let clock = try ScheduleClock(ZoneSchedule(json: JSONReader.parse(Self.specExample)))
    #expect(
      changes(clock, after: "2021-11-04T00:00:00Z", count: 8) == [
        "2021-11-04T11:00:00Z", "2021-11-04T23:00:00Z",  // Thu 07:00–19:00 EDT
        "2021-11-05T11:00:00Z", "2021-11-05T23:00:00Z",  // Fri
        "2021-11-07T02:00:00Z", "2021-11-07T07:00:00Z",  // Sat 22:00 EDT to Sun 02:00 EST
        "2021-11-08T12:00:00Z", "2021-11-09T00:00:00Z",  // Mon 07:00–19:00 EST
      ])
  }

  @Test func anExceptDateOpensNoWindow() throws {
    let clock = try ScheduleClock(ZoneSchedule(json: JSONReader.parse(Self.specExample)))
    // Friday 2020-12-25 is excepted.
    #expect(
      changes(clock, after: "2020-12-24T00:00:00Z", count: 6) == [
        "2020-12-24T12:00:00Z", "2020-12-25T00:00:00Z",  // Thu
        "2020-12-27T03:00:00Z", "2020-12-27T07:00:00Z",  // Sat 22:00 to Sun 02:00 EST
        "2020-12-28T12:00:00Z", "2020-12-29T00:00:00Z",  // Mon
      ])
    #expect(armed(clock, "2020-12-18T17:00:00Z", "2020-12-25T17:00:00Z") == [true, false])
    #expect(
      clock.nextChange(after: utc("2020-12-25T00:00:00Z"))?.description == "2020-12-27T03:00:00Z")
  }

  @Test func aWindowRunningIntoAnExceptDateStillRuns() throws {
    let saturdayIntoExceptedSunday = try makeClock(
      zone: "America/New_York", #"{"days":["sat"],"from":"22:00","to":"02:00"}"#,
      except: ["2020-12-27"])
    #expect(
      changes(saturdayIntoExceptedSunday, after: "2020-12-26T00:00:00Z", count: 2)
        == ["2020-12-27T03:00:00Z", "2020-12-27T07:00:00Z"])
    #expect(armed(saturdayIntoExceptedSunday, "2020-12-27T05:00:00Z") == [true])

    // Excepting the Saturday removes the whole window, after midnight too.
    let exceptedSaturday = try makeClock(
      zone: "America/New_York", #"{"days":["sat"],"from":"22:00","to":"02:00"}"#,
      except: ["2020-12-26"])
    #expect(
      armed(exceptedSaturday, "2020-12-27T03:00:00Z", "2020-12-27T05:00:00Z") == [false, false])
    #expect(
      changes(exceptedSaturday, after: "2020-12-26T00:00:00Z", count: 2)
        == ["2021-01-03T03:00:00Z", "2021-01-03T07:00:00Z"])
  }

  // MARK: - Overlaps and touching windows

  @Test func touchingWindowsMakeNoChangeWhereTheyMeet() throws {
    let clock = try makeClock(
      zone: "America/New_York", #"{"days":["mon"],"from":"07:00","to":"12:00"}"#,
      #"{"days":["mon"],"from":"12:00","to":"19:00"}"#)
    #expect(
      changes(clock, after: "2021-06-06T00:00:00Z", count: 3)
        == ["2021-06-07T11:00:00Z", "2021-06-07T23:00:00Z", "2021-06-14T11:00:00Z"])
    #expect(armed(clock, "2021-06-07T15:59:59Z", "2021-06-07T16:00:00Z") == [true, true])
    #expect(
      clock.nextChange(after: utc("2021-06-07T16:00:00Z"))?.description == "2021-06-07T23:00:00Z")

    // A window running past midnight into one that opens when it closes.
    let overnight = try makeClock(
      zone: "America/New_York", #"{"days":["sun"],"from":"22:00","to":"07:00"}"#,
      #"{"days":["mon"],"from":"07:00","to":"19:00"}"#)
    #expect(
      changes(overnight, after: "2021-06-06T00:00:00Z", count: 3)
        == ["2021-06-07T02:00:00Z", "2021-06-07T23:00:00Z", "2021-06-14T02:00:00Z"])
  }

  @Test func overlappingWindowsMerge() throws {
    let clock = try makeClock(
      zone: "America/New_York", #"{"days":["mon"],"from":"07:00","to":"12:00"}"#,
      #"{"days":["mon","mon"],"from":"09:00","to":"19:00"}"#,
      #"{"days":["mon"],"from":"18:00","to":"20:00"}"#,
      #"{"days":["mon"],"from":"08:00","to":"08:30"}"#)
    #expect(
      changes(clock, after: "2021-06-06T00:00:00Z", count: 3)
        == ["2021-06-07T11:00:00Z", "2021-06-08T00:00:00Z", "2021-06-14T11:00:00Z"])
  }

  // MARK: - Always armed

  @Test func dayLongWindowsEveryDayNeverChange() throws {
    let clock = try makeClock(
      zone: "America/New_York",
      #"{"days":["sun","mon","tue","wed","thu","fri","sat"],"from":"00:00","to":"00:00"}"#)
    for text in ["2021-03-14T06:59:59Z", "2021-03-14T07:00:00Z", "2021-11-07T06:30:00Z"] {
      #expect(clock.isArmed(at: utc(text)))
      #expect(clock.nextChange(after: utc(text)) == nil)
    }
    // Windows of other hours that tile the week are the same.
    let tiled = try makeClock(
      zone: "America/New_York",
      #"{"days":["sun","mon","tue","wed","thu","fri","sat"],"from":"07:00","to":"02:00"}"#,
      #"{"days":["sun","mon","tue","wed","thu","fri","sat"],"from":"02:00","to":"07:00"}"#)
    #expect(tiled.nextChange(after: utc("2021-03-10T00:00:00Z")) == nil)
    #expect(tiled.isArmed(at: utc("2021-03-14T07:00:00Z")))
  }

  @Test func anAlwaysArmedZoneChangesOnlyAtItsExceptDatesHoweverFar() throws {
    let clock = try makeClock(
      zone: "America/New_York",
      #"{"days":["sun","mon","tue","wed","thu","fri","sat"],"from":"00:00","to":"00:00"}"#,
      except: ["2025-12-25", "2021-12-25", "2021-12-26"])
    #expect(
      changes(clock, after: "2021-06-01T00:00:00Z", count: 5) == [
        "2021-12-25T05:00:00Z", "2021-12-27T05:00:00Z",  // 2021-12-25 and 26 excepted
        "2025-12-25T05:00:00Z", "2025-12-26T05:00:00Z",
      ])
    #expect(armed(clock, "2021-12-26T12:00:00Z", "2021-12-27T05:00:00Z") == [false, true])
  }

  @Test func extremeInstantsDoNotTrap() throws {
    let clock = try ScheduleClock(ZoneSchedule(json: JSONReader.parse(Self.specExample)))
    for t in [Timestamp(microsecondsSinceEpoch: .min), Timestamp(microsecondsSinceEpoch: .max)] {
      _ = clock.isArmed(at: t)
      if let next = clock.nextChange(after: t) { #expect(next > t) }
    }
    let always = try makeClock(
      zone: "UTC",
      #"{"days":["sun","mon","tue","wed","thu","fri","sat"],"from":"00:00","to":"00:00"}"#)
    #expect(always.nextChange(after: Timestamp(microsecondsSinceEpoch: .max)) == nil)
  }

  // MARK: - Other time zones

  @Test func lordHoweShiftsByHalfAnHour() throws {
    // The fold: 2021-04-04 01:30–02:00 happens at +11, then at +10:30.
    let fold = try makeClock(
      zone: "Australia/Lord_Howe", #"{"days":["sun"],"from":"01:45","to":"02:15"}"#,
      #"{"days":["sun"],"from":"01:00","to":"01:40"}"#)
    #expect(
      changes(fold, after: "2021-04-03T00:00:00Z", count: 4) == [
        "2021-04-03T14:00:00Z", "2021-04-03T14:40:00Z",  // 01:00 +11, the first 01:40
        "2021-04-03T14:45:00Z", "2021-04-03T15:45:00Z",  // the first 01:45, 02:15 +10:30
      ])
    // The gap: 2021-10-03 02:00–02:30 is skipped.
    let gap = try makeClock(
      zone: "Australia/Lord_Howe", #"{"days":["sun"],"from":"02:15","to":"03:00"}"#,
      #"{"days":["sun"],"from":"02:00","to":"02:29"}"#)
    #expect(
      changes(gap, after: "2021-10-02T00:00:00Z", count: 4) == [
        "2021-10-02T15:30:00Z", "2021-10-02T16:00:00Z",  // 02:30 +11, 03:00 +11
        "2021-10-09T15:00:00Z", "2021-10-09T16:00:00Z",  // 02:00–03:00 +11 the week after
      ])
  }

  @Test func apiaSkippedTheWholeOf30December2011() throws {
    let clock = try makeClock(
      zone: "Pacific/Apia", #"{"days":["thu","fri","sat"],"from":"09:00","to":"17:00"}"#,
      #"{"days":["thu"],"from":"22:00","to":"02:00"}"#)
    #expect(
      changes(clock, after: "2011-12-29T00:00:00Z", count: 7) == [
        "2011-12-29T19:00:00Z", "2011-12-30T03:00:00Z",  // Thu 29 09:00–17:00 −10
        "2011-12-30T08:00:00Z", "2011-12-30T10:00:00Z",  // Thu 22:00 −10, to Fri 02:00: skipped
        // Friday 2011-12-30 does not exist: its window never opens.
        "2011-12-30T19:00:00Z", "2011-12-31T03:00:00Z",  // Sat 31 09:00–17:00 +14
        "2012-01-04T19:00:00Z",  // Thu 2012-01-05 09:00 +14
      ])
    #expect(
      armed(clock, "2011-12-30T09:59:59.999999Z", "2011-12-30T10:00:00Z", "2011-12-30T12:00:00Z")
        == [true, false, false])
    let fridays = try makeClock(
      zone: "Pacific/Apia", #"{"days":["fri"],"from":"09:00","to":"17:00"}"#)
    #expect(
      changes(fridays, after: "2011-12-20T00:00:00Z", count: 4) == [
        "2011-12-23T19:00:00Z", "2011-12-24T03:00:00Z",  // Fri 23 at −10
        "2012-01-05T19:00:00Z", "2012-01-06T03:00:00Z",  // Fri 2012-01-06 at +14
      ])
  }

  @Test func londonSpringAndAutumn() throws {
    let clock = try makeClock(
      zone: "Europe/London", #"{"days":["sun"],"from":"00:30","to":"01:30"}"#,
      #"{"days":["sat"],"from":"23:00","to":"01:15"}"#)
    // 2021-03-28 01:00–02:00 is skipped; 2021-10-31 01:00–02:00 happens twice.
    #expect(
      changes(clock, after: "2021-03-27T12:00:00Z", count: 2)
        == ["2021-03-27T23:00:00Z", "2021-03-28T01:00:00Z"])
    #expect(
      changes(clock, after: "2021-10-30T12:00:00Z", count: 2)
        == ["2021-10-30T22:00:00Z", "2021-10-31T00:30:00Z"])
    #expect(
      armed(clock, "2021-10-31T00:29:59Z", "2021-10-31T00:30:00Z", "2021-10-31T01:15:00Z")
        == [true, false, false])
  }

  // MARK: - Cross-checks

  /// Schedules and periods (two weeks around a transition) for the cross-checks.
  static let crossChecks: [(json: String, start: String)] = {
    let newYorkEdges =
      #"{"timeZone":"America/New_York","windows":[{"days":["sun"],"from":"02:30","to":"04:00"},{"days":["sun"],"from":"01:30","to":"01:45"},{"days":["sat"],"from":"22:00","to":"01:15"},{"days":["wed"],"from":"02:00","to":"02:00"}],"except":["2021-11-10"]}"#
    let newYorkDayLong =
      #"{"timeZone":"America/New_York","windows":[{"days":["sat"],"from":"02:15","to":"02:15"},{"days":["sun"],"from":"04:00","to":"05:00"}]}"#
    let lordHowe =
      #"{"timeZone":"Australia/Lord_Howe","windows":[{"days":["sun"],"from":"01:45","to":"02:15"},{"days":["sat"],"from":"23:00","to":"01:35"},{"days":["sun"],"from":"02:20","to":"03:00"}]}"#
    return [
      (specExample, "2021-03-07T00:00:00Z"),
      (specExample, "2021-10-31T00:00:00Z"),
      (specExample, "2020-12-18T00:00:00Z"),
      (newYorkEdges, "2021-03-07T00:00:00Z"),
      (newYorkEdges, "2021-10-31T00:00:00Z"),
      (newYorkDayLong, "2021-03-07T00:00:00Z"),
      (newYorkDayLong, "2021-10-31T00:00:00Z"),
      (lordHowe, "2021-03-28T00:00:00Z"),
      (lordHowe, "2021-09-26T00:00:00Z"),
      (
        #"{"timeZone":"Pacific/Apia","windows":[{"days":["thu","fri","sat"],"from":"09:00","to":"17:00"},{"days":["thu"],"from":"22:00","to":"22:00"}]}"#,
        "2011-12-22T00:00:00Z"
      ),
      (
        #"{"timeZone":"Europe/London","windows":[{"days":["sun","mon","tue","wed","thu","fri","sat"],"from":"00:00","to":"00:00"}],"except":["2021-03-28","2021-04-02"]}"#,
        "2021-03-21T00:00:00Z"
      ),
    ]
  }()

  @Test(arguments: 0..<ZoneScheduleTests.crossChecks.count)
  func followingNextChangeGivesIsArmedEverywhere(_ index: Int) throws {
    let (json, start) = Self.crossChecks[index]
    let schedule = try ZoneSchedule(json: JSONReader.parse(json))
    let clock = try ScheduleClock(schedule)
    let report = crossCheck(clock, reference: Reference(schedule), from: utc(start))
    #expect(report.mismatches.isEmpty, "\(report.mismatches.prefix(5))")
    #expect(report.changeCount > 0)
  }

  @Test func randomSchedulesAgreeWithTheDefinition() throws {
    var random = SplitMix64(seed: 20_210_314)
    let periods = [
      ("America/New_York", "2021-03-07T00:00:00Z"), ("America/New_York", "2021-10-31T00:00:00Z"),
      ("Australia/Lord_Howe", "2021-03-28T00:00:00Z"),
      ("Australia/Lord_Howe", "2021-09-26T00:00:00Z"), ("Pacific/Apia", "2011-12-22T00:00:00Z"),
      ("Europe/London", "2021-10-24T00:00:00Z"),
    ]
    let hours = [0, 1, 2, 3, 7, 12, 22, 23]
    for (zone, start) in periods {
      for _ in 0..<4 {
        var windows: [ZoneSchedule.Window] = []
        for _ in 0...random.next(below: 3) {
          let days = ZoneSchedule.Weekday.allCases.filter { _ in random.next(below: 3) == 0 }
          windows.append(
            .init(
              days: days.isEmpty ? [.sun] : days,
              from: time(hours[random.next(below: hours.count)], 15 * random.next(below: 4)),
              to: time(hours[random.next(below: hours.count)], 15 * random.next(below: 4))))
        }
        let startDay = ZoneSchedule.LocalDate(parsing: String(start.prefix(10)))!
        let exceptions = (0..<random.next(below: 3)).map { _ in
          localDate(daysSinceEpoch: startDay.daysSinceEpoch + Int64(random.next(below: 14)))
        }
        let schedule = ZoneSchedule(timeZone: zone, windows: windows, exceptions: exceptions)
        let report = crossCheck(
          try ScheduleClock(schedule), reference: Reference(schedule), from: utc(start))
        #expect(report.mismatches.isEmpty, "\(schedule.json): \(report.mismatches.prefix(5))")
      }
    }
  }

  // MARK: - Helpers

  /// What a cross-check found: the instants where the clock and the reference or the chain of
  /// changes disagree, and how many changes the chain had.
  struct CrossCheckReport {
    var mismatches: [String] = []
    var changeCount = 0
  }

  /// Steps through two weeks from `start` in 5-minute steps comparing `isArmed` with the state
  /// implied by following `nextChange` from the start, and with `reference`; and checks that
  /// at each change both `isArmed` and `reference` change (from a microsecond before).
  func crossCheck(_ clock: ScheduleClock, reference: Reference, from start: Timestamp)
    -> CrossCheckReport
  {
    var report = CrossCheckReport()
    var state = clock.isArmed(at: start)
    var next = clock.nextChange(after: start)
    let end = start.adding(seconds: 14 * 86_400)
    var t = start
    while t < end {
      while let change = next, change <= t {
        report.changeCount += 1
        let before = Timestamp(microsecondsSinceEpoch: change.microsecondsSinceEpoch - 1)
        if clock.isArmed(at: change) == state || clock.isArmed(at: before) != state {
          report.mismatches.append("no change at \(change)")
        }
        if reference.isArmed(at: change) == state || reference.isArmed(at: before) != state {
          report.mismatches.append("the reference has no change at \(change)")
        }
        state.toggle()
        next = clock.nextChange(after: change)
        if let following = next, following <= change {
          report.mismatches.append("nextChange(after: \(change)) = \(following)")
          next = nil
        }
      }
      let armed = clock.isArmed(at: t)
      if armed != state { report.mismatches.append("\(t): isArmed \(armed), chain \(state)") }
      if armed != reference.isArmed(at: t) {
        report.mismatches.append("\(t): isArmed \(armed), reference \(!armed)")
      }
      t = t.adding(seconds: 300)
    }
    return report
  }

  /// The definition of the spec followed literally, slowly and independently of
  /// `ScheduleClock`: a wall time's instant is the first instant, in minute steps, whose local
  /// time is at or after it (the only one, the first of two in a fold, the end of a gap); the
  /// zone is armed when an instant lies in a window opening on an ordinary date.
  final class Reference {
    let schedule: ZoneSchedule
    let zone: TimeZone
    var instants: [Int64: Int64] = [:]

    init(_ schedule: ZoneSchedule) {
      self.schedule = schedule
      self.zone = TimeZone(identifier: schedule.timeZone)!
    }

    func offset(_ second: Int64) -> Int64 {
      Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(second))))
    }

    func instant(wall: Int64) -> Int64 {
      if let known = instants[wall] { return known }
      var second = wall - 16 * 3600
      while second + offset(second) < wall { second += 60 }
      instants[wall] = second
      return second
    }

    func isArmed(at t: Timestamp) -> Bool {
      let second = Int64((t.secondsSinceEpoch).rounded(.down))
      let local = second + offset(second)
      let today = (local - ((local % 86_400) + 86_400) % 86_400) / 86_400
      for day in (today - 3)...(today + 1) {
        let (year, month, dayOfMonth) = RFC3339.civilDate(daysSinceEpoch: day)
        if schedule.exceptions.contains(where: {
          Int64($0.year) == year && Int64($0.month) == month && Int64($0.day) == dayOfMonth
        }) {
          continue
        }
        let weekday = ["thu", "fri", "sat", "sun", "mon", "tue", "wed"][
          Int(((day % 7) + 7) % 7)]
        for window in schedule.windows where window.days.map(\.rawValue).contains(weekday) {
          let from = Int64(window.from.hour * 3600 + window.from.minute * 60)
          let to = Int64(window.to.hour * 3600 + window.to.minute * 60)
          let open = instant(wall: day * 86_400 + from)
          let close = instant(wall: (to > from ? day : day + 1) * 86_400 + to)
          if open <= second && second < close { return true }
        }
      }
      return false
    }
  }

  /// A clock for a schedule in `zone` with `windows` (JSON texts) and except dates.
  func makeClock(zone: String, _ windows: String..., except: [String] = []) throws -> ScheduleClock
  {
    var json = #"{"timeZone":""# + zone + #"","windows":["# + windows.joined(separator: ",") + "]"
    if !except.isEmpty {
      json += #","except":[""# + except.joined(separator: #"",""#) + #""]"#
    }
    return try ScheduleClock(ZoneSchedule(json: JSONReader.parse(json + "}")))
  }

  /// The first `count` changes after `start` (fewer when there are no more), as RFC 3339 text.
  func changes(_ clock: ScheduleClock, after start: String, count: Int) -> [String] {
    var result: [String] = []
    var t = utc(start)
    while result.count < count, let next = clock.nextChange(after: t) {
      result.append(next.description)
      t = next
    }
    return result
  }

  /// Whether the clock arms the zone at each instant.
  func armed(_ clock: ScheduleClock, _ instants: String...) -> [Bool] {
    instants.map { clock.isArmed(at: utc($0)) }
  }
}

/// A window that is fine, for the refusals about something else.
private let goodWindow = #"{"days":["mon"],"from":"07:00","to":"19:00"}"#

/// A schedule in UTC with `window` as its only window.
private func withWindow(_ window: String) -> String {
  #"{"timeZone":"UTC","windows":["# + window + "]}"
}

/// The instant of an RFC 3339 literal.
private func utc(_ text: String) -> Timestamp {
  guard let instant = RFC3339.parse(text) else { preconditionFailure("not RFC 3339: \(text)") }
  return instant
}

/// The local time `hour:minute`.
private func time(_ hour: Int, _ minute: Int) -> ZoneSchedule.LocalTime {
  ZoneSchedule.LocalTime(hour: hour, minute: minute)!
}

/// The date `day` days after 1970-01-01.
private func localDate(daysSinceEpoch day: Int64) -> ZoneSchedule.LocalDate {
  let (year, month, dayOfMonth) = RFC3339.civilDate(daysSinceEpoch: day)
  return ZoneSchedule.LocalDate(year: Int(year), month: Int(month), day: Int(dayOfMonth))!
}

/// A small deterministic generator (SplitMix64) for the random schedules.
private struct SplitMix64 {
  var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  mutating func next(below bound: Int) -> Int { Int(next() % UInt64(bound)) }
}

extension JSONValue {
  /// The value with every object's members sorted by key, at every depth.
  fileprivate var sortedMembers: JSONValue {
    switch self {
    case .array(let elements): return .array(elements.map(\.sortedMembers))
    case .object(let object):
      return .object(
        JSONObject(
          object.members.map { (key: $0.key, value: $0.value.sortedMembers) }
            .sorted { $0.key < $1.key }))
    case .null, .bool, .number, .string: return self
    }
  }
}
