/// The calendar of a scenario: its day, which gives meaning to times such as `"10:00:00"`, and
/// its origin, which gives meaning to seconds offsets.
///
/// Times are UTC. Labels show a time of the scenario's day as `HH:MM:SS` (with up to six
/// fractional digits when the instant is not a whole second) and any other instant in RFC 3339.
public struct ScenarioClock: Hashable, Sendable {
  /// Midnight (UTC) that starts the scenario's day.
  public let day: Timestamp
  /// The instant that number literals count from.
  public let origin: Timestamp

  /// A clock for `day` (`YYYY-MM-DD`), counting offsets from `origin` (a time of that day).
  ///
  /// - Throws: ``ScenarioError`` when the day or the origin does not parse.
  public init(day: String, origin: String = "00:00:00") throws {
    guard let days = ScenarioTimeText.daysSinceEpoch(Substring(day)) else {
      throw ScenarioError(fault: .invalidDay(day))
    }
    guard let micros = ScenarioTimeText.microsecondsOfDay(origin) else {
      throw ScenarioError(fault: .invalidTime(origin))
    }
    self.day = Timestamp(microsecondsSinceEpoch: days * 86_400_000_000)
    self.origin = Timestamp(microsecondsSinceEpoch: self.day.microsecondsSinceEpoch + micros)
  }

  /// The instant a scenario time stands for.
  ///
  /// - Throws: ``ScenarioError/Fault/invalidTime(_:)`` when text does not parse or an offset is
  ///   not finite.
  public func timestamp(_ time: ScenarioTime) throws -> Timestamp {
    switch time {
    case .instant(let instant):
      return instant
    case .offset(let seconds):
      guard seconds.isFinite, abs(seconds) < 1e12 else {
        throw ScenarioError(fault: .invalidTime(String(seconds)))
      }
      return origin.adding(seconds: seconds)
    case .text(let text):
      if let micros = ScenarioTimeText.microsecondsOfDay(text) {
        return Timestamp(microsecondsSinceEpoch: day.microsecondsSinceEpoch + micros)
      }
      if let instant = ScenarioTimeText.instant(text) { return instant }
      throw ScenarioError(fault: .invalidTime(text))
    }
  }

  /// `HH:MM:SS[.ffffff]` for an instant of the scenario's day, RFC 3339 for any other.
  public func label(_ time: Timestamp) -> String {
    let micros = time.microsecondsSinceEpoch - day.microsecondsSinceEpoch
    guard micros >= 0, micros < 86_400_000_000 else { return RFC3339.format(time) }
    let seconds = micros / 1_000_000
    var text = pad(seconds / 3600) + ":" + pad(seconds / 60 % 60) + ":" + pad(seconds % 60)
    let fraction = micros % 1_000_000
    if fraction != 0 {
      var digits = String(fraction)
      digits = String(repeating: "0", count: 6 - digits.count) + digits
      while digits.hasSuffix("0") { digits.removeLast() }
      text += "." + digits
    }
    return text
  }

  private func pad(_ value: Int64) -> String {
    value < 10 ? "0\(value)" : String(value)
  }
}
