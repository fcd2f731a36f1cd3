import FenceGeometry

extension ZoneEvaluator {
  /// Fills `result` with the monitored set around `position`: the up to `count` fences and
  /// GEOLINEs within `radius` metres, nearest first (ties by id), as element slots sorted
  /// ascending.
  mutating func computeMonitoredSet(
    around position: Position, _ proximity: ProximityMonitoring, into result: inout [Int32]
  ) {
    var candidates = scratchCandidates
    scratchCandidates = []
    candidates.removeAll(keepingCapacity: true)
    fenceIndex.search(within: proximity.radius, of: position) { candidates.append($0) }
    geolineIndex.search(within: proximity.radius, of: position) { candidates.append($0) }
    // The nearest `count` so far, kept sorted by (distance, id) in a bounded buffer.
    var nearby = scratchNearby
    scratchNearby = []
    nearby.removeAll(keepingCapacity: true)
    let limit = max(proximity.count, 0)
    for slot in candidates where limit > 0 {
      guard let element = elements[Int(slot)] else { continue }
      let distance: Double
      switch element.shape {
      case .fence(let area, _, _): distance = area.distance(from: position)
      case .geoline(let line, _): distance = line.distance(from: position)
      }
      guard distance <= proximity.radius else { continue }
      if nearby.count == limit {
        guard let last = nearby.last, isNearer((distance, slot), than: last) else { continue }
        nearby.removeLast()
      }
      var index = nearby.count
      nearby.append((distance, slot))
      while index > 0, isNearer(nearby[index], than: nearby[index - 1]) {
        nearby.swapAt(index, index - 1)
        index -= 1
      }
    }
    for item in nearby { result.append(item.element) }
    result.insertionSort(by: <)
    nearby.removeAll(keepingCapacity: true)
    scratchNearby = nearby
    candidates.removeAll(keepingCapacity: true)
    scratchCandidates = candidates
  }

  /// Whether `a` comes before `b` in the monitored order: nearer first, ties by id.
  func isNearer(_ a: (distance: Double, element: Int32), than b: (distance: Double, element: Int32))
    -> Bool
  {
    if a.distance != b.distance { return a.distance < b.distance }
    return elementID(at: a.element) < elementID(at: b.element)
  }

  /// Appends a `monitoredSetChanged` event listing the ids that came on and went off, each
  /// sorted.
  func appendMonitoredChange(
    from previous: [Int32], to current: [Int32], time: Timestamp, device d: Int,
    into events: inout [ZoneEvent]
  ) {
    var on: [String] = []
    var off: [String] = []
    var i = 0
    var j = 0
    while i < previous.count || j < current.count {
      if j == current.count || (i < previous.count && previous[i] < current[j]) {
        off.append(elementID(at: previous[i]))
        i += 1
      } else if i == previous.count || current[j] < previous[i] {
        on.append(elementID(at: current[j]))
        j += 1
      } else {
        i += 1
        j += 1
      }
    }
    var event = ZoneEvent(kind: .monitoredSetChanged, time: time, device: devices[d].name)
    event.on = on.sorted()
    event.off = off.sorted()
    events.append(event.withDeterministicID())
  }
}
