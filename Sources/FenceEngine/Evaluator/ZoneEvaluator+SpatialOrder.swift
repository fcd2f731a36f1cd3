import FenceGeometry

extension ZoneEvaluator {
  /// Loads of at least this many zones are applied in spatial order.
  static let spatialOrderThreshold = 256

  /// The order in which to apply the zones of a load: for a large load, by their first
  /// element's box centre along a Z-order (Morton) curve, ties in load order; a small load as it
  /// is. Indices into `zones`.
  ///
  /// Zones take their slots, and their fences and GEOLINEs the element slots, in the order
  /// they are applied, so this puts fences that are near each other on the map near each other
  /// in the flat per-element tables: the fences one point query finds then share cache lines.
  /// The order changes no event (see `Docs/EventSemantics.md`: zones of one load are all new
  /// to every device at once).
  ///
  /// - Complexity: O(*n* log *n*) for *n* zones.
  static func spatialOrder(of zones: [ValidatedZone]) -> [Int] {
    guard zones.count >= spatialOrderThreshold else { return Array(zones.indices) }
    var centres: [(x: Double, y: Double)] = []
    centres.reserveCapacity(zones.count)
    var minX = Double.infinity
    var minY = Double.infinity
    var maxX = -Double.infinity
    var maxY = -Double.infinity
    for validated in zones {
      let zone = validated.zone
      let box = zone.fences.first?.area.boundingBox ?? zone.geolines.first?.line.boundingBox
      let x = box.map { ($0.west + $0.east) / 2 } ?? 0
      let y = box.map { ($0.south + $0.north) / 2 } ?? 0
      centres.append((x, y))
      minX = min(minX, x)
      minY = min(minY, y)
      maxX = max(maxX, x)
      maxY = max(maxY, y)
    }
    let scaleX = maxX > minX ? 65535 / (maxX - minX) : 0
    let scaleY = maxY > minY ? 65535 / (maxY - minY) : 0
    var keys: [UInt64] = []
    keys.reserveCapacity(zones.count)
    for (index, centre) in centres.enumerated() {
      let x = UInt32(max(0, min(65535, ((centre.x - minX) * scaleX).rounded(.down))))
      let y = UInt32(max(0, min(65535, ((centre.y - minY) * scaleY).rounded(.down))))
      keys.append(UInt64(mortonKey(x: x, y: y)) << 32 | UInt64(index))
    }
    keys.sort()
    return keys.map { Int($0 & 0xFFFF_FFFF) }
  }

  /// The Z-order position of a cell of a 65 536 × 65 536 grid: the bits of `x` and `y`
  /// interleaved, `x` in the even bits.
  static func mortonKey(x: UInt32, y: UInt32) -> UInt32 {
    spreadBits(x) | spreadBits(y) << 1
  }

  /// The low 16 bits of `value` moved to the even bit positions.
  private static func spreadBits(_ value: UInt32) -> UInt32 {
    var v = value & 0xFFFF
    v = (v | v << 8) & 0x00FF_00FF
    v = (v | v << 4) & 0x0F0F_0F0F
    v = (v | v << 2) & 0x3333_3333
    v = (v | v << 1) & 0x5555_5555
    return v
  }
}
