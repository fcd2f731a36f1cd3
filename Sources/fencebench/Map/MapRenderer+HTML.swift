import FenceEngine
import FenceFormats
import FenceGeometry

extension MapRenderer {
  /// Writes the interactive page: the drawing data as one inline JSON block, the inline
  /// script and style of ``pageScript`` and ``pageStyle``, and a side panel for the legend
  /// (with the layer toggles), the time window and the details of what is hovered or clicked.
  func writeHTML(to output: OutputFile) throws {
    try output.write(
      """
      <!DOCTYPE html>
      <html lang="en"><head><meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <title>\(Self.escapeHTML(title))</title>
      <style>\(Self.pageStyle)</style></head>
      <body><div id="map"><canvas id="canvas"></canvas><div id="tip"></div></div>
      <aside id="side"><h1>\(Self.escapeHTML(title))</h1>
      <h2>Layers</h2><div id="legend"></div>
      <div id="time"><h2>Time (UTC)</h2>
      <label>from <input type="range" id="from" min="0" value="0"></label><div id="fromText"></div>
      <label>to <input type="range" id="to" min="0" value="0"></label><div id="toText"></div></div>
      <h2>Details</h2><pre id="detail">Hover over or click an event, a track or a fence.</pre>
      <p><button id="fitFrame">Fit frame</button> <button id="fitAll">Fit all</button></p>
      <p class="hint">Drag to pan, wheel to zoom, double-click to fit the frame again.</p></aside>
      <script type="application/json" id="data">
      """)
    try writeData(to: output)
    try output.write("</script>\n<script>\(Self.pageScript)</script>\n</body></html>\n")
    try output.close()
  }

