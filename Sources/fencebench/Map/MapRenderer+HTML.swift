import FenceEngine
import FenceFormats
import FenceGeometry

extension MapRenderer {
  /// Writes the interactive page: the drawing data as one inline JSON block, a small inline
  /// script that draws it on a canvas (drag to pan, wheel to zoom, hover or click an event for
  /// its JSON) and a side panel with the legend.
  func writeHTML(to output: OutputFile) throws {
    let projection = makeProjection()
    try output.write(
      """
      <!DOCTYPE html>
      <html lang="en"><head><meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <title>\(Self.escapeHTML(title))</title>
      <style>\(Self.pageStyle)</style></head>
      <body><div id="map"><canvas id="canvas"></canvas><div id="tip"></div></div>
      <aside id="side"><h1>\(Self.escapeHTML(title))</h1><div id="legend"></div>
      <h2>Event</h2><pre id="detail">Hover over or click an event marker.</pre>
      <p><button id="fitZones">Fit zones and events</button> <button id="fitAll">Fit all</button></p>
      <p class="hint">Drag to pan, wheel to zoom, double-click to fit zones and events again.</p></aside>
      <script type="application/json" id="data">
      """)
    try writeData(projection, to: output)
    try output.write("</script>\n<script>\(Self.pageScript)</script>\n</body></html>\n")
    try output.close()
  }

