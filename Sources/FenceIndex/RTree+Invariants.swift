import FenceGeometry

extension RTree {
  /// Checks the index's structure and stops with a message naming the first broken invariant.
  ///
  /// Every node's box is exactly the union of its children's; level sizes follow from the node
  /// size; each packed tree's id index matches its entries; crossing items have both parts, in
  /// the same layer, with the same state; every live id is in exactly one layer, once, and a
  /// search for its box finds it exactly once; ``count`` matches. O(*n* log *n*): for tests.
  package func checkInvariants() {
    var live = 0
    // A main tree with a point grid keeps no lanes: the grid answers its point searches.
    live += Self.checkTree(main, name: "main", hasLanes: mainGrid == nil)
    live += Self.checkTree(delta, name: "delta", hasLanes: true)
    precondition(tail.count <= tailCapacity, "Tail holds \(tail.count) > \(tailCapacity) entries")
    var slot = 0
    while slot < tail.count {
      let flags = tail.flags[slot]
      precondition(!flags.contains(.removed), "Tail entry \(slot) is marked removed")
      Self.checkPlanar(tail, slot, name: "tail")
      if flags.contains(.firstPart) {
        precondition(
          slot + 1 < tail.count && tail.flags[slot + 1] == .secondPart
            && tail.id(at: slot + 1) == tail.id(at: slot),
          "Tail entry \(slot) (id \(tail.id(at: slot))) is a western part without its eastern part")
        slot += 2
      } else {
        precondition(flags.isEmpty, "Tail entry \(slot) has flags \(flags.rawValue)")
        slot += 1
      }
      live += 1
    }
    precondition(live == count, "count is \(count) but \(live) live items are stored")
    if let mainGrid { checkGrid(mainGrid) }

    // Every live id: in one layer only, and found once by a search for its own box.
    var ids: [Int32] = []
    for (entries, name) in [(main.entries, "main"), (delta.entries, "delta"), (tail, "tail")] {
      for slot in 0..<entries.count {
        let flags = entries.flags[slot]
        if flags.contains(.removed) || flags.contains(.secondPart) { continue }
        let id = entries.id(at: slot)
        ids.append(id)
        guard let box = boundingBox(of: id) else {
          preconditionFailure("Live id \(id) in \(name) is not found by boundingBox(of:)")
        }
        var found = 0
        search(intersecting: box) { if $0 == id { found += 1 } }
        precondition(found == 1, "Search for the box of id \(id) \(box) found it \(found) times")
      }
    }
    precondition(Set(ids).count == ids.count, "Some live id is stored in two layers")
  }

