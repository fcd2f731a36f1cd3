import FenceEngine
import FenceGeometry

extension MapRenderer {
  /// Writes a static SVG of the same drawing as the page: fences (each with its label as a
  /// `<title>`), GEOLINEs with an arrow at their last vertex, tracks broken at gaps, event
  /// markers (each with its JSON as a `<title>`, shown as a tooltip by browsers) and a legend
  /// on the right. The picture shows ``frame`` (the tracks, else the fences), clipped to it.
  func writeSVG(to output: OutputFile) throws {
    let p = frame.projection()
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
    let layer = fenceLayer(p)
    for item in layer.items
    where item.maxX >= 0 && item.minX <= p.width && item.maxY >= 0 && item.minY <= p.height {
      let hue = Self.hue(zones[item.zoneIndex].id)
      let style = "fill=\"hsl(\(hue),65%,55%)\" fill-opacity=\"0.25\" stroke=\"hsl(\(hue),60%,35%)\""
      let title = "<title>\(Self.escapeHTML(item.label == item.fence.id ? item.label : item.label + " (" + item.fence.id + ")"))</title>"
      if let circle = item.circle {
        try output.write(
          "<circle cx=\"\(Self.number(circle.x))\" cy=\"\(Self.number(circle.y))\" r=\"\(Self.number(max(circle.radius, 1.5)))\" \(style)>\(title)</circle>\n"
        )
      } else {
        var d = ""
        for ring in item.rings {
          d += "M"
          for i in Swift.stride(from: 0, to: ring.count, by: 2) {
            d += (i > 0 ? " " : "") + Self.number(ring[i]) + "," + Self.number(ring[i + 1])
          }
          d += "Z"
        }
        try output.write("<path d=\"\(d)\" \(style)>\(title)</path>\n")
      }
    }
    try output.write("</g>\n<g id=\"tracks\" fill=\"none\" stroke-width=\"1.1\" stroke-opacity=\"0.8\" stroke-linejoin=\"round\">\n")
    let stride = trackStride
    for (index, track) in drawnTracks.enumerated() {
      for part in track.parts where part.times.count > 1 {
        try output.write(
          "<polyline stroke=\"\(Self.deviceColor(index))\" points=\"\(Self.pathPoints(part.latitudes, part.longitudes, p, stride: 1))\"><title>\(Self.escapeHTML(track.device))</title></polyline>\n"
        )
      }
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
      let title = "<title>\(Self.escapeHTML(eventText(event)))</title>"
      try output.write(Self.svgMarker(event.kind, x: x, y: y, content: title) + "\n")
    }
    try output.write("</g>\n</g>\n<g id=\"legend\" transform=\"translate(\(Int(p.width)),0)\">\n")
    try output.write("<rect width=\"\(Int(legendWidth))\" height=\"\(Int(p.height))\" fill=\"#fafbfc\" stroke=\"#ccd\"/>\n")
    // Each line's swatch is drawn as on the map: the event's marker, a fence square, a
    // dashed GEOLINE, a track line.
    var lines: [(swatch: (Int) -> String, text: String)] = []
    for kind in drawnKinds {
      lines.append(({ Self.svgMarker(kind, x: 18, y: Double($0 - 4), content: "") }, "\(kind.rawValue): \(counts[kind, default: 0])"))
    }
    if !layer.items.isEmpty {
      lines.append(
        ({ "<rect x=\"12\" y=\"\($0 - 10)\" width=\"12\" height=\"12\" fill=\"hsl(200,65%,55%)\" fill-opacity=\"0.4\" stroke=\"hsl(200,60%,35%)\"/>" },
         "fences: \(layer.items.count) of \(fenceCount) (\(zones.count) zones)"))
    }
    if geolineCount > 0 {
      lines.append(
        ({ "<path d=\"M8,\($0 - 4)h20\" stroke=\"#0b3d91\" stroke-width=\"3\" stroke-dasharray=\"6 3\"/>" }, "GEOLINEs: \(geolineCount)"))
    }
    if !tracks.isEmpty {
      lines.append(
        ({ "<path d=\"M8,\($0 - 1)l7,-6l6,4l7,-5\" fill=\"none\" stroke=\"\(Self.deviceColor(0))\" stroke-width=\"1.5\"/>" },
         "tracks: \(tracks.count) devices" + (stride * sampledTrackStride > 1 ? ", every \(stride * sampledTrackStride)th point" : "")))
    }
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
        line.swatch(y) + "<text x=\"34\" y=\"\(y)\">\(Self.escapeHTML(line.text))</text>\n")
    }
    try output.write("</g>\n</svg>\n")
    try output.close()
  }

  /// An event marker centred on (x, y), its shape and colour by kind as on the page, with
  /// `content` (a `<title>`, or nothing) inside.
  static func svgMarker(_ kind: ZoneEvent.Kind, x: Double, y: Double, content: String) -> String {
    let color = eventColor(kind)
    let style = "fill=\"\(color)\" stroke=\"#fff\" stroke-width=\"1\""
    switch kind {
    case .checkIn:
      return "<path d=\"M\(number(x)),\(number(y - 5))l4.5,8h-9z\" \(style)>\(content)</path>"
    case .checkOut:
      return "<rect x=\"\(number(x - 3.5))\" y=\"\(number(y - 3.5))\" width=\"7\" height=\"7\" \(style)>\(content)</rect>"
    case .dwell:
      return "<path d=\"M\(number(x)),\(number(y - 5.5))l5.5,5.5l-5.5,5.5l-5.5,-5.5z\" \(style)>\(content)</path>"
    case .monitoredSetChanged, .rejected:
      return "<circle cx=\"\(number(x))\" cy=\"\(number(y))\" r=\"4\" \(style)>\(content)</circle>"
    }
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

  /// The hue of a zone's colour, from its id (the same function the page's script uses): a
  /// string hash spread by the golden ratio, so ids that differ in one character (`boro-3`,
  /// `boro-4`) get far-apart hues.
  static func hue(_ id: String) -> Int {
    var h: UInt32 = 0
    for unit in id.utf16 { h = h &* 31 &+ UInt32(unit) }
    return Int((Double(h) * 0.618033988749895).truncatingRemainder(dividingBy: 1) * 360)
  }
}
