import FenceGeometry
import FenceIndex

extension ZoneEvaluator {
  /// The monitored set of the device in slot `d`: empty when none was stored.
  @inline(__always)
  func monitoredSet(of d: Int) -> [Int32] {
    d < monitoredSets.count ? monitoredSets[d] : []
  }

  /// Makes room in ``monitoredSets`` for every device slot (empty sets for those without).
  @inline(__always)
  mutating func makeRoomForMonitoredSets() {
    if monitoredSets.count < devices.count {
      monitoredSets.append(contentsOf: repeatElement([], count: devices.count - monitoredSets.count))
    }
  }

  /// Fills `result` with the monitored set around `position`: the up to `count` fences and
  /// GEOLINEs within `radius` metres, nearest first (ties by id), as element slots sorted
  /// ascending.
  ///
  /// Best-first searches of the fence and GEOLINE indexes (``RTree/nearest(to:count:within:exactDistance:into:scratch:)``)
  /// measure only the regions they reach in distance order. They break ties by slot, so each
  /// is asked for one region more than needed, and a list that is full and ends at the cut-off
  /// distance (a tie there) is asked again for twice as many, until every region at the
  /// cut-off is known; those are then ordered by id.
  mutating func computeMonitoredSet(
    around position: Position, _ proximity: ProximityMonitoring, into result: inout [Int32]
  ) {
    // Clamped so that the counts below cannot overflow whatever the configuration says
    // (``Configuration/validate()`` refuses counts above ``ValidRange/monitoredCount``).
    let limit = min(max(proximity.count, 0), ValidRange.monitoredCount.upperBound)
    guard limit > 0 else { return }
    var fences: [RTree.Neighbor] = []
    swap(&fences, &scratchNeighbors)
    var lines: [RTree.Neighbor] = []
    swap(&lines, &scratchGeolineNeighbors)
    var scratch = RTree.NearestScratch()
    swap(&scratch, &nearestScratch)
    // One more than needed from each index: a full list whose last item is not beyond the
    // cut-off then shows a tie at the cut-off that may go on.
    var fenceCount = limit + 1
    var lineCount = limit + 1
    var cutoff = Double.infinity
    while true {
      nearestRegions(
        to: position, within: proximity.radius, fenceCount: fenceCount, lineCount: lineCount,
        fences: &fences, lines: &lines, scratch: &scratch)
      guard fences.count + lines.count >= limit else {
        cutoff = .infinity  // fewer than `limit` in reach: all of them
        break
      }
      cutoff = Self.distance(ranked: limit, in: fences, lines)
      var again = false
      if fences.count == fenceCount, let last = fences.last, last.distance <= cutoff {
        fenceCount *= 2
        again = true
      }
      if lines.count == lineCount, let last = lines.last, last.distance <= cutoff {
        lineCount *= 2
        again = true
      }
      if !again { break }
    }
    // Every region nearer than the cut-off, then those at it by id.
    var nearby: [(distance: Double, element: Int32)] = []
    swap(&nearby, &scratchNearby)
    nearby.empty()
    for neighbor in fences where neighbor.distance <= cutoff {
      nearby.append((neighbor.distance, neighbor.id))
    }
    for neighbor in lines where neighbor.distance <= cutoff {
      nearby.append((neighbor.distance, neighbor.id))
    }
    nearby.insertionSort { isNearer($0, than: $1) }
    for item in nearby.prefix(limit) { result.append(item.element) }
    result.insertionSort(by: <)
    nearby.empty()
    swap(&nearby, &scratchNearby)
    swap(&fences, &scratchNeighbors)
    swap(&lines, &scratchGeolineNeighbors)
    swap(&scratch, &nearestScratch)
  }

  /// The up to `fenceCount` fences and `lineCount` GEOLINEs nearest to `position` within
  /// `radius` metres, each list sorted by distance then slot.
  ///
  /// The distance closures capture only the tables they read, and the method is always
  /// inlined: a closure calling a method of the evaluator (or this method out of line) made its
  /// mutating caller copy the whole evaluator, once per fix with monitoring.
  @inline(__always)
  func nearestRegions(
    to position: Position, within radius: Double, fenceCount: Int, lineCount: Int,
    fences: inout [RTree.Neighbor], lines: inout [RTree.Neighbor],
    scratch: inout RTree.NearestScratch
  ) {
    let cores = elementCores
    let polygons = polygonFences
    fenceIndex.nearest(
      to: position, count: fenceCount, within: radius,
      exactDistance: { Self.fenceDistance($0, from: position, cores: cores, polygons: polygons) },
      into: &fences, scratch: &scratch)
    lines.empty()
    if !geolineIndex.isEmpty {
      let shapes = geolineShapes
      geolineIndex.nearest(
        to: position, count: lineCount, within: radius,
        exactDistance: { shapes.sparseSlot($0)?.line.distance(from: position) ?? .infinity },
        into: &lines, scratch: &scratch)
    }
  }

  /// The distance of the `rank`-th nearest (1-based) of two lists sorted by distance, which
  /// together hold at least `rank` items.
  static func distance(ranked rank: Int, in a: [RTree.Neighbor], _ b: [RTree.Neighbor]) -> Double {
    var i = 0
    var j = 0
    var distance = 0.0
    for _ in 0..<rank {
      if j == b.count || (i < a.count && a[i].distance <= b[j].distance) {
        distance = a[i].distance
        i += 1
      } else {
        distance = b[j].distance
        j += 1
      }
    }
    return distance
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
  ///
  /// Mutating although it changes nothing of the evaluator, as
  /// ``appendEvent(_:time:device:zone:fence:to:_:)``: called from the per-fix step, a
  /// non-mutating method made the compiler copy the whole evaluator first.
  mutating func appendMonitoredChange(
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
    var event = ZoneEvent(kind: .monitoredSetChanged, time: time, device: deviceNames[d])
    event.on = on.sorted()
    event.off = off.sorted()
    events.append(event.withDeterministicID())
  }
}
