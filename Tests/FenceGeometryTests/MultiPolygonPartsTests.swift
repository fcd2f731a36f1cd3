import Testing

@testable import FenceGeometry

/// A multipolygon of one part holds the part in the value, with no array: most fences have one
/// part, and a million of them held an array of one each. Several parts sit behind one box.
@Suite struct MultiPolygonPartsTests {
  @Test func onePartIsHeldInTheValue() throws {
    let square = try polygon([(0, 0), (1, 0), (1, 1), (0, 1)])
    for shape in [MultiPolygon(square), try MultiPolygon([square])] {
      guard case .one = shape.parts else {
        Issue.record("one part kept in an array")
        continue
      }
      #expect(shape.polygons == [square])
      #expect(shape.partCount == 1)
      #expect(shape.partIndex(0) === square.index)
      #expect(!shape.partIndex(0).tree.storesNodes)
      #expect(shape.stripes === square.index)
      #expect(shape.boundingBox == square.boundingBox)
      #expect(shape.contains(latitude: 0.5, longitude: 0.5))
      #expect(!shape.contains(latitude: 1.5, longitude: 0.5))
    }
    #expect(MemoryLayout<MultiPolygon>.size == MemoryLayout<Polygon>.size)
    // Two references (the rings as given, if kept, and the edge index): the box is the index's.
    #expect(MemoryLayout<Polygon>.size == 16)
    #expect(square.boundingBox == BoundingBox(south: 0, west: 0, north: 1, east: 1))
  }

  @Test func severalPartsKeepTheirOrderBoxAndJoinedIndex() throws {
    let west = try polygon([(0, 0), (1, 0), (1, 1), (0, 1)])
    let east = try polygon([(3, 0), (4, 0), (4, 2), (3, 2)])
    let both = try MultiPolygon([west, east])
    guard case .many = both.parts else {
      Issue.record("several parts not boxed")
      return
    }
    #expect(both.polygons == [west, east])
    #expect(both.partCount == 2)
    // Each part keeps its chunk tree's nodes (its distance search runs for many parts at a
    // time), over the same edges; a polygon of its own makes them when searched.
    #expect(!east.index.tree.storesNodes)
    #expect(both.partIndex(1).tree.storesNodes)
    #expect(both.partIndex(1).edges == east.index.edges)
    #expect(both.partIndex(1).tree.withNodes(edges: east.index.edges, stride: east.index.edgeStride) { Array($0) }
      == east.index.tree.withNodes(edges: east.index.edges, stride: east.index.edgeStride) { Array($0) })
    #expect(both.boundingBox == BoundingBox(south: 0, west: 0, north: 2, east: 4))
    #expect(both.stripes?.edgeCount == 8)
    #expect(both.contains(latitude: 1.5, longitude: 3.5))
    #expect(!both.contains(latitude: 0.5, longitude: 2))
    #expect(both != MultiPolygon(west))
  }
}
