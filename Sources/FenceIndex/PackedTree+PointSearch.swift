import FenceGeometry

extension PackedTree {
  /// The number of nodes on `level` (entries on level 0).
  func nodeCount(onLevel level: Int) -> Int {
    level <= 1 ? levelEnds[level] : levelEnds[level] - levelEnds[level - 1]
  }

  /// Fills ``laneBoxes`` and ``laneLevelStarts`` from the `Double` boxes: O(*n*).
  mutating func packLanes() {
    let height = levelEnds.count
    guard height >= 2 else { return }
    let lanes = self.lanes
    var starts = ContiguousArray<Int>()
    var total = 0
    for level in 0..<(height - 1) {
      starts.append(total)
      total += (nodeCount(onLevel: level) + nodeSize - 1) / nodeSize * 4 * lanes
    }
    var packed = ContiguousArray<Float>(repeating: 0, count: total)
    packed.withUnsafeMutableBufferPointer { target in
      for level in 0..<(height - 1) {
        let count = nodeCount(onLevel: level)
        let firstNode = level <= 1 ? 0 : levelEnds[level - 1]
        let source = level == 0 ? entries.boxes : nodeBoxes
        source.withUnsafeBufferPointer { source in
          var group = 0
          var start = starts[level]
          while group * nodeSize < count {
            for lane in 0..<lanes {
              let index = group * nodeSize + lane
              if lane < nodeSize && index < count {
                let b = 4 * (firstNode + index)
                target[start + lane] = Float(roundingDown: source[b])
                target[start + lanes + lane] = Float(roundingDown: source[b + 1])
                target[start + 2 * lanes + lane] = Float(roundingUp: source[b + 2])
                target[start + 3 * lanes + lane] = Float(roundingUp: source[b + 3])
              } else {
                target[start + lane] = .infinity
                target[start + lanes + lane] = .infinity
                target[start + 2 * lanes + lane] = -.infinity
                target[start + 3 * lanes + lane] = -.infinity
              }
            }
            group += 1
            start += 4 * lanes
          }
        }
      }
    }
    laneBoxes = packed
    laneLevelStarts = starts
  }

  /// Drops ``laneBoxes`` and ``laneLevelStarts`` (a tree whose point searches a grid answers).
  mutating func dropLanes() {
    laneBoxes = []
    laneLevelStarts = []
  }

  /// Whether the lanes are made (or the tree has no level to make them for).
  var hasLanes: Bool { !laneLevelStarts.isEmpty || levelEnds.count < 2 }

  /// Empties the lane of entry `slot`, so the point search skips it without reading its flags.
  mutating func clearLane(ofEntry slot: Int) {
    guard !laneLevelStarts.isEmpty else { return }
    let start = laneLevelStarts[0] + slot / nodeSize * 4 * lanes + slot % nodeSize
    laneBoxes[start] = .infinity
    laneBoxes[start + lanes] = .infinity
    laneBoxes[start + 2 * lanes] = -.infinity
    laneBoxes[start + 3 * lanes] = -.infinity
  }

  /// A bit per lane among `lanes ..< lanes + 8` of the group at `group`: set when the `Float`
  /// box there holds (`x`, `y`).
  @inlinable @inline(__always)
  static func laneHits(
    _ group: UnsafePointer<Float>, lanes: Int, chunk: Int, x: Float, y: Float
  ) -> UInt32 {
    let west = UnsafeRawPointer(group + chunk).loadUnaligned(as: SIMD8<Float>.self)
    let south = UnsafeRawPointer(group + lanes + chunk).loadUnaligned(as: SIMD8<Float>.self)
    let east = UnsafeRawPointer(group + 2 * lanes + chunk).loadUnaligned(as: SIMD8<Float>.self)
    let north = UnsafeRawPointer(group + 3 * lanes + chunk).loadUnaligned(as: SIMD8<Float>.self)
    let inside = (west .<= x) .& (south .<= y) .& (east .>= x) .& (north .>= y)
    let bits = SIMD8<UInt32>(1, 2, 4, 8, 16, 32, 64, 128)
    return SIMD8<UInt32>(repeating: 0).replacing(with: bits, where: inside).wrappedSum()
  }

