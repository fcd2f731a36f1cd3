/// Why one fix did (or did not) cause events: what the engine looked at and decided (rules v2,
/// "Explain"). Made by ``ZoneEvaluator/explain(_:into:)``, which processes the fix exactly as
/// ``ZoneEvaluator/process(_:into:)`` does and records around it.
public struct FixExplanation: Hashable, Sendable {
  /// What happened to the fix as a whole.
  public enum Outcome: Hashable, Sendable {
    /// Evaluated.
    case accepted
    /// Rejected before evaluation (no state changed).
    case rejected(RejectionReason)
    /// Accepted, but inside the device's safe radius: provably nothing could change, so no
    /// fence was tested (``ZoneEvaluator/Configuration/skipsUnchangedFixes``).
    case skipped
  }

  /// One fence or GEOLINE the engine looked at for this fix.
  public struct Candidate: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable { case circle, polygon, geoline }
    /// The fence or GEOLINE id.
    public var id: String
    public var zone: String
    public var kind: Kind
    /// Whether the index returned it for the fix's position (fences) or movement (GEOLINEs);
    /// `false` for a fence of a zone the device has state with, shown for its distance.
    public var fromIndex: Bool
    /// Fences: whether the area covers the fix (boundary inside). GEOLINEs: whether the
    /// movement from the previous fix crosses it in an admitted direction.
    public var predicate: Bool
    /// Metres from the fix to the fence's edge, negative inside (GEOLINEs: to the line, >= 0).
    public var distanceToEdge: Double
  }

  /// Where a device stands with one zone, as the rules see it.
  public struct RuleState: Hashable, Sendable {
    public enum Presence: String, Hashable, Sendable { case outside, insideSilently, checkedIn }
    public var presence: Presence
    /// Consecutive fixes outside counted toward the zone's exit confirmations.
    public var exitCount: Int
    /// When the stay began (checked in).
    public var checkInTime: Timestamp?
    /// Until when a new check-in would be suppressed by the zone's minimum retrigger time.
    public var mrtUntil: Timestamp?
    /// When the stay's dwell event is due, if it is pending.
    public var dwellDue: Timestamp?

    /// Outside, with nothing pending.
    public static let outside = RuleState(presence: .outside, exitCount: 0)

    public init(
      presence: Presence, exitCount: Int, checkInTime: Timestamp? = nil, mrtUntil: Timestamp? = nil,
      dwellDue: Timestamp? = nil
    ) {
      self.presence = presence
      self.exitCount = exitCount
      self.checkInTime = checkInTime
      self.mrtUntil = mrtUntil
      self.dwellDue = dwellDue
    }
  }

  /// One zone the fix concerned: a candidate's zone, or a zone the device had or has state with.
  public struct ZoneDecision: Hashable, Sendable {
    public var zone: String
    public var before: RuleState
    public var after: RuleState
    /// Whether the zone existed and was armed when the fix was evaluated (lifetime, schedule).
    public var armed: Bool
    /// Whether the fix passed the zone's conditions (`nil`: the zone has none).
    public var conditionsPassed: Bool?
    /// Whether the fix counted as inside the zone (a fence covers it, or exit hysteresis holds).
    public var insideNow: Bool
    /// The zone's exit hysteresis in metres and whether only it kept the device inside.
    public var hysteresis: Double
    /// The events of this zone the fix caused.
    public var events: [ZoneEvent.Kind]
    /// Why the fix caused no event of this zone (or what the events were for), in words.
    public var reason: String
  }

  public var fix: LocationFix
  public var outcome: Outcome
  /// Fences whose box holds the fix (and their predicates), GEOLINEs whose box meets the
  /// movement, and the fences of zones the device had state with; by id.
  public var candidates: [Candidate]
  /// By zone id.
  public var zones: [ZoneDecision]
  /// Every event the fix caused, in order (dwells of other devices that came due included).
  public var events: [ZoneEvent]
  /// Why the fix caused no event, when it caused none (else `nil`).
  public var reasonForNone: String?
}
