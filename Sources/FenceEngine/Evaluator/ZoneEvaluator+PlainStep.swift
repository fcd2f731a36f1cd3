extension ZoneEvaluator {
  /// Steps 2-4 and the pruning of finished records, the shorter way, for a fix whose records
  /// are all of zones with plain rules (``ZoneRuleSet/isPlain``: a stay ends at its first fix
  /// outside, opens no retrigger window and has no dwell), none with an exit counted. The
  /// caller makes sure that the fix has no conditions to judge and crossed no GEOLINE.
  ///
  /// Under those rules the general steps come down to one pass over the records: a stay not
  /// found inside ends at this fix (with a check-out, sorted by zone id, when it checks out),
  /// a zone found inside while outside checks in (sorted by zone id, after the check-outs), and
  /// every record left outside is dropped. The general steps gather the zones in the
  /// evaluator's scratch arrays, keep each ended stay's exit for GEOLINE crossings, find each
  /// gathered zone's record again and read each zone's rules; here the records' indices are
  /// gathered on the stack and nothing else is kept. On tracks that make a check-in and a
  /// check-out at about every fix this is about a tenth of the evaluation (Docs/Scaling.md,
  /// "What is left", item 2).
  ///
  /// The events and the records left are exactly those of the general steps;
  /// `PlainStepTests` compares the two ways (``takesPlainSteps``) over random zones, rules
  /// and tracks.
  ///
  /// - Returns: whether it took the fix's steps; `false`, having changed nothing, when some
  ///   record's zone has other rules or an exit counted (a zone whose rules changed during
  ///   an exit): the general steps then take the fix.
  ///
  /// Kept out of line. Inlined, it made `checkOutAndIn` too large to be inlined into the
  /// per-fix step, and that call cost every fix whose records it looks at: zones with rules of
  /// their own (the harbor zones file alone) took 2.8 % more instructions a fix than before
  /// this way existed, against 0.4 % out of line. The tracks with two events a fix pay about
  /// 1 % for the call (`count-instructions`; decision 0025).
  @inline(never)
  mutating func checkOutAndInPlainly(
    fix: FixReading, isFirst: Bool, device d: Int, records: inout [ZoneRecord],
    into events: inout [ZoneEvent]
  ) -> Bool {
    let allPlain = records.withUnsafeBufferPointer { records in
      for r in records.indices {
        guard records[r].exitCount == 0, zoneCores.hasPlainRules(slot: Int(records[r].zone))
        else { return false }
      }
      return true
    }
    guard allPlain else { return false }
    let count = records.count
    // The indices of the records to check out, from 0, and of those to check in, from `count`.
    withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * count) { gathered in
      var checkOuts = 0
      var checkIns = 0
      records.withUnsafeMutableBufferPointer { records in
        for r in records.indices {
          if records[r].presence == .outside {
            if records[r].isInsideNow {
              gathered[count + checkIns] = r
              checkIns += 1
            }
          } else if !records[r].isInsideNow {
            if records[r].presence == .checkedIn, records[r].willCheckOut {
              gathered[checkOuts] = r
              checkOuts += 1
            } else {
              // A silent stay, or one that checks out without an event: it just ends.
              records[r].endStay()
            }
          }
        }
      }
      sortByZoneID(UnsafeMutableBufferPointer(rebasing: gathered[0..<checkOuts]), records)
      sortByZoneID(
        UnsafeMutableBufferPointer(rebasing: gathered[count..<(count + checkIns)]), records)
      for k in 0..<checkOuts {
        let r = gathered[k]
        checkOut(
          record: r, exit: exitOfThisFix(fix, zone: records[r].zone, context: nil),
          records: &records, device: d, into: &events)
      }
      guard checkIns > 0 else { return }
      let lastSequence = devices[d].lastSequence
      for k in count..<(count + checkIns) {
        checkIn(
          record: gathered[k], records: &records, fix: fix, context: nil, isFirst: isFirst,
          lastSequence: lastSequence, device: d, into: &events)
      }
    }
    // No retrigger window keeps a record that is outside: every one of them is dropped.
    records.keepRecords { $0.presence != .outside }
    plainStepCount &+= 1
    return true
  }

  /// Sorts record indices by their records' zone ids (one index, the usual case, costs
  /// nothing), over the zone table read in place.
  @inline(__always)
  func sortByZoneID(_ gathered: UnsafeMutableBufferPointer<Int>, _ records: [ZoneRecord]) {
    guard gathered.count > 1 else { return }
    var gathered = gathered
    zoneSlots.withUnsafeBufferPointer { slots in
      records.withUnsafeBufferPointer { records in
        gathered.insertionSort {
          Self.zoneIDPrecedes(records[$0].zone, records[$1].zone, in: slots)
        }
      }
    }
  }
}
