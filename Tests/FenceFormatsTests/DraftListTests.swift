import Testing

@testable import FenceFormats

/// The drafts' chunked list: indices across chunk boundaries, changes in place, and `consume`
/// giving every draft once, in order, and leaving the list empty.
struct DraftListTests {
  @Test func draftsAcrossChunksKeepTheirOrderAndChanges() throws {
    let count = 2 * DraftList.chunkSize + 123
    var list = DraftList()
    list.reserveCapacity(count)
    for k in 0..<count { list.append(ZoneLoading.Draft(id: "z\(k)")) }
    #expect(list.count == count)
    // A change through the subscript lands in its draft only, on either side of a boundary.
    for k in [0, DraftList.chunkSize - 1, DraftList.chunkSize, count - 1] {
      list[k].selfFeature = Int32(k)
    }
    #expect(list[DraftList.chunkSize - 1].id == "z\(DraftList.chunkSize - 1)")
    #expect(list[DraftList.chunkSize].id == "z\(DraftList.chunkSize)")
    #expect(list.filter { $0.selfFeature >= 0 }.map(\.selfFeature)
      == [0, Int32(DraftList.chunkSize - 1), Int32(DraftList.chunkSize), Int32(count - 1)])
    var ids: [String] = []
    list.consume { ids.append($0.id) }
    #expect(ids == (0..<count).map { "z\($0)" })
    #expect(list.isEmpty && list.count == 0)
    // Usable again after.
    list.append(ZoneLoading.Draft(id: "again"))
    #expect(list.map(\.id) == ["again"])
  }

  /// A throw stops the consumption, and the list is empty after it all the same.
  @Test func aThrowEndsTheConsumption() {
    struct Stop: Error {}
    var list = DraftList()
    for k in 0..<5 { list.append(ZoneLoading.Draft(id: "z\(k)")) }
    var seen: [String] = []
    #expect(throws: Stop.self) {
      try list.consume { draft in
        if draft.id == "z2" { throw Stop() }
        seen.append(draft.id)
      }
    }
    #expect(seen == ["z0", "z1"])
    #expect(list.isEmpty)
  }
}