  /// Checks one packed tree; returns its number of live items.
  private static func checkTree(_ tree: PackedTree, name: String, hasLanes: Bool) -> Int {
    let n = tree.entryCount
    guard n > 0 else {
      precondition(
        tree.levelEnds.isEmpty && tree.nodeBoxes.isEmpty && tree.idOrder.isEmpty
          && tree.laneBoxes.isEmpty,
        "Empty \(name) tree has nodes")
      return 0
    }
    // Level sizes.
    precondition(tree.levelEnds[0] == n, "\(name): level 0 ends at \(tree.levelEnds[0]), not \(n)")
    var levelCount = n
    var nodeTotal = 0
    for level in 1..<tree.height {
      levelCount = (levelCount + tree.nodeSize - 1) / tree.nodeSize
      nodeTotal += levelCount
      precondition(
        tree.levelEnds[level] == nodeTotal,
        "\(name): level \(level) ends at \(tree.levelEnds[level]), expected \(nodeTotal)")
    }
    precondition(levelCount == 1 && tree.height >= 2, "\(name): the top level is not one root")
    precondition(
      tree.nodeBoxes.count == 4 * nodeTotal && tree.firstChild.count == nodeTotal,
      "\(name): \(nodeTotal) nodes but \(tree.nodeBoxes.count / 4) boxes")

    // Every node's box is the union of its children's, and children follow one another.
    for level in 1..<tree.height {
      let start = level == 1 ? 0 : tree.levelEnds[level - 1]
      let childEnd = tree.levelEnds[level - 1]
      var expectedChild = level <= 2 ? 0 : tree.levelEnds[level - 2]
      for node in start..<tree.levelEnds[level] {
        let first = Int(tree.firstChild[node])
        precondition(
          first == expectedChild, "\(name): node \(node) starts at \(first), not \(expectedChild)")
        let end = min(first + tree.nodeSize, childEnd)
        let children = level == 1 ? tree.entries.boxes : tree.nodeBoxes
        var union = PlanarBox(
          west: .infinity, south: .infinity, east: -.infinity, north: -.infinity)
        for c in first..<end {
          union.west = min(union.west, children[4 * c])
          union.south = min(union.south, children[4 * c + 1])
          union.east = max(union.east, children[4 * c + 2])
          union.north = max(union.north, children[4 * c + 3])
        }
        let box = PlanarBox(
          west: tree.nodeBoxes[4 * node], south: tree.nodeBoxes[4 * node + 1],
          east: tree.nodeBoxes[4 * node + 2], north: tree.nodeBoxes[4 * node + 3])
        precondition(
          box.west == union.west && box.south == union.south && box.east == union.east
            && box.north == union.north,
          "\(name): node \(node) at level \(level) has box \(box), its children's union is \(union)"
        )
        expectedChild = end
      }
      precondition(expectedChild == childEnd, "\(name): level \(level) misses children")
    }

    // Entries, the id index and crossing pairs.
    if tree.idsAreSlots {
      precondition(tree.idOrder.isEmpty, "\(name): an id index beside ids that are slots")
      for slot in 0..<n {
        precondition(
          tree.entries.id(at: slot) == Int32(slot)
            && tree.entries.flags[slot].isDisjoint(with: .crossingPart),
          "\(name): entry \(slot) is not id \(slot) of a whole item")
      }
    } else {
      precondition(tree.idOrder.count == n, "\(name): id index has \(tree.idOrder.count) of \(n)")
    }
    var removed = 0
    var liveItems = 0
    var seen = [Bool](repeating: false, count: n)
    for (position, key) in tree.idOrder.enumerated() {
      let slot = Int(key & 0xFFFF_FFFF)
      precondition(slot < n && !seen[slot], "\(name): id index names slot \(slot) twice")
      seen[slot] = true
      precondition(
        key >> 32 == PackedTree.idKey(tree.entries.id(at: slot)),
        "\(name): id index disagrees with entry \(slot)")
      if position > 0 {
        precondition(tree.idOrder[position - 1] < key, "\(name): id index is not sorted")
      }
    }
    for slot in 0..<n {
      checkPlanar(tree.entries, slot, name: name)
      let flags = tree.entries.flags[slot]
      if flags.contains(.removed) { removed += 1 }
      let crossing = flags.intersection(.crossingPart)
      if crossing.isEmpty {
        if !flags.contains(.removed) { liveItems += 1 }
        continue
      }
      precondition(crossing != .crossingPart, "\(name): entry \(slot) is both parts")
      guard let (a, b) = tree.slots(of: tree.entries.id(at: slot)), let b else {
        preconditionFailure("\(name): crossing entry \(slot) has no partner")
      }
      let other = a == slot ? b : a
      let otherFlags = tree.entries.flags[other]
      precondition(
        otherFlags.intersection(.crossingPart).union(crossing) == .crossingPart
          && otherFlags.contains(.removed) == flags.contains(.removed),
        "\(name): crossing entries \(slot) and \(other) do not pair up")
      let (west, east) = crossing == .firstPart ? (slot, other) : (other, slot)
      precondition(
        tree.entries.boxes[4 * west + 2] == 180 && tree.entries.boxes[4 * east] == -180,
        "\(name): crossing parts \(west), \(east) do not meet at the antimeridian")
      if crossing == .firstPart && !flags.contains(.removed) { liveItems += 1 }
    }
    precondition(
      removed == tree.removedCount,
      "\(name): \(removed) removed entries, recorded \(tree.removedCount)")
    if hasLanes {
      checkLanes(tree, name: name)
    } else {
      precondition(
        tree.laneBoxes.isEmpty && tree.laneLevelStarts.isEmpty, "\(name): lanes beside a grid")
    }
    return liveItems
  }

