/// A static R-tree packed along the Hilbert curve, stored in flat arrays.
///
/// The leaves are an ``EntryList`` sorted by the Hilbert position of each box's centre; each
/// internal node covers up to `nodeSize` consecutive nodes of the level below. Levels are stored
/// one after another, the lowest internal level first and the root last, so a node is an index
/// and no object is allocated per node. Removal only marks an entry ``EntryFlags/removed``.
///
/// Beside the exact `Double` boxes, every level below the root is stored again for the point
/// search as ``laneBoxes``: `Float` boxes rounded outward, the children of one node side by side
/// in struct-of-arrays form (see `PackedTree+PointSearch.swift`).
@usableFromInline
struct PackedTree: Sendable {
  @usableFromInline let nodeSize: Int
  /// The leaves, in Hilbert order.
  @usableFromInline private(set) var entries: EntryList
  /// Four numbers per internal node (west, south, east, north), lowest level first, root last.
  @usableFromInline private(set) var nodeBoxes: ContiguousArray<Double>
  /// Per internal node, the index of its first child: an entry index for nodes of level 1, a node
  /// index above.
  @usableFromInline private(set) var firstChild: ContiguousArray<Int32>
  /// Per level, the end of its index range: `levelEnds[0]` is the entry count, `levelEnds[l]`
  /// for `l >= 1` is an end in the internal node arrays. Empty when the tree is.
  @usableFromInline private(set) var levelEnds: ContiguousArray<Int>
  /// `(id, slot)` pairs sorted by id then slot: the id (sign bit flipped) in the high 32 bits,
  /// the entry index in the low 32 bits. Finds an item's entries in O(log *n*). Empty when
  /// ``idsAreSlots``.
  private(set) var idOrder: ContiguousArray<UInt64>
  /// Whether entry `s` has id `s` for every `s`, and none is a part of an item that crosses the
  /// antimeridian: an item's entry is then found without ``idOrder`` (8 bytes an entry). So it
  /// is when the ids' order is the curve order, as for the evaluator's element slots, which a
  /// large load gives in the curve order of its zones' boxes.
  @usableFromInline private(set) var idsAreSlots = false
  /// Entries marked removed.
  private(set) var removedCount = 0
  /// The children of each node as one *group* of ``lanes`` boxes in `Float`, rounded outward:
  /// `lanes` west edges, then `lanes` south edges, `lanes` east edges, `lanes` north edges.
  /// Group *g* of level *l* holds nodes (entries at level 0) `g * nodeSize ..< (g + 1) *
  /// nodeSize` of that level; unused lanes and removed entries hold an empty box (west `+inf`,
  /// east `-inf`) that no point is in. Levels from 0 (the leaves) to the root's children.
  @usableFromInline var laneBoxes: ContiguousArray<Float>
  /// Per level below the root, the index in ``laneBoxes`` of its first group.
  @usableFromInline var laneLevelStarts: ContiguousArray<Int>
  /// Lanes per group: `nodeSize` rounded up to a multiple of 8, the SIMD width searched at once.
  @usableFromInline let lanes: Int
  /// Which cells of the entries' extent any entry's box meets, so that the point search can
  /// answer a point between the boxes without the walk (see ``OccupancyGrid``).
  @usableFromInline private(set) var occupancy = OccupancyGrid()

  /// An empty tree.
  init(nodeSize: Int) {
    self.nodeSize = nodeSize
    entries = EntryList()
    nodeBoxes = []
    firstChild = []
    levelEnds = []
    idOrder = []
    laneBoxes = []
    laneLevelStarts = []
    lanes = (nodeSize + 7) / 8 * 8
  }