  /// Calls `visit` with the id of every live entry whose box holds (`x`, `y`), edges included.
  ///
  /// The hot path. A point in a clear cell of the ``occupancy`` grid is in no box: nothing to
  /// walk. Otherwise walks ``laneBoxes`` depth-first, testing eight children at once in `Float`:
  /// rounding the position to the nearest `Float` keeps it inside every box rounded outward that
  /// holds it, so nothing is missed; each candidate entry is then tested on its exact `Double`
  /// box. Removed entries have empty lanes. The stack of pending groups is temporary (stack)
  /// memory: no heap allocation.
  ///
  /// `mutating` only to read the tree in place (see ``RTree/searchInPlace(containing:longitude:_:)``).
  @inlinable @inline(__always)
  mutating func forEachLiveID(containingX x: Double, y: Double, _ visit: (Int32) -> Void) {
    let height = levelEnds.count
    guard height >= 2, occupancy.mayHold(x: x, y: y) else { return }
    Self.walk(
      containingX: x, y: y, height: height, nodeSize: nodeSize, lanes: lanes,
      stackCapacity: stackCapacity, laneBoxes: laneBoxes, levelStarts: laneLevelStarts,
      leafBoxes: entries.boxes, ids: entries.storedIDs, idsAreSlots: entries.idsAreSlots, visit)
  }

  /// The walk of ``forEachLiveID(containingX:y:_:)``, on the tables it reads: as a method, its
  /// closures captured the tree value, which was copied (about 170 bytes) at every search.
  @inlinable
  static func walk(
    containingX x: Double, y: Double, height: Int, nodeSize: Int, lanes: Int, stackCapacity: Int,
    laneBoxes: borrowing ContiguousArray<Float>, levelStarts: borrowing ContiguousArray<Int>,
    leafBoxes: borrowing ContiguousArray<Double>, ids: borrowing ContiguousArray<Int32>,
    idsAreSlots: Bool, _ visit: (Int32) -> Void
  ) {
    let fx = Float(x)
    let fy = Float(y)
    laneBoxes.withUnsafeBufferPointer { laneBoxes in
      levelStarts.withUnsafeBufferPointer { levelStarts in
        leafBoxes.withUnsafeBufferPointer { leafBoxes in
          ids.withUnsafeBufferPointer { ids in
            // No ids when each entry's id is its slot (``EntryList/idsAreSlots``).
            guard let groups = laneBoxes.baseAddress, let leaves = leafBoxes.baseAddress,
              idsAreSlots || ids.baseAddress != nil
            else { return }
            let ids = ids.baseAddress
            withUnsafeTemporaryAllocation(of: Int.self, capacity: stackCapacity) { stack in
              // A pending group is (its index on its level) << 6 | level; the root's children
              // are group 0 of level height - 2.
              stack[0] = height - 2
              var top = 1
              while top > 0 {
                top &-= 1
                let pending = stack[top]
                let level = pending & 63
                let group = pending >> 6
                let base = groups + (levelStarts[level] &+ group &* 4 &* lanes)
                let firstChild = group &* nodeSize
                var chunk = 0
                while chunk < lanes {
                  var hits = Self.laneHits(base, lanes: lanes, chunk: chunk, x: fx, y: fy)
                  while hits != 0 {
                    let child = firstChild &+ chunk &+ hits.trailingZeroBitCount
                    hits &= hits &- 1
                    if level == 0 {
                      let b = leaves + 4 &* child
                      if x >= b[0] && y >= b[1] && x <= b[2] && y <= b[3] {
                        visit(idsAreSlots ? Int32(truncatingIfNeeded: child) : ids.unsafelyUnwrapped[child])
                      }
                    } else {
                      stack[top] = child << 6 | (level &- 1)
                      top &+= 1
                    }
                  }
                  chunk &+= 8
                }
              }
            }
          }
        }
      }
    }
  }
}
