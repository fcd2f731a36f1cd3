/// The snapshot's codes for a record's presence and dwell, to and from the evaluator's own
/// values (the raw values of the snapshot's enums are the format's codes, which must not
/// change with the evaluator's types).
extension EvaluatorSnapshot.Presence {
  init(_ presence: Presence) {
    switch presence {
    case .outside: self = .outside
    case .insideSilently: self = .insideSilently
    case .checkedIn: self = .checkedIn
    }
  }
}

extension EvaluatorSnapshot.Dwell {
  init(_ dwell: DwellStatus) {
    switch dwell {
    case .none: self = .none
    case .scheduled: self = .scheduled
    case .waiting: self = .waiting
    case .fired: self = .fired
    }
  }
}

extension Presence {
  init(_ presence: EvaluatorSnapshot.Presence) {
    switch presence {
    case .outside: self = .outside
    case .insideSilently: self = .insideSilently
    case .checkedIn: self = .checkedIn
    }
  }
}

extension DwellStatus {
  init(_ dwell: EvaluatorSnapshot.Dwell) {
    switch dwell {
    case .none: self = .none
    case .scheduled: self = .scheduled
    case .waiting: self = .waiting
    case .fired: self = .fired
    }
  }
}
