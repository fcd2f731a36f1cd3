/// What a scenario's run produced: the events, the rejections, and the fixes as fed.
public struct ScenarioResult: Sendable {
  /// Every event the engine reported, in order.
  public let events: [ZoneEvent]
  /// How many fixes the engine rejected, by reason.
  public let rejections: RejectionCounts
  /// How many fixes the engine accepted.
  public let acceptedFixCount: Int
  /// Every fix, in the order it was fed to the engine.
  public let fixes: [LocationFix]
  /// The scenario's clock, for reading and writing times.
  public let clock: ScenarioClock

  public init(
    events: [ZoneEvent], rejections: RejectionCounts, acceptedFixCount: Int,
    fixes: [LocationFix], clock: ScenarioClock
  ) {
    self.events = events
    self.rejections = rejections
    self.acceptedFixCount = acceptedFixCount
    self.fixes = fixes
    self.clock = clock
  }

  /// The difference between the events and `expected`, or `nil` when they match exactly (same
  /// events, same order, nothing more).
  ///
  /// ```swift
  /// let diff = result.diff([.checkIn("depot", at: "10:00:00")])
  /// #expect(diff == nil, "\(diff?.description ?? "")")
  /// ```
  public func diff(_ expected: [ExpectedEvent]) -> EventListDiff? {
    EventListDiff(expected: expected, actual: events, clock: clock)
  }

  /// The events, one line each, written as a diff writes an unexpected event
  /// (`10:00:00  checkIn   depot  fence=depot  device=truck`): a quick way to see what a
  /// scenario does.
  public var eventLines: [String] {
    let render = EventRendering(clock: clock)
    return events.map { render.actual($0) }
  }
}