  /// The drawing data in picture units (see ``MapProjection``; the frame is 0…width ×
  /// 0…height), times in whole seconds after `t0`, as compact JSON.
  private func writeData(to output: OutputFile) throws {
    let frame = self.frame
    let p = frame.projection()
    let layer = fenceLayer(p)
    let tracks = drawnTracks
    let events = drawnEvents
    var all = PictureBox()

    // Times (a part is in time order unless a --presorted file stepped back).
    var first = Double.infinity, last = -Double.infinity
    for track in tracks {
      for part in track.parts {
        if let t = part.times.min() { first = min(first, t) }
        if let t = part.times.max() { last = max(last, t) }
      }
    }
    for event in events {
      first = min(first, event.time.secondsSinceEpoch)
      last = max(last, event.time.secondsSinceEpoch)
    }
    let t0 = first.isFinite ? first.rounded(.down) : 0
    let span = last.isFinite ? Int((last - t0).rounded(.up)) : 0
    func offset(_ t: Double) -> Int { Int((t - t0).rounded()) }

    var text = "{\"width\":\(Int(p.width)),\"height\":\(Int(p.height)),\"frame\":{\"fits\":\""
    text += frame.subject.rawValue + "\",\"south\":" + FixedDecimal.text(frame.south, digits: 6)
    text += ",\"west\":" + FixedDecimal.text(frame.west, digits: 6)
    text += ",\"north\":" + FixedDecimal.text(frame.north, digits: 6)
    text += ",\"east\":" + FixedDecimal.text(frame.east, digits: 6) + "},"
    text += "\"unitsPerMetre\":\(p.unitsPerMetre),\"t0\":\(Int64(t0)),\"span\":\(span),"

    // Zones that have something drawn, referred to by index.
    var zoneSlot: [Int: Int] = [:]
    var usedZones: [Int] = []
    func slot(_ zoneIndex: Int) -> Int {
      if let known = zoneSlot[zoneIndex] { return known }
      zoneSlot[zoneIndex] = usedZones.count
      usedZones.append(zoneIndex)
      return usedZones.count - 1
    }
    for item in layer.items { _ = slot(item.zoneIndex) }
    for (index, zone) in zones.enumerated() where !zone.geolines.isEmpty { _ = slot(index) }
    text += "\"zones\":["
    for (n, index) in usedZones.enumerated() {
      let zone = zones[index]
      text += (n > 0 ? "," : "") + "{\"id\":" + Self.jsonString(zone.id)
      if let name = zone.name { text += ",\"name\":" + Self.jsonString(name) }
      if !zone.customData.isEmpty {
        var data = ""
        JSONWriter.append(zone.customData, to: &data)
        text += ",\"data\":" + Self.scriptSafe(data)
      }
      text += "}"
      if text.utf8.count > 1 << 16 {
        try output.write(text)
        text = ""
      }
    }

    text += "],\"fences\":["
    for (index, item) in layer.items.enumerated() {
      all.include(item.minX, item.minY)
      all.include(item.maxX, item.maxY)
      if index > 0 { text += "," }
      text += "{\"id\":" + Self.jsonString(item.fence.id) + ",\"z\":\(zoneSlot[item.zoneIndex]!)"
      if item.label != item.fence.id { text += ",\"label\":" + Self.jsonString(item.label) }
      text += ",\"at\":[" + Self.number(item.labelX) + "," + Self.number(item.labelY) + "]"
      if let circle = item.circle, case .circle(let area) = item.fence.area {
        text += ",\"circle\":[" + Self.number(circle.x) + "," + Self.number(circle.y) + ","
          + Self.number(circle.radius) + "],\"radius\":" + Self.number(area.radius)
      } else if case .polygon(let multi) = item.fence.area {
        text += ",\"vertices\":\(multi.vertexCount),\"rings\":["
        for (r, ring) in item.rings.enumerated() {
          if r > 0 { text += "," }
          text += Self.flat(ring)
        }
        text += "]"
      }
      text += "}"
      if text.utf8.count > 1 << 16 {
        try output.write(text)
        text = ""
      }
    }
    text += "],\"lines\":["
    var firstLine = true
    for (index, zone) in zones.enumerated() {
      for line in zone.geolines {
        if !firstLine { text += "," }
        firstLine = false
        let v = line.line.vertices
        for vertex in v { all.include(p.x(vertex.longitude), p.y(vertex.latitude)) }
        text += "{\"id\":" + Self.jsonString(line.id) + ",\"z\":\(zoneSlot[index]!)"
          + ",\"direction\":\"" + line.direction.rawValue + "\",\"points\":"
          + Self.flat(v.map(\.latitude), v.map(\.longitude), p, stride: 1) + "}"
      }
    }
    text += "],\"tracks\":["
    try output.write(text)
    var partCount = 0
    for (index, track) in tracks.enumerated() {
      var line = (index > 0 ? "," : "") + "{\"device\":" + Self.jsonString(track.device)
        + ",\"color\":\"" + Self.deviceColor(index) + "\",\"parts\":["
      var firstPart = true
      for part in track.parts where !part.times.isEmpty {
        partCount += 1
        for i in part.times.indices { all.include(p.x(part.longitudes[i]), p.y(part.latitudes[i])) }
        line += (firstPart ? "" : ",") + "{\"points\":"
          + Self.flat(part.latitudes, part.longitudes, p, stride: 1) + ",\"times\":["
          + part.times.map { String(offset($0)) }.joined(separator: ",") + "]}"
        firstPart = false
      }
      try output.write(line + "]}")
    }
    try output.write("],\"events\":[")
    for (index, event) in events.enumerated() {
      // An event without a position has no x and y (it is listed, not drawn).
      var position = ""
      if let latitude = event.latitude, let longitude = event.longitude {
        position = "\"x\":" + Self.number(p.x(longitude)) + ",\"y\":" + Self.number(p.y(latitude)) + ","
      }
      try output.write(
        (index > 0 ? "," : "") + "{" + position
          + "\"t\":\(offset(event.time.secondsSinceEpoch)),\"kind\":\"" + event.kind.rawValue
          + "\",\"json\":" + Self.jsonString(eventText(event)) + "}")
    }
    let box = all.isEmpty ? [0, 0, p.width, p.height] : [all.minX, all.minY, all.maxX, all.maxY]
    let drawnCounts = Dictionary(
      grouping: events.filter { $0.latitude != nil && $0.longitude != nil }, by: \.kind
    ).mapValues(\.count)
    let counts = eventCounts
    let kinds = drawnKinds
    var legend = "],\"all\":[" + box.map(Self.number).joined(separator: ",") + "],"
    legend += "\"legend\":{\"zones\":\(zones.count),\"fences\":\(fenceCount),"
    legend += "\"fencesDrawn\":\(layer.items.count),\"geolines\":\(geolineCount),"
    legend += "\"devices\":\(tracks.count),\"trackStride\":\(trackStride * sampledTrackStride),"
    legend += "\"trackParts\":\(partCount),\"gapSeconds\":" + Self.number(gapSeconds) + ","
    if let maximumSpeed { legend += "\"maxSpeed\":" + Self.number(maximumSpeed) + "," }
    legend += "\"fenceVertices\":\(layer.vertexCount),"
    legend += "\"events\":\(eventTotal),\"eventsDrawn\":\(events.count),"
    legend += "\"kinds\":{"
    legend += kinds.map {
      "\"\($0.rawValue)\":{\"count\":\(counts[$0, default: 0]),\"drawn\":\(drawnCounts[$0, default: 0]),\"color\":\"\(Self.eventColor($0))\"}"
    }.joined(separator: ",")
    legend += "},\"notDrawn\":{"
    legend += ZoneEvent.Kind.allCases.filter { !kinds.contains($0) && counts[$0, default: 0] > 0 }.map {
      "\"\($0.rawValue)\":\(counts[$0, default: 0])"
    }.joined(separator: ",")
    legend += "}}}"
    try output.write(legend)
  }