  /// Packs `input`: O(*n*) for the Hilbert keys and the radix sort, O(*n*) for the levels.
  ///
  /// The entries are put in curve order in `input`'s own arrays (when the caller gives its
  /// last reference, as the index's builds do), not copied: a million boxes' sorted copy was
  /// 37 MB more at the load's peak.
  ///
  /// Without `packingLanes`, the ``laneBoxes`` are left out (``packLanes()`` makes them later):
  /// a tree whose point searches a ``PointGrid`` answers never reads them.
  init(packing input: consuming EntryList, nodeSize: Int, packingLanes: Bool = true) {
    precondition(nodeSize >= 2 && nodeSize <= 1024, "Node size \(nodeSize) is not in 2...1024")
    precondition(input.count < Int(Int32.max) / 2, "Too many entries: \(input.count)")
    self.init(nodeSize: nodeSize)
    let n = input.count
    guard n > 0 else { return }

    // Hilbert keys of the box centres, on a grid spanning the entries' extent.
    var keys = input.boxes.withUnsafeBufferPointer { boxes in
      HilbertCurve.sortedKeys(count: n) { i in
        ((boxes[4 * i] + boxes[4 * i + 2]) * 0.5, (boxes[4 * i + 1] + boxes[4 * i + 3]) * 0.5)
      }.keys
    }

    // Leaves in curve order: slot `s` takes the entry at `keys[s]`'s low word.
    Self.permute(&input, takingFrom: &keys)
    entries = input

    // Level sizes, then the internal levels bottom-up.
    levelEnds = [n]
    var levelCount = n
    var nodeCount = 0
    repeat {
      levelCount = (levelCount + nodeSize - 1) / nodeSize
      nodeCount += levelCount
      levelEnds.append(nodeCount)
    } while levelCount > 1
    nodeBoxes = ContiguousArray(repeating: 0, count: 4 * nodeCount)
    firstChild = ContiguousArray(repeating: 0, count: nodeCount)
    nodeBoxes.withUnsafeMutableBufferPointer { nodes in
      entries.boxes.withUnsafeBufferPointer { leaves in
        var parent = 0
        for level in 1..<levelEnds.count {
          let children = level == 1 ? leaves : UnsafeBufferPointer(nodes)
          var child = level == 1 ? 0 : (level == 2 ? 0 : levelEnds[level - 2])
          let end = levelEnds[level - 1]
          while child < end {
            let groupEnd = min(child + nodeSize, end)
            var west = Double.infinity
            var south = Double.infinity
            var east = -Double.infinity
            var north = -Double.infinity
            for c in child..<groupEnd {
              west = min(west, children[4 * c])
              south = min(south, children[4 * c + 1])
              east = max(east, children[4 * c + 2])
              north = max(north, children[4 * c + 3])
            }
            nodes[4 * parent] = west
            nodes[4 * parent + 1] = south
            nodes[4 * parent + 2] = east
            nodes[4 * parent + 3] = north
            firstChild[parent] = Int32(child)
            parent += 1
            child = groupEnd
          }
        }
      }
    }

    // The id index, unless every entry's id is its slot.
    idsAreSlots = entries.storedIDs.withUnsafeBufferPointer { ids in
      entries.flags.withUnsafeBufferPointer { flags in
        for slot in 0..<n where ids[slot] != Int32(slot) || !flags[slot].isDisjoint(with: .crossingPart) {
          return false
        }
        return true
      }
    }
    if !idsAreSlots {
      var order = ContiguousArray<UInt64>(repeating: 0, count: n)
      for slot in 0..<n {
        order[slot] = Self.idKey(entries.id(at: slot)) << 32 | UInt64(slot)
      }
      sortByHighWord(&order)
      idOrder = order
    } else {
      // The ids are the slots: kept as that rule (a million circles: 4 MB).
      entries.dropIDs()
    }

    if packingLanes { packLanes() }
    occupancy = entries.boxes.withUnsafeBufferPointer { OccupancyGrid(boxes: $0, count: n) }
  }

  /// Reorders `list` so that entry `s` is the one that was at `sources[s] & 0xFFFF_FFFF` (a
  /// permutation of the entries), in place, following each cycle of the permutation once. Bit
  /// 31 of each source marks the slots done (the sources are below 2³¹), so `sources` is
  /// scratch afterwards.
  static func permute(_ list: inout EntryList, takingFrom sources: inout ContiguousArray<UInt64>) {
    let done: UInt64 = 1 << 31
    let n = list.count
    precondition(sources.count == n, "a source per entry")
    precondition(!list.idsAreSlots, "a list to pack stores its ids")
    list.boxes.withUnsafeMutableBufferPointer { boxes in
      list.storedIDs.withUnsafeMutableBufferPointer { ids in
        list.flags.withUnsafeMutableBufferPointer { flags in
          sources.withUnsafeMutableBufferPointer { sources in
            for start in 0..<n where sources[start] & done == 0 {
              let box = (
                boxes[4 * start], boxes[4 * start + 1], boxes[4 * start + 2], boxes[4 * start + 3]
              )
              let id = ids[start]
              let flag = flags[start]
              var slot = start
              while true {
                let from = Int(sources[slot] & 0x7FFF_FFFF)
                sources[slot] |= done
                if from == start {
                  (boxes[4 * slot], boxes[4 * slot + 1], boxes[4 * slot + 2], boxes[4 * slot + 3]) =
                    box
                  ids[slot] = id
                  flags[slot] = flag
                  break
                }
                for k in 0..<4 { boxes[4 * slot + k] = boxes[4 * from + k] }
                ids[slot] = ids[from]
                flags[slot] = flags[from]
                slot = from
              }
            }
          }
        }
      }
    }
  }

