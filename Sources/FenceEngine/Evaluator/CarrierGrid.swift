import FenceGeometry

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where the devices carrying one roaming zone's circle are: their latest accepted fixes, filed
/// in cells of at least the circle's radius, so that a target's fix finds the circles that may
/// hold it by looking at the cells around it (the index that moves with the devices).
///
/// Cells are `cellDegrees` square in latitude and longitude, with `cellDegrees` at least the
/// radius in degrees of latitude anywhere on the ellipsoid, so a circle spans at most the cells
/// next to its own in latitude; in longitude the span grows with the latitude, and near the
/// poles (or for a circle wider than the world) a search reads every carrier.
struct CarrierGrid {
  /// A carrier's latest accepted position.
  struct Carrier {
    var coordinate: Coordinate
    var cell: Int64
  }

  let radius: Double
  let cellDegrees: Double
  /// Columns around the world (longitude cells), for the wrap at the antimeridian.
  let columns: Int64
  private(set) var cells: [Int64: [Int32]] = [:]
  private(set) var carriers: [Int32: Carrier] = [:]

  init(radius: Double) {
    self.radius = radius
    // Metres per degree of latitude are at least 110,574 (the meridional radius at the equator).
    cellDegrees = min(180, max(radius / 110_000, 1e-6))
    columns = Int64((360 / cellDegrees).rounded(.up))
  }

  var count: Int { carriers.count }

  private func key(latitude: Double, longitude: Double) -> Int64 {
    let row = Int64((latitude / cellDegrees).rounded(.down))
    var column = Int64(((longitude + 180) / cellDegrees).rounded(.down)) % columns
    if column < 0 { column += columns }
    return row << 32 | column
  }

  /// Files `device` at `coordinate` (moving it if filed elsewhere).
  mutating func place(_ device: Int32, at coordinate: Coordinate) {
    let cell = key(latitude: coordinate.latitude, longitude: coordinate.longitude)
    if let old = carriers[device], old.cell != cell { unfile(device, from: old.cell) }
    if carriers[device]?.cell != cell { cells[cell, default: []].append(device) }
    carriers[device] = Carrier(coordinate: coordinate, cell: cell)
  }

  /// Takes `device` out of the grid.
  mutating func remove(_ device: Int32) {
    guard let old = carriers.removeValue(forKey: device) else { return }
    unfile(device, from: old.cell)
  }

  private mutating func unfile(_ device: Int32, from cell: Int64) {
    guard var list = cells[cell], let index = list.firstIndex(of: device) else { return }
    list.swapAt(index, list.count - 1)
    list.removeLast()
    cells[cell] = list.isEmpty ? nil : list
  }

  /// Calls `body` with every carrier whose circle of `radius` + `margin` metres may hold
  /// `coordinate` (a superset: the caller measures).
  func forEachCandidate(near coordinate: Coordinate, margin: Double, _ body: (Int32) -> Void) {
    let reach = (radius + margin) / 110_000
    let lowRow = Int64(((coordinate.latitude - reach) / cellDegrees).rounded(.down))
    let highRow = Int64(((coordinate.latitude + reach) / cellDegrees).rounded(.down))
    let polewardLatitude = min(90, abs(coordinate.latitude) + reach)
    let cosine = cos(polewardLatitude * .pi / 180)
    let longitudeReach = cosine > 1e-9 ? reach / cosine : 360
    let spannedColumns = Int64(((2 * longitudeReach) / cellDegrees).rounded(.up)) + 1
    if spannedColumns >= columns || (highRow - lowRow + 1) * spannedColumns > Int64(cells.count) {
      for device in carriers.keys { body(device) }
      return
    }
    let firstColumn = Int64(((coordinate.longitude - longitudeReach + 180) / cellDegrees).rounded(.down))
    for row in lowRow...highRow {
      for offset in 0..<spannedColumns {
        var column = (firstColumn + offset) % columns
        if column < 0 { column += columns }
        if let list = cells[row << 32 | column] { for device in list { body(device) } }
      }
    }
  }
}