  /// `[x0,y0,x1,y1,…]` of a ring already in picture units.
  static func flat(_ coordinates: [Double]) -> String {
    var bytes: [UInt8] = [UInt8(ascii: "[")]
    bytes.reserveCapacity(coordinates.count * 8 + 2)
    for (i, value) in coordinates.enumerated() {
      if i > 0 { bytes.append(UInt8(ascii: ",")) }
      FixedDecimal.append(clamped(value), digits: 2, to: &bytes)
    }
    bytes.append(UInt8(ascii: "]"))
    return String(decoding: bytes, as: UTF8.self)
  }

  /// `value`, or 0 when it is not finite or too large to write.
  static func clamped(_ value: Double) -> Double {
    value.isFinite && abs(value) < 1e8 ? value : 0
  }

  /// JSON text made safe inside an HTML `<script>` element: outside strings JSON has no `<`,
  /// `>` or `&`, and inside them `\u003c`, `\u003e` and `\u0026` mean the same.
  static func scriptSafe(_ json: String) -> String {
    guard json.utf8.contains(where: { $0 == 0x3C || $0 == 0x3E || $0 == 0x26 }) else { return json }
    var safe = ""
    for character in json.unicodeScalars {
      switch character {
      case "<": safe += "\\u003c"
      case ">": safe += "\\u003e"
      case "&": safe += "\\u0026"
      default: safe.unicodeScalars.append(character)
      }
    }
    return safe
  }

  /// `[x0,y0,x1,y1,…]` in picture units, keeping every `stride`-th point and the last one.
  static func flat(
    _ latitudes: [Double], _ longitudes: [Double], _ p: MapProjection, stride: Int
  ) -> String {
    var bytes: [UInt8] = [UInt8(ascii: "[")]
    bytes.reserveCapacity(latitudes.count / stride * 14 + 16)
    var first = true
    for i in latitudes.indices where i % stride == 0 || i == latitudes.count - 1 {
      if !first { bytes.append(UInt8(ascii: ",")) }
      first = false
      FixedDecimal.append(clamped(p.x(longitudes[i])), digits: 2, to: &bytes)
      bytes.append(UInt8(ascii: ","))
      FixedDecimal.append(clamped(p.y(latitudes[i])), digits: 2, to: &bytes)
    }
    bytes.append(UInt8(ascii: "]"))
    return String(decoding: bytes, as: UTF8.self)
  }

  static func number(_ x: Double) -> String {
    FixedDecimal.text(x.isFinite && abs(x) < 1e8 ? x : 0, digits: 2)
  }

  /// A JSON string literal that is also safe inside an HTML `<script>` element (`<`, `>` and
  /// `&` are written as `\u003c`, `\u003e`, `\u0026`).
  static func jsonString(_ s: String) -> String {
    var out = ""
    JSONWriter.appendString(s, to: &out)
    guard out.utf8.contains(where: { $0 == 0x3C || $0 == 0x3E || $0 == 0x26 }) else { return out }
    var safe = ""
    for character in out.unicodeScalars {
      switch character {
      case "<": safe += "\\u003c"
      case ">": safe += "\\u003e"
      case "&": safe += "\\u0026"
      default: safe.unicodeScalars.append(character)
      }
    }
    return safe
  }

  static func escapeHTML(_ s: String) -> String {
    var out = ""
    for c in s.unicodeScalars {
      switch c {
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "&": out += "&amp;"
      case "\"": out += "&quot;"
      default: out.unicodeScalars.append(c)
      }
    }
    return out
  }
}

/// The smallest box, in picture units, around the points given so far.
private struct PictureBox {
  var minX = Double.infinity
  var minY = Double.infinity
  var maxX = -Double.infinity
  var maxY = -Double.infinity

  var isEmpty: Bool { minX > maxX }

  mutating func include(_ x: Double, _ y: Double) {
    guard x.isFinite, y.isFinite else { return }
    minX = min(minX, x)
    minY = min(minY, y)
    maxX = max(maxX, x)
    maxY = max(maxY, y)
  }
}
