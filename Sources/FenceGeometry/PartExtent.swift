/// The extent of one part's edges in its frame (longitude, latitude; longitudes unwrapped into
/// [0, 360] when the part crosses the antimeridian), copied out of its ``EdgeIndex`` so that a
/// multipolygon's parts can be skipped by extent from one flat array.
struct PartExtent: Sendable {
  let minX: Double
  let minY: Double
  let maxX: Double
  let maxY: Double
  /// Whether the part's longitudes are unwrapped (``EdgeIndex/isUnwrapped``).
  let isUnwrapped: Bool

  init(_ index: EdgeIndex) {
    minX = index.minX
    minY = index.minY
    maxX = index.maxX
    maxY = index.maxY
    isUnwrapped = index.isUnwrapped
  }

  /// Whether the extent comes within `margin` degrees of `box` (frame degrees): the test behind
  /// ``EdgeIndex/extentMeets(_:margin:)``.
  @inline(__always)
  func meets(_ box: BoundingBox, margin: Double) -> Bool {
    box.west - margin <= maxX && box.east + margin >= minX && box.south - margin <= maxY
      && box.north + margin >= minY
  }
}