  /// The drawing data in picture units (see ``MapProjection``), as compact JSON.
  private func writeData(_ p: MapProjection, to output: OutputFile) throws {
    let focus = makeProjection(focusOnZones: true)
    let focusBox = [
      p.x(focus.west), p.y(focus.north), p.x(focus.west + focus.width / focus.lonScale),
      p.y(focus.north - focus.height / focus.latScale),
    ].map(Self.number).joined(separator: ",")
    var text = "{\"width\":\(Int(p.width)),\"height\":\(Int(p.height)),\"focus\":[\(focusBox)],"
    text += "\"unitsPerMetre\":\(p.unitsPerMetre),\"fences\":["
    let fences = drawnFences
    for (index, item) in fences.enumerated() {
      if index > 0 { text += "," }
      text += "{\"id\":" + Self.jsonString(item.fence.id) + ",\"zone\":"
        + Self.jsonString(item.zone.id)
      switch item.fence.area {
      case .circle(let circle):
        text += ",\"circle\":[" + Self.number(p.x(circle.center.longitude)) + ","
          + Self.number(p.y(circle.center.latitude)) + ","
          + Self.number(circle.radius * p.unitsPerMetre) + "]"
      case .polygon(let multi):
        text += ",\"rings\":["
        var first = true
        for polygon in multi.polygons {
          for ring in polygon.rings {
            if !first { text += "," }
            first = false
            text += Self.flat(ring.map(\.latitude), ring.map(\.longitude), p, stride: 1)
          }
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
    for zone in zones {
      for line in zone.geolines {
        if !firstLine { text += "," }
        firstLine = false
        let v = line.line.vertices
        text += "{\"id\":" + Self.jsonString(line.id) + ",\"zone\":" + Self.jsonString(zone.id)
          + ",\"direction\":\"" + line.direction.rawValue + "\",\"points\":"
          + Self.flat(v.map(\.latitude), v.map(\.longitude), p, stride: 1) + "}"
      }
    }
    text += "],\"tracks\":["
    try output.write(text)
    let stride = trackStride
    for (index, track) in tracks.enumerated() {
      try output.write(
        (index > 0 ? "," : "") + "{\"device\":" + Self.jsonString(track.device) + ",\"color\":\""
          + Self.deviceColor(index) + "\",\"points\":"
          + Self.flat(track.latitudes, track.longitudes, p, stride: stride) + "}")
    }
    try output.write("],\"events\":[")
    let counts = eventCounts
    for (index, event) in drawnEvents.enumerated() {
      let x = event.longitude.map { p.x($0) } ?? -1
      let y = event.latitude.map { p.y($0) } ?? -1
      try output.write(
        (index > 0 ? "," : "") + "{\"x\":" + Self.number(x) + ",\"y\":" + Self.number(y)
          + ",\"kind\":\"" + event.kind.rawValue + "\",\"json\":"
          + Self.jsonString(eventText(event)) + "}")
    }
    let zoneIDs = zones.map(\.id)
    var legend = "],\"legend\":{\"zones\":\(zones.count),\"fences\":\(fenceCount),"
    legend += "\"fencesDrawn\":\(fences.count),\"geolines\":\(geolineCount),"
    legend += "\"devices\":\(tracks.count),\"trackStride\":\(stride * sampledTrackStride),"
    legend += "\"events\":\(eventTotal),\"eventsDrawn\":\(drawnEvents.count),"
    legend += "\"kinds\":{"
    legend += ZoneEvent.Kind.allCases.map {
      "\"\($0.rawValue)\":{\"count\":\(counts[$0, default: 0]),\"color\":\"\(Self.eventColor($0))\"}"
    }.joined(separator: ",")
    legend += "},\"zoneIDs\":[" + zoneIDs.prefix(50).map(Self.jsonString).joined(separator: ",")
    legend += "]}}"
    try output.write(legend)
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
      FixedDecimal.append(p.x(longitudes[i]), digits: 2, to: &bytes)
      bytes.append(UInt8(ascii: ","))
      FixedDecimal.append(p.y(latitudes[i]), digits: 2, to: &bytes)
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

  static let pageStyle = """
    html,body{margin:0;height:100%;font:13px system-ui,sans-serif;color:#222}
    body{display:flex}
    #map{position:relative;flex:1;overflow:hidden;background:#eef3f7}
    #canvas{display:block;width:100%;height:100%;cursor:grab}
    #side{width:300px;padding:10px 14px;border-left:1px solid #ccd;overflow:auto;background:#fafbfc}
    h1{font-size:15px;margin:4px 0 10px} h2{font-size:13px;margin:14px 0 4px}
    #legend div{margin:3px 0;display:flex;align-items:center}
    .sw{display:inline-block;width:14px;height:14px;margin-right:6px;border-radius:7px;flex:none}
    .box{border-radius:2px} .ln{height:3px;border-radius:0}
    #detail{white-space:pre-wrap;word-break:break-all;font:11px ui-monospace,monospace;
      background:#fff;border:1px solid #dde;padding:6px;min-height:60px}
    #tip{position:absolute;display:none;pointer-events:none;max-width:420px;background:#fff;
      border:1px solid #889;padding:4px 6px;font:11px ui-monospace,monospace;white-space:pre-wrap;
      word-break:break-all;box-shadow:0 1px 4px rgba(0,0,0,.25)}
    .hint{color:#667;font-size:11px} .muted{color:#667}
    """

  static let pageScript = #"""
    "use strict";
    const data = JSON.parse(document.getElementById("data").textContent);
    const canvas = document.getElementById("canvas"), ctx = canvas.getContext("2d");
    const tip = document.getElementById("tip"), detail = document.getElementById("detail");
    let view = {s: 1, x: 0, y: 0}, hover = -1, pinned = -1;
    function zoneHue(id) { let h = 0; for (const c of id) h = (h * 31 + c.charCodeAt(0)) >>> 0; return h % 360; }
    function fit(box) {
      box = box || data.focus;
      const w = canvas.clientWidth, h = canvas.clientHeight, bw = box[2] - box[0], bh = box[3] - box[1];
      const s = Math.min(w / bw, h / bh) * 0.96;
      view = {s, x: (w - bw * s) / 2 - box[0] * s, y: (h - bh * s) / 2 - box[1] * s};
    }
    function scaleBar() {
      const target = 120 / (view.s * data.unitsPerMetre);
      const p = Math.pow(10, Math.floor(Math.log10(target)));
      const m = [1, 2, 5, 10].map(k => k * p).filter(v => v <= target).pop() || p;
      const L = m * data.unitsPerMetre * view.s, x = 14, y = canvas.clientHeight - 16;
      ctx.strokeStyle = "#333"; ctx.lineWidth = 2; ctx.beginPath();
      ctx.moveTo(x, y - 5); ctx.lineTo(x, y); ctx.lineTo(x + L, y); ctx.lineTo(x + L, y - 5); ctx.stroke();
      ctx.fillStyle = "#333"; ctx.font = "11px system-ui,sans-serif";
      ctx.fillText(m >= 1000 ? (m / 1000) + " km" : m + " m", x + 4, y - 6);
    }
    function resize() {
      const r = window.devicePixelRatio || 1;
      canvas.width = canvas.clientWidth * r; canvas.height = canvas.clientHeight * r;
      draw();
    }
    function px(x) { return x * view.s + view.x; }
    function py(y) { return y * view.s + view.y; }
    function path(points) {
      ctx.moveTo(px(points[0]), py(points[1]));
      for (let i = 2; i < points.length; i += 2) ctx.lineTo(px(points[i]), py(points[i + 1]));
    }
    function arrow(points) {
      const n = points.length;
      if (n < 4) return;
      const x1 = px(points[n - 4]), y1 = py(points[n - 3]), x2 = px(points[n - 2]), y2 = py(points[n - 1]);
      const a = Math.atan2(y2 - y1, x2 - x1), L = 11;
      ctx.beginPath(); ctx.moveTo(x2, y2);
      ctx.lineTo(x2 - L * Math.cos(a - 0.45), y2 - L * Math.sin(a - 0.45));
      ctx.lineTo(x2 - L * Math.cos(a + 0.45), y2 - L * Math.sin(a + 0.45));
      ctx.closePath(); ctx.fill();
    }
    function marker(e, r) {
      const x = px(e.x), y = py(e.y);
      ctx.beginPath();
      if (e.kind === "checkIn") { ctx.moveTo(x, y - r * 1.2); ctx.lineTo(x + r, y + r * 0.8); ctx.lineTo(x - r, y + r * 0.8); ctx.closePath(); }
      else if (e.kind === "checkOut") { ctx.rect(x - r * 0.85, y - r * 0.85, r * 1.7, r * 1.7); }
      else if (e.kind === "dwell") { ctx.moveTo(x, y - r * 1.2); ctx.lineTo(x + r * 1.2, y); ctx.lineTo(x, y + r * 1.2); ctx.lineTo(x - r * 1.2, y); ctx.closePath(); }
      else { ctx.arc(x, y, r * 0.7, 0, 2 * Math.PI); }
      ctx.fillStyle = data.legend.kinds[e.kind].color; ctx.fill();
      ctx.lineWidth = 1; ctx.strokeStyle = "#fff"; ctx.stroke();
    }
    function draw() {
      const r = window.devicePixelRatio || 1;
      ctx.setTransform(r, 0, 0, r, 0, 0);
      ctx.clearRect(0, 0, canvas.clientWidth, canvas.clientHeight);
      ctx.lineJoin = "round";
      for (const f of data.fences) {
        const hue = zoneHue(f.zone);
        ctx.beginPath();
        if (f.circle) ctx.arc(px(f.circle[0]), py(f.circle[1]), Math.max(f.circle[2] * view.s, 1.5), 0, 2 * Math.PI);
        else for (const ring of f.rings) { path(ring); ctx.closePath(); }
        ctx.fillStyle = `hsla(${hue},65%,55%,0.25)`; ctx.fill("evenodd");
        ctx.strokeStyle = `hsl(${hue},60%,35%)`; ctx.lineWidth = 1.2; ctx.stroke();
      }
      ctx.globalAlpha = 0.8;
      for (const t of data.tracks) {
        if (t.points.length < 2) continue;
        ctx.beginPath(); path(t.points);
        ctx.strokeStyle = t.color; ctx.lineWidth = 1.1; ctx.stroke();
      }
      ctx.globalAlpha = 1;
      for (const l of data.lines) {
        ctx.beginPath(); path(l.points);
        ctx.strokeStyle = "#0b3d91"; ctx.lineWidth = 3; ctx.setLineDash([8, 4]); ctx.stroke(); ctx.setLineDash([]);
        ctx.fillStyle = "#0b3d91"; arrow(l.points);
        ctx.font = "bold 12px system-ui,sans-serif";
        ctx.fillText(l.id + (l.direction === "both" ? "" : " (" + l.direction + ")"), px(l.points[0]) + 4, py(l.points[1]) - 6);
      }
      const r0 = Math.min(7, Math.max(3.5, 2.5 + view.s));
      data.events.forEach((e, i) => { if (e.x >= 0 && i !== hover && i !== pinned) marker(e, r0); });
      for (const i of [pinned, hover]) if (i >= 0) marker(data.events[i], r0 * 1.6);
      scaleBar();
    }
    function legend() {
      const L = data.legend, el = document.getElementById("legend");
      let html = "";
      for (const [kind, v] of Object.entries(L.kinds)) {
        if (!v.count && (kind === "rejected" || kind === "monitoredSetChanged")) continue;
        html += `<div><span class="sw" style="background:${v.color}"></span>${kind}: ${v.count}</div>`;
      }
      html += `<div><span class="sw box" style="background:hsla(200,65%,55%,.35);border:1px solid hsl(200,60%,35%)"></span>fences: ${L.fencesDrawn} of ${L.fences} drawn (${L.zones} zones)</div>`;
      html += `<div><span class="sw ln" style="background:#0b3d91"></span>GEOLINEs: ${L.geolines} (arrow = drawing direction)</div>`;
      html += `<div><span class="sw ln" style="background:linear-gradient(90deg,hsl(0,70%,42%),hsl(137,70%,42%),hsl(275,70%,42%))"></span>tracks: ${L.devices} devices${L.trackStride > 1 ? `, every ${L.trackStride}th point` : ""}</div>`;
      if (L.eventsDrawn < L.events) html += `<div class="muted">${L.eventsDrawn} of ${L.events} events drawn</div>`;
      el.innerHTML = html;
    }
    function nearest(mx, my) {
      let best = -1, bd = 100;
      data.events.forEach((e, i) => {
        if (e.x < 0) return;
        const dx = px(e.x) - mx, dy = py(e.y) - my, d = dx * dx + dy * dy;
        if (d < bd) { bd = d; best = i; }
      });
      return best;
    }
    function pretty(json) { try { return JSON.stringify(JSON.parse(json), null, 1); } catch (_) { return json; } }
    let drag = null;
    canvas.addEventListener("mousedown", ev => { drag = {x: ev.offsetX, y: ev.offsetY, vx: view.x, vy: view.y, moved: false}; });
    window.addEventListener("mouseup", ev => {
      if (drag && !drag.moved && ev.target === canvas) { pinned = nearest(ev.offsetX, ev.offsetY); detail.textContent = pinned >= 0 ? pretty(data.events[pinned].json) : "Hover over or click an event marker."; draw(); }
      drag = null; canvas.style.cursor = "grab";
    });
    canvas.addEventListener("mousemove", ev => {
      if (drag) {
        const dx = ev.offsetX - drag.x, dy = ev.offsetY - drag.y;
        if (Math.abs(dx) + Math.abs(dy) > 3) { drag.moved = true; canvas.style.cursor = "grabbing"; }
        view.x = drag.vx + dx; view.y = drag.vy + dy; draw(); return;
      }
      const i = nearest(ev.offsetX, ev.offsetY);
      if (i !== hover) { hover = i; draw(); }
      if (i >= 0) {
        tip.style.display = "block"; tip.textContent = pretty(data.events[i].json);
        tip.style.left = Math.min(ev.offsetX + 14, canvas.clientWidth - 300) + "px"; tip.style.top = (ev.offsetY + 14) + "px";
      } else tip.style.display = "none";
    });
    canvas.addEventListener("wheel", ev => {
      ev.preventDefault();
      const k = Math.exp(-ev.deltaY * 0.0015);
      view.x = ev.offsetX - (ev.offsetX - view.x) * k; view.y = ev.offsetY - (ev.offsetY - view.y) * k; view.s *= k;
      draw();
    }, {passive: false});
    canvas.addEventListener("dblclick", () => { fit(); draw(); });
    document.getElementById("fitZones").onclick = () => { fit(); draw(); };
    document.getElementById("fitAll").onclick = () => { fit([0, 0, data.width, data.height]); draw(); };
    window.addEventListener("resize", resize);
    legend(); fit(); resize();
    // `page.html#event=N` opens with event N pinned (for links and for screenshot checks).
    const pin = /^#event=(\d+)$/.exec(location.hash);
    if (pin && +pin[1] < data.events.length) { pinned = +pin[1]; detail.textContent = pretty(data.events[pinned].json); draw(); }
    """#
}
