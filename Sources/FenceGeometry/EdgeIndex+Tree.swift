/// The chunk tree of an edge index, built on first use.
///
/// Only the cell filing (``EdgeIndex/forEachEdge(meetingBox:_:_:_:margin:_:)``) and distances
/// read a tree, and only for the polygons a fix comes near: the time zones' trees were 6 MB of
/// the harbor week's heap, almost all of them never read. A tree of at most
/// ``ChunkTree/unstoredChunkLimit`` chunks is made for each search on the stack, as before; a
/// larger one is built by the first search that needs it and published once through
/// ``EdgeIndex/treeSlot`` (``PublishedOnce``), as the stripes are (decision 0017).
extension EdgeIndex {
  /// How an index holds its chunk tree.
  enum TreeStorage: UInt8, Sendable {
    /// No tree: a multipolygon's joined index (distances search the parts' own), or no edges.
    case none
    /// A tree of at most ``ChunkTree/unstoredChunkLimit`` chunks: its nodes made for each
    /// search.
    case madePerSearch
    /// A larger tree (or a multipolygon's part, ``storingTreeNodes()``): its nodes stored,
    /// built on first use.
    case stored
  }

  /// A built tree with stored nodes: the object ``treeSlot`` holds.
  final class TreeTable: Sendable {
    let tree: ChunkTree
    init(_ tree: ChunkTree) { self.tree = tree }
  }

  /// Calls `body` with the chunk tree: its shape alone when its nodes are made for each search
  /// (``ChunkTree/withNodes(edges:stride:_:)`` makes them), else the stored tree, built first
  /// if no search has yet (on any thread; ``PublishedOnce``).
  @inline(__always)
  func withTree<R>(_ body: (ChunkTree) throws -> R) rethrows -> R {
    switch treeStorage {
    case .none:
      return try body(ChunkTree(unstoredOverEdges: 0))
    case .madePerSearch:
      return try body(ChunkTree(unstoredOverEdges: edgeCount))
    case .stored:
      return try treeSlot.object { makeTreeTable() }!._withUnsafeGuaranteedRef { try body($0.tree) }
    }
  }

  /// The stored tree built (for ``withTree(_:)``'s first use), from the values unpacked for the
  /// build only when the index is packed and no query has unpacked it: the search that wants
  /// the tree may read its edges elsewhere (a multipolygon's part, from the joined index's
  /// copy, ``withPartEdges(_:_:)``), and a query that reads the index's own
  /// unpacks them then.
  @inline(never)
  private func makeTreeTable() -> TreeTable {
    withEdgesUnpublished(makeTreeTable(edges:))
  }

  /// The stored tree over this index's `edges` (its values, unpacked): for ``withTree(_:)`` and
  /// ``buildTablesAhead(stripes:tree:)``.
  func makeTreeTable(edges: UnsafeBufferPointer<Double>) -> TreeTable {
    TreeTable(ChunkTree(edges: edges, stride: edgeStride, storing: true))
  }

  /// The chunk tree (building a stored one if it is not yet): for tests and for reading its
  /// shape; searches use ``withTree(_:)``, which retains nothing.
  var tree: ChunkTree { withTree { $0 } }

  /// Whether a stored tree is built (tests; a search builds it).
  var hasBuiltTree: Bool { treeSlot.isPublished }
}