  /// Checks that every lane box is its node's (or live entry's) box rounded outward to `Float`,
  /// and that unused lanes and removed entries' lanes are empty.
  private static func checkLanes(_ tree: PackedTree, name: String) {
    let lanes = tree.lanes
    precondition(
      lanes % 8 == 0 && lanes >= tree.nodeSize && lanes < tree.nodeSize + 8,
      "\(name): \(lanes) lanes for node size \(tree.nodeSize)")
    precondition(
      tree.laneLevelStarts.count == tree.height - 1, "\(name): lanes for the wrong levels")
    var expectedStart = 0
    for level in 0..<(tree.height - 1) {
      precondition(
        tree.laneLevelStarts[level] == expectedStart, "\(name): lane level \(level) misplaced")
      let count = tree.nodeCount(onLevel: level)
      let groups = (count + tree.nodeSize - 1) / tree.nodeSize
      let firstNode = level <= 1 ? 0 : tree.levelEnds[level - 1]
      for group in 0..<groups {
        let start = expectedStart + group * 4 * lanes
        for lane in 0..<lanes {
          let index = group * tree.nodeSize + lane
          let stored = (0..<4).map { tree.laneBoxes[start + $0 * lanes + lane] }
          var expected: [Float] = [.infinity, .infinity, -.infinity, -.infinity]
          if lane < tree.nodeSize && index < count
            && (level > 0 || !tree.entries.flags[index].contains(.removed))
          {
            let source = level == 0 ? tree.entries.boxes : tree.nodeBoxes
            let b = 4 * (firstNode + index)
            expected = [
              Float(roundingDown: source[b]), Float(roundingDown: source[b + 1]),
              Float(roundingUp: source[b + 2]), Float(roundingUp: source[b + 3]),
            ]
            precondition(
              Double(expected[0]) <= source[b] && Double(expected[1]) <= source[b + 1]
                && Double(expected[2]) >= source[b + 2] && Double(expected[3]) >= source[b + 3],
              "\(name): Float box of node \(index) at level \(level) is not rounded outward")
          }
          precondition(
            stored == expected,
            "\(name): lane \(lane) of group \(group) at level \(level) holds \(stored), "
              + "expected \(expected)")
        }
      }
      expectedStart += groups * 4 * lanes
    }
    precondition(
      tree.laneBoxes.count == expectedStart,
      "\(name): \(tree.laneBoxes.count) lane numbers, expected \(expectedStart)")
  }

  private static func checkPlanar(_ entries: EntryList, _ slot: Int, name: String) {
    let b = PlanarBox(entries, slot)
    precondition(
      b.west <= b.east && b.south <= b.north && b.west >= -180 && b.east <= 180
        && b.south >= -90 && b.north <= 90,
      "\(name): entry \(slot) (id \(entries.id(at: slot))) has a bad planar box \(b)")
  }

  /// Every live entry of ``main`` (each part of a crossing item on its own) is listed by the
  /// grid (by slot) or live in ``mainWide``, never both; removed entries are listed by neither.
  private func checkGrid(_ grid: PointGrid) {
    var listed = Set<Int32>()
    precondition(
      main.idsAreSlots ? grid.slots.isEmpty : grid.slots.count == grid.listings.count,
      "Grid slots kept beside ids that are slots, or not one per listing without")
    for k in grid.listings.indices where grid.listings[k] != PointGrid.emptyBox {
      let id = Int32(bitPattern: UInt32(truncatingIfNeeded: grid.listings[k] >> 32))
      let slot = grid.slot(ofListing: k, id: id)
      listed.insert(Int32(slot))
      precondition(
        slot < main.entries.count && id == main.entries.id(at: slot),
        "Grid listing \(k) names another id than its slot's")
    }
    // A crossing item's parts are apart: one may be listed, the other wide.
    var wideParts = Set<Int64>()
    for slot in 0..<mainWide.entries.count where !mainWide.entries.flags[slot].contains(.removed) {
      let flags = mainWide.entries.flags[slot]
      wideParts.insert(Int64(mainWide.entries.id(at: slot)) << 8 | Int64(flags.rawValue))
    }
    for slot in 0..<main.entries.count {
      let isLive = !main.entries.flags[slot].contains(.removed)
      let inGrid = listed.contains(Int32(slot))
      let part = main.entries.flags[slot].subtracting(.removed).rawValue
      let inWide = wideParts.contains(Int64(main.entries.id(at: slot)) << 8 | Int64(part))
      precondition(
        isLive ? inGrid != inWide : !inGrid,
        "Main entry \(slot) (id \(main.entries.id(at: slot)), live \(isLive)): grid \(inGrid), wide \(inWide)")
    }
  }
}
