import FenceEngine
import FenceGeometry

extension MapRenderer {
  /// Writes a static SVG of the same drawing as the page: fences, GEOLINEs with an arrow at
  /// their last vertex, tracks, event markers (each with its JSON as a `<title>`, shown as a
  /// tooltip by browsers) and a legend on the right. The picture frames the zones and events
  /// (tracks are clipped to it); with no zones it frames the tracks.
  func writeSVG(to output: OutputFile) throws {
    let p = makeProjection(focusOnZones: true)
    let legendWidth = 230.0
    let width = p.width + legendWidth
    try output.write(
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(Int(width)) \(Int(p.height))" \
      width="\(Int(width))" height="\(Int(p.height))" font-family="sans-serif" font-size="12">
      <title>\(Self.escapeHTML(title))</title>
      <defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="13" \
      markerHeight="13" markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0L10,5L0,10z" fill="#0b3d91"/></marker></defs>
      <clipPath id="frame"><rect width="\(Int(p.width))" height="\(Int(p.height))"/></clipPath>
      <rect width="\(Int(p.width))" height="\(Int(p.height))" fill="#eef3f7"/>
      <g clip-path="url(#frame)">
      <g id="fences" stroke-width="1.2" fill-rule="evenodd">

      """)
    let fences = drawnFences
    for item in fences {
      let hue = Self.hue(item.zone.id)
      let style = "fill=\"hsl(\(hue),65%,55%)\" fill-opacity=\"0.25\" stroke=\"hsl(\(hue),60%,35%)\""
      switch item.fence.area {
      case .circle(let circle):
        try output.write(
          "<circle cx=\"\(Self.number(p.x(circle.center.longitude)))\" cy=\"\(Self.number(p.y(circle.center.latitude)))\" r=\"\(Self.number(max(circle.radius * p.unitsPerMetre, 1.5)))\" \(style)><title>\(Self.escapeHTML(item.fence.id))</title></circle>\n"
        )
      case .polygon(let multi):
        var d = ""
        for polygon in multi.polygons {
          for ring in polygon.rings {
            d += "M" + Self.pathPoints(ring.map(\.latitude), ring.map(\.longitude), p, stride: 1) + "Z"
          }
        }
        try output.write(
          "<path d=\"\(d)\" \(style)><title>\(Self.escapeHTML(item.fence.id))</title></path>\n")
      }
    }
    try output.write("</g>\n<g id=\"tracks\" fill=\"none\" stroke-width=\"1.1\" stroke-opacity=\"0.8\" stroke-linejoin=\"round\">\n")
    let stride = trackStride
    for (index, track) in tracks.enumerated() where track.latitudes.count > 1 {
      try output.write(
        "<polyline stroke=\"\(Self.deviceColor(index))\" points=\"\(Self.pathPoints(track.latitudes, track.longitudes, p, stride: stride))\"><title>\(Self.escapeHTML(track.device))</title></polyline>\n"
      )
    }
    try output.write("</g>\n<g id=\"geolines\" fill=\"none\" stroke=\"#0b3d91\" stroke-width=\"3\" stroke-dasharray=\"8 4\">\n")
    for zone in zones {
      for line in zone.geolines {
        let v = line.line.vertices
        let points = Self.pathPoints(v.map(\.latitude), v.map(\.longitude), p, stride: 1)
        try output.write(
          "<polyline points=\"\(points)\" marker-end=\"url(#arrow)\"><title>\(Self.escapeHTML(line.id))</title></polyline>\n"
        )
        if let first = v.first {
          try output.write(
            "<text x=\"\(Self.number(p.x(first.longitude) + 4))\" y=\"\(Self.number(p.y(first.latitude) - 6))\" fill=\"#0b3d91\" stroke=\"none\" font-weight=\"bold\">\(Self.escapeHTML(line.id))</text>\n"
          )
        }
      }
    }
    try output.write("</g>\n<g id=\"events\" stroke=\"#fff\" stroke-width=\"1\">\n")
    let counts = eventCounts
    for event in drawnEvents {
      guard let lat = event.latitude, let lon = event.longitude else { continue }
      let x = p.x(lon), y = p.y(lat)
      let color = Self.eventColor(event.kind)
      let title = "<title>\(Self.escapeHTML(eventText(event)))</title>"
      switch event.kind {
      case .checkIn:
        try output.write(
          "<path d=\"M\(Self.number(x)),\(Self.number(y - 5))l4.5,8h-9z\" fill=\"\(color)\">\(title)</path>\n")
      case .checkOut:
        try output.write(
          "<rect x=\"\(Self.number(x - 3.5))\" y=\"\(Self.number(y - 3.5))\" width=\"7\" height=\"7\" fill=\"\(color)\">\(title)</rect>\n")
      case .dwell:
        try output.write(
          "<path d=\"M\(Self.number(x)),\(Self.number(y - 5.5))l5.5,5.5l-5.5,5.5l-5.5,-5.5z\" fill=\"\(color)\">\(title)</path>\n")
      default:
        try output.write(
          "<circle cx=\"\(Self.number(x))\" cy=\"\(Self.number(y))\" r=\"4\" fill=\"\(color)\">\(title)</circle>\n")
      }
    }
    try output.write("</g>\n</g>\n<g id=\"legend\" transform=\"translate(\(Int(p.width)),0)\">\n")
    try output.write("<rect width=\"\(Int(legendWidth))\" height=\"\(Int(p.height))\" fill=\"#fafbfc\" stroke=\"#ccd\"/>\n")
    var lines: [(String, String)] = []
    for kind in ZoneEvent.Kind.allCases {
      let count = counts[kind, default: 0]
      if count == 0, kind == .rejected || kind == .monitoredSetChanged { continue }
      lines.append((Self.eventColor(kind), "\(kind.rawValue): \(count)"))
    }
    lines.append(("hsl(200,65%,55%)", "fences: \(fences.count) of \(fenceCount) (\(zones.count) zones)"))
    lines.append(("#0b3d91", "GEOLINEs: \(geolineCount)"))
    lines.append(
      (Self.deviceColor(0), "tracks: \(tracks.count) devices" + (stride * sampledTrackStride > 1 ? ", every \(stride * sampledTrackStride)th point" : "")))
    // The title wraps at about 30 characters a line (SVG text does not wrap by itself).
    var titleLines: [String] = [""]
    for long in title.split(separator: " ") {
      let word = long.count > 30 ? long.prefix(29) + "…" : long
      if let last = titleLines.last, !last.isEmpty, last.count + word.count > 30 { titleLines.append("") }
      titleLines[titleLines.count - 1] += (titleLines[titleLines.count - 1].isEmpty ? "" : " ") + word
    }
    for (index, line) in titleLines.prefix(4).enumerated() {
      try output.write(
        "<text x=\"12\" y=\"\(22 + index * 17)\" font-weight=\"bold\" font-size=\"13\">\(Self.escapeHTML(line))</text>\n")
    }
    let top = 22 + min(titleLines.count, 4) * 17 + 10
    for (index, line) in lines.enumerated() {
      let y = top + index * 20
      try output.write(
        "<circle cx=\"18\" cy=\"\(y - 4)\" r=\"6\" fill=\"\(line.0)\"/><text x=\"30\" y=\"\(y)\">\(Self.escapeHTML(line.1))</text>\n")
    }
    try output.write("</g>\n</svg>\n")
    try output.close()
  }

  /// `x,y x,y …` in picture units, keeping every `stride`-th point and the last one.
  static func pathPoints(
    _ latitudes: [Double], _ longitudes: [Double], _ p: MapProjection, stride: Int
  ) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(latitudes.count / stride * 14 + 16)
    for i in latitudes.indices where i % stride == 0 || i == latitudes.count - 1 {
      if !bytes.isEmpty { bytes.append(UInt8(ascii: " ")) }
      FixedDecimal.append(p.x(longitudes[i]), digits: 2, to: &bytes)
      bytes.append(UInt8(ascii: ","))
      FixedDecimal.append(p.y(latitudes[i]), digits: 2, to: &bytes)
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The hue of a zone's colour, from its id (the same function the page's script uses).
  static func hue(_ id: String) -> UInt32 {
    var h: UInt32 = 0
    for unit in id.utf16 { h = h &* 31 &+ UInt32(unit) }
    return h % 360
  }
}