  /// The id's sort key: signed order as unsigned order.
  @inline(__always)
  static func idKey(_ id: Int32) -> UInt64 {
    UInt64(UInt32(bitPattern: id) ^ 0x8000_0000)
  }

  @inlinable var entryCount: Int { entries.count }
  @inlinable var height: Int { levelEnds.count }
  /// Entries not marked removed.
  var liveEntryCount: Int { entries.count - removedCount }

  /// The entries holding `id`, removed ones included, in slot order: none, one, or two.
  func slots(of id: Int32) -> (Int, Int?)? {
    if idsAreSlots { return id >= 0 && Int(id) < entries.count ? (Int(id), nil) : nil }
    let key = Self.idKey(id) << 32
    var low = 0
    var high = idOrder.count
    while low < high {
      let mid = (low + high) / 2
      if idOrder[mid] < key { low = mid + 1 } else { high = mid }
    }
    guard low < idOrder.count, idOrder[low] >> 32 == key >> 32 else { return nil }
    let first = Int(idOrder[low] & 0xFFFF_FFFF)
    if low + 1 < idOrder.count, idOrder[low + 1] >> 32 == key >> 32 {
      return (first, Int(idOrder[low + 1] & 0xFFFF_FFFF))
    }
    return (first, nil)
  }

  /// Marks an entry removed; returns whether it was live.
  mutating func markRemoved(_ slot: Int) -> Bool {
    guard !entries.flags[slot].contains(.removed) else { return false }
    entries.flags[slot].insert(.removed)
    removedCount += 1
    clearLane(ofEntry: slot)
    return true
  }

  /// The most groups a depth-first traversal keeps pending at once.
  @inlinable var stackCapacity: Int { nodeSize * max(height, 1) + 1 }

  /// Calls `body` with the slot of every entry (removed ones included) whose box and whose
  /// ancestors' boxes pass `accepts`.
  ///
  /// `accepts` receives a pointer to four numbers: west, south, east, north. Depth-first with an
  /// explicit stack of pending child groups in temporary (stack) memory: no heap allocation.
  @inline(__always)
  func forEachEntry(
    where accepts: (UnsafePointer<Double>) -> Bool, _ body: (Int) -> Void
  ) {
    guard !levelEnds.isEmpty else { return }
    let nodeSize = self.nodeSize
    entries.boxes.withUnsafeBufferPointer { leafBoxes in
      nodeBoxes.withUnsafeBufferPointer { nodeBoxes in
        firstChild.withUnsafeBufferPointer { firstChild in
          levelEnds.withUnsafeBufferPointer { levelEnds in
            guard let leaves = leafBoxes.baseAddress, let nodes = nodeBoxes.baseAddress else {
              return
            }
            withUnsafeTemporaryAllocation(of: Int.self, capacity: stackCapacity) { stack in
              // A pending group is (index of its first node) << 6 | level.
              stack[0] = (levelEnds[levelEnds.count - 1] - 1) << 6 | (levelEnds.count - 1)
              var top = 1
              while top > 0 {
                top -= 1
                let group = stack[top]
                let level = group & 63
                let start = group >> 6
                let end = min(start + nodeSize, levelEnds[level])
                if level == 0 {
                  for slot in start..<end where accepts(leaves + 4 * slot) { body(slot) }
                } else {
                  for node in start..<end where accepts(nodes + 4 * node) {
                    stack[top] = Int(firstChild[node]) << 6 | (level - 1)
                    top += 1
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}
