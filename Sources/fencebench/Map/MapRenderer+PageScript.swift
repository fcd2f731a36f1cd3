extension MapRenderer {
  /// The page's inline style sheet.
  static let pageStyle = """
    html,body{margin:0;height:100%;font:13px system-ui,sans-serif;color:#222}
    body{display:flex}
    #map{position:relative;flex:1;overflow:hidden;background:#eef3f7}
    #canvas{display:block;width:100%;height:100%;cursor:grab}
    #side{width:310px;padding:10px 14px;border-left:1px solid #ccd;overflow:auto;background:#fafbfc}
    h1{font-size:15px;margin:4px 0 8px;overflow-wrap:anywhere} h2{font-size:13px;margin:12px 0 4px}
    .row{margin:3px 0;display:flex;align-items:center;cursor:pointer}
    .row input{margin:0 6px 0 0} .sub{margin:2px 0 2px 22px;display:flex;align-items:center}
    .sw{width:24px;height:16px;margin-right:6px;flex:none}
    #time label{display:flex;align-items:center;gap:6px} #time input{flex:1}
    #fromText,#toText{font:11px ui-monospace,monospace;color:#445;margin:0 0 4px 34px}
    #detail{white-space:pre-wrap;word-break:break-all;font:11px ui-monospace,monospace;
      background:#fff;border:1px solid #dde;padding:6px;min-height:60px;max-height:40vh;overflow:auto}
    #tip{position:absolute;display:none;pointer-events:none;max-width:420px;background:#fff;
      border:1px solid #889;padding:4px 6px;font:11px ui-monospace,monospace;white-space:pre-wrap;
      word-break:break-all;box-shadow:0 1px 4px rgba(0,0,0,.25)}
    .hint{color:#667;font-size:11px} .muted{color:#667}
    """

  /// The page's inline script: draws `data` (the JSON block ``writeHTML(to:)`` writes) on the
  /// canvas and runs the side panel. Fences are drawn through `Path2D` objects in picture
  /// units (built once), so a redraw only changes the transform; tracks are redrawn point by
  /// point because the time window cuts them.
  static let pageScript = #"""
    "use strict";
    const data = JSON.parse(document.getElementById("data").textContent), L = data.legend;
    const canvas = document.getElementById("canvas"), ctx = canvas.getContext("2d");
    const tip = document.getElementById("tip"), detail = document.getElementById("detail");
    const fromInput = document.getElementById("from"), toInput = document.getElementById("to");
    const show = {fences: true, labels: true, lines: true, tracks: true};
    for (const kind in L.kinds) show[kind] = true;
    let view = {s: 1, x: 0, y: 0}, hover = null, pinned = null, from = 0, to = data.span;
    const idle = "Hover over or click an event, a track or a fence.";
    function zoneHue(id) { let h = 0; for (let i = 0; i < id.length; i++) h = (h * 31 + id.charCodeAt(i)) >>> 0; return Math.floor(h * 0.618033988749895 % 1 * 360); }
    function esc(s) { return String(s).replace(/[&<>"]/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"})[c]); }
    function iso(t) { return new Date((data.t0 + t) * 1000).toISOString().replace(".000Z", "Z"); }
    function duration(s) {
      if (s >= 86400) return +(s / 86400).toFixed(1) + " d";
      if (s >= 3600) return +(s / 3600).toFixed(1) + " h";
      if (s >= 60) return +(s / 60).toFixed(1) + " min";
      return s + " s";
    }
    function grow(b, x, y) { if (x < b[0]) b[0] = x; if (y < b[1]) b[1] = y; if (x > b[2]) b[2] = x; if (y > b[3]) b[3] = y; }
    function boxOf(points) { const b = [Infinity, Infinity, -Infinity, -Infinity]; for (let i = 0; i < points.length; i += 2) grow(b, points[i], points[i + 1]); return b; }
    function meets(a, b) { return a[0] <= b[2] && a[2] >= b[0] && a[1] <= b[3] && a[3] >= b[1]; }
    for (const f of data.fences) {
      f.hue = zoneHue(data.zones[f.z].id);
      if (f.circle) { const [x, y, r] = f.circle; f.box = [x - r, y - r, x + r, y + r]; continue; }
      f.path = new Path2D(); f.box = [Infinity, Infinity, -Infinity, -Infinity];
      for (const ring of f.rings) {
        f.path.moveTo(ring[0], ring[1]);
        for (let i = 2; i < ring.length; i += 2) f.path.lineTo(ring[i], ring[i + 1]);
        f.path.closePath();
        const b = boxOf(ring); grow(f.box, b[0], b[1]); grow(f.box, b[2], b[3]);
      }
    }
    for (const t of data.tracks) for (const p of t.parts) p.box = boxOf(p.points);
    for (const l of data.lines) l.box = boxOf(l.points);

    const dpr = () => window.devicePixelRatio || 1;
    function px(x) { return x * view.s + view.x; }
    function py(y) { return y * view.s + view.y; }
    function inPicture() { const r = dpr(); ctx.setTransform(r * view.s, 0, 0, r * view.s, r * view.x, r * view.y); }
    function onScreen() { const r = dpr(); ctx.setTransform(r, 0, 0, r, 0, 0); }
    function visibleBox() { return [-view.x / view.s, -view.y / view.s, (canvas.clientWidth - view.x) / view.s, (canvas.clientHeight - view.y) / view.s]; }
    function fit(box) {
      box = box || [0, 0, data.width, data.height];
      const w = canvas.clientWidth, h = canvas.clientHeight, bw = Math.max(box[2] - box[0], 1e-6), bh = Math.max(box[3] - box[1], 1e-6);
      const s = Math.min(w / bw, h / bh) * 0.98;
      view = {s, x: (w - bw * s) / 2 - box[0] * s, y: (h - bh * s) / 2 - box[1] * s};
    }
    function inWindow(t) { return t >= from && t <= to; }
    function eventShown(e) { return e.x !== undefined && show[e.kind] && inWindow(e.t); }
    function same(a, type, i) { return a !== null && a.type === type && a.i === i; }
    function lit(type, i) { return same(hover, type, i) || same(pinned, type, i); }

    // Shapes shared by the map and the legend's swatches.
    function marker(c, kind, x, y, r) {
      c.beginPath();
      if (kind === "checkIn") { c.moveTo(x, y - r * 1.2); c.lineTo(x + r, y + r * 0.8); c.lineTo(x - r, y + r * 0.8); c.closePath(); }
      else if (kind === "checkOut") { c.rect(x - r * 0.85, y - r * 0.85, r * 1.7, r * 1.7); }
      else if (kind === "dwell") { c.moveTo(x, y - r * 1.2); c.lineTo(x + r * 1.2, y); c.lineTo(x, y + r * 1.2); c.lineTo(x - r * 1.2, y); c.closePath(); }
      else { c.arc(x, y, r * 0.7, 0, 2 * Math.PI); }
      c.fillStyle = L.kinds[kind].color; c.fill();
      c.lineWidth = 1; c.strokeStyle = "#fff"; c.stroke();
    }
    function geoline(c, points, toX, toY) {
      c.beginPath(); c.moveTo(toX(points[0]), toY(points[1]));
      for (let i = 2; i < points.length; i += 2) c.lineTo(toX(points[i]), toY(points[i + 1]));
      c.strokeStyle = "#0b3d91"; c.lineWidth = 3; c.setLineDash([8, 4]); c.stroke(); c.setLineDash([]);
      const n = points.length;
      if (n < 4) return;
      const x1 = toX(points[n - 4]), y1 = toY(points[n - 3]), x2 = toX(points[n - 2]), y2 = toY(points[n - 1]);
      const a = Math.atan2(y2 - y1, x2 - x1), A = 11;
      c.beginPath(); c.moveTo(x2, y2);
      c.lineTo(x2 - A * Math.cos(a - 0.45), y2 - A * Math.sin(a - 0.45));
      c.lineTo(x2 - A * Math.cos(a + 0.45), y2 - A * Math.sin(a + 0.45));
      c.closePath(); c.fillStyle = "#0b3d91"; c.fill();
    }
    function fenceStyle(c, hue, bright) {
      c.fillStyle = `hsla(${hue},65%,55%,${bright ? 0.45 : 0.22})`; c.strokeStyle = `hsl(${hue},60%,35%)`;
    }
    function haloText(text, x, y, color) {
      ctx.lineWidth = 3; ctx.strokeStyle = "rgba(255,255,255,.9)"; ctx.strokeText(text, x, y);
      ctx.fillStyle = color; ctx.fillText(text, x, y);
    }

    function draw() {
      const W = canvas.clientWidth, H = canvas.clientHeight, vb = visibleBox();
      onScreen(); ctx.clearRect(0, 0, W, H);
      ctx.lineJoin = "round"; ctx.lineCap = "round";
      if (show.fences) {
        inPicture();
        data.fences.forEach((f, i) => {
          if (!meets(f.box, vb)) return;
          const bright = lit("fence", i);
          fenceStyle(ctx, f.hue, bright); ctx.lineWidth = (bright ? 2.5 : 1.2) / view.s;
          if (f.circle) { ctx.beginPath(); ctx.arc(f.circle[0], f.circle[1], Math.max(f.circle[2], 2 / view.s), 0, 2 * Math.PI); ctx.fill(); ctx.stroke(); }
          else { ctx.fill(f.path, "evenodd"); ctx.stroke(f.path); }
        });
      }
      if (show.tracks) {
        inPicture(); ctx.globalAlpha = 0.8;
        const dot = 0.5 / view.s, picked = [hover, pinned].filter(h => h && h.type === "track").map(h => h.i);
        data.tracks.forEach((t, ti) => {
          ctx.beginPath();
          let any = false;
          for (const p of t.parts) {
            const n = p.times.length;
            if (!meets(p.box, vb) || p.times[n - 1] < from || p.times[0] > to) continue;
            let pen = false;
            for (let i = 0; i < n; i++) {
              if (!inWindow(p.times[i])) { pen = false; continue; }
              const x = p.points[2 * i], y = p.points[2 * i + 1];
              if (pen) ctx.lineTo(x, y); else { ctx.moveTo(x, y); ctx.lineTo(x + dot, y); pen = true; }
              any = true;
            }
          }
          if (!any) return;
          ctx.strokeStyle = t.color; ctx.lineWidth = (picked.includes(ti) ? 3.5 : 1.2) / view.s; ctx.stroke();
        });
        ctx.globalAlpha = 1;
      }
      onScreen();
      if (show.lines) for (const l of data.lines) if (meets(l.box, vb)) geoline(ctx, l.points, px, py);
      const r0 = Math.min(7, Math.max(3.5, 2.5 + view.s));
      data.events.forEach((e, i) => { if (eventShown(e) && !lit("event", i)) marker(ctx, e.kind, px(e.x), py(e.y), r0); });
      for (const h of [pinned, hover]) if (h && h.type === "event" && eventShown(data.events[h.i])) { const e = data.events[h.i]; marker(ctx, e.kind, px(e.x), py(e.y), r0 * 1.6); }
      if (show.labels) labels(W, H);
      scaleBar();
    }

    // Labels: GEOLINEs first, then fences from the smallest on screen, each at the first of its
    // places where it overlaps no label already placed: above, below, right or left of a
    // circle; on a polygon's label point or just above, below, right or left of it.
    // Labels are skipped rather than drawn over each other.
    function labels(W, H) {
      const placed = [];
      ctx.font = "bold 12px system-ui,sans-serif"; ctx.textBaseline = "middle"; ctx.textAlign = "left";
      function place(text, color, spots) {
        const w = ctx.measureText(text).width + 4, h = 15;
        for (const [x, y] of spots) {
          const box = [x - w / 2, y - h / 2, x + w / 2, y + h / 2];
          if (box[0] < 0 || box[2] > W || box[1] < 0 || box[3] > H) continue;
          if (placed.some(b => meets(b, box))) continue;
          // The same text within 250 px (the parts of one time zone) is written once.
          if (placed.some(b => b.text === text && Math.hypot(b[0] - box[0], b[1] - box[1]) < 250)) return;
          box.text = text; placed.push(box); haloText(text, box[0] + 2, y, color);
          return;
        }
      }
      if (show.lines) for (const l of data.lines) {
        const text = l.id + (l.direction === "both" ? "" : " (" + l.direction + ")"), w = ctx.measureText(text).width;
        const x = px(l.points[0]), y = py(l.points[1]);
        place(text, "#0b3d91", [[x + 6 + w / 2, y - 10], [x + 6 + w / 2, y + 10], [x - 6 - w / 2, y - 10], [x - 6 - w / 2, y + 10]]);
      }
      if (show.fences) {
        const vb = visibleBox(), candidates = [];
        for (const f of data.fences) {
          if (!meets(f.box, vb)) continue;
          const w = (f.box[2] - f.box[0]) * view.s, h = (f.box[3] - f.box[1]) * view.s;
          if (Math.max(w, h) < (f.circle ? 5 : 12)) continue;
          candidates.push([w * h, f]);
        }
        candidates.sort((a, b) => a[0] - b[0]);
        for (const [, f] of candidates.slice(0, 400)) {
          const text = f.label || f.id, half = ctx.measureText(text).width / 2 + 4, color = `hsl(${f.hue},70%,22%)`;
          const x = px(f.at[0]), y = py(f.at[1]), rx = (f.box[2] - f.box[0]) * view.s / 2, ry = (f.box[3] - f.box[1]) * view.s / 2;
          const cx = px((f.box[0] + f.box[2]) / 2), cy = py((f.box[1] + f.box[3]) / 2);
          const around = [[cx, cy - ry - 9], [cx, cy + ry + 9], [cx + rx + half, cy], [cx - rx - half, cy]];
          place(text, color, f.circle ? around : [[x, y], [x, y - 15], [x, y + 15], [x + half, y], [x - half, y]]);
        }
      }
      ctx.textBaseline = "alphabetic";
    }
    function scaleBar() {
      const target = 120 / (view.s * data.unitsPerMetre);
      const p = Math.pow(10, Math.floor(Math.log10(target)));
      const m = [1, 2, 5, 10].map(k => k * p).filter(v => v <= target).pop() || p;
      const len = m * data.unitsPerMetre * view.s, x = 14, y = canvas.clientHeight - 16;
      ctx.strokeStyle = "#333"; ctx.lineWidth = 2; ctx.beginPath();
      ctx.moveTo(x, y - 5); ctx.lineTo(x, y); ctx.lineTo(x + len, y); ctx.lineTo(x + len, y - 5); ctx.stroke();
      ctx.fillStyle = "#333"; ctx.font = "11px system-ui,sans-serif";
      ctx.fillText(m >= 1000 ? (m / 1000) + " km" : m + " m", x + 4, y - 6);
    }

    // The legend: one row per layer drawn, each with its toggle and a swatch drawn by the same
    // code as the map.
    function legend() {
      const el = document.getElementById("legend"), swatches = [];
      let html = "";
      function row(layer, swatch, text) {
        swatches.push(swatch);
        html += `<label class="row"><input type="checkbox" data-layer="${layer}" checked><canvas class="sw" width="24" height="16" data-swatch="${swatches.length - 1}"></canvas><span>${text}</span></label>`;
      }
      function sub(swatch, text) {
        swatches.push(swatch);
        html += `<div class="sub"><canvas class="sw" width="24" height="16" data-swatch="${swatches.length - 1}"></canvas><span>${text}</span></div>`;
      }
      const n = v => v.toLocaleString("en-US");
      for (const [kind, v] of Object.entries(L.kinds)) {
        row(kind, c => marker(c, kind, 12, 8, 5), `${kind}: ${n(v.drawn)}` + (v.drawn < v.count ? ` drawn of ${n(v.count)}` : ""));
      }
      for (const [kind, count] of Object.entries(L.notDrawn)) html += `<div class="sub muted">${kind}: ${n(count)}, none drawn</div>`;
      if (L.eventsDrawn < L.events) html += `<div class="sub muted">a sample of ${n(L.eventsDrawn)} of ${n(L.events)} events</div>`;
      if (data.lines.length) row("lines", c => geoline(c, [1, 12, 17, 5], x => x, y => y), `GEOLINEs: ${n(data.lines.length)} (arrow: drawing direction)`);
      if (data.fences.length) {
        const zones = [...new Set(data.fences.map(f => f.z))].sort((a, b) => a - b);
        const hues = zones.slice(0, 3).map(z => zoneHue(data.zones[z].id));
        row("fences", c => hues.forEach((h, k) => { fenceStyle(c, h, true); c.lineWidth = 1; c.fillRect(2 + k * 7, 2 + k * 2, 10, 10); c.strokeRect(2 + k * 7, 2 + k * 2, 10, 10); }),
          `fences: ${n(L.fencesDrawn)}` + (L.fencesDrawn < L.fences ? ` of ${n(L.fences)} (nearest first)` : "") + `, colour by zone`);
        // A zone without a name goes by its first fence's label (a borough's name, a tzid).
        if (zones.length <= 12) for (const z of zones) {
          const zone = data.zones[z], hue = zoneHue(zone.id), first = data.fences.find(f => f.z === z);
          sub(c => { fenceStyle(c, hue, true); c.lineWidth = 1; c.fillRect(6, 2, 12, 12); c.strokeRect(6, 2, 12, 12); }, esc(zone.name || first.label || zone.id));
        }
        else html += `<div class="sub muted">${n(zones.length)} zones</div>`;
      }
      if (data.fences.length || data.lines.length) row("labels", c => { c.font = "bold 12px system-ui,sans-serif"; c.fillStyle = "#333"; c.fillText("Aa", 2, 13); }, "labels");
      if (data.tracks.length) {
        const colors = data.tracks.slice(0, 3).map(t => t.color);
        row("tracks", c => colors.forEach((color, k) => { c.strokeStyle = color; c.lineWidth = 2; c.beginPath(); c.moveTo(1, 4 + k * 4); c.lineTo(9, 8 + k * 3); c.lineTo(23, 3 + k * 4); c.stroke(); }),
          `tracks: ${n(L.devices)} devices, ${n(L.trackParts)} parts`);
        html += `<div class="sub muted">a new part after ${duration(L.gapSeconds)} without a position` + (L.maxSpeed ? ` or a jump faster than ${L.maxSpeed} m/s` : "") + (L.trackStride > 1 ? `; every ${n(L.trackStride)}th position drawn` : "") + `</div>`;
      }
      el.innerHTML = html;
      for (const c of el.querySelectorAll("canvas[data-swatch]")) swatches[+c.dataset.swatch](c.getContext("2d"));
      for (const box of el.querySelectorAll("input[data-layer]")) box.addEventListener("change", () => {
        show[box.dataset.layer] = box.checked; hover = null; tip.style.display = "none"; draw();
      });
    }

    function timeWindow() {
      if (data.span <= 0) { document.getElementById("time").style.display = "none"; return; }
      for (const input of [fromInput, toInput]) { input.max = data.span; input.step = 1; }
      fromInput.value = from; toInput.value = to;
      const text = () => {
        document.getElementById("fromText").textContent = iso(from);
        document.getElementById("toText").textContent = iso(to) + "  (" + duration(to - from) + ")";
      };
      fromInput.addEventListener("input", () => { from = +fromInput.value; if (from > to) { to = from; toInput.value = to; } text(); draw(); });
      toInput.addEventListener("input", () => { to = +toInput.value; if (to < from) { from = to; fromInput.value = from; } text(); draw(); });
      text();
    }

    // What the pointer is on: an event marker, else a track position, a GEOLINE, a fence
    // (the smallest containing it).
    function hit(mx, my) {
      let best = null, bd = 100;
      data.events.forEach((e, i) => {
        if (!eventShown(e)) return;
        const dx = px(e.x) - mx, dy = py(e.y) - my, d = dx * dx + dy * dy;
        if (d < bd) { bd = d; best = {type: "event", i}; }
      });
      if (best) return best;
      const qx = (mx - view.x) / view.s, qy = (my - view.y) / view.s, lim = 6 / view.s;
      if (show.tracks) {
        let d2 = lim * lim;
        data.tracks.forEach((t, i) => t.parts.forEach((p, part) => {
          if (qx < p.box[0] - lim || qx > p.box[2] + lim || qy < p.box[1] - lim || qy > p.box[3] + lim) return;
          for (let k = 0; k < p.times.length; k++) {
            if (!inWindow(p.times[k])) continue;
            const dx = p.points[2 * k] - qx, dy = p.points[2 * k + 1] - qy, d = dx * dx + dy * dy;
            if (d < d2) { d2 = d; best = {type: "track", i, part, k}; }
          }
        }));
        if (best) return best;
      }
      if (show.lines) data.lines.forEach((l, i) => {
        for (let k = 0; k + 3 < l.points.length; k += 2) {
          const ax = l.points[k], ay = l.points[k + 1], bx = l.points[k + 2], by = l.points[k + 3];
          const len = (bx - ax) ** 2 + (by - ay) ** 2, u = len ? Math.max(0, Math.min(1, ((qx - ax) * (bx - ax) + (qy - ay) * (by - ay)) / len)) : 0;
          if ((ax + u * (bx - ax) - qx) ** 2 + (ay + u * (by - ay) - qy) ** 2 < lim * lim) best = {type: "line", i};
        }
      });
      if (best) return best;
      if (show.fences) {
        inPicture();
        const r = dpr();
        for (let i = data.fences.length - 1; i >= 0; i--) {
          const f = data.fences[i];
          if (qx < f.box[0] || qx > f.box[2] || qy < f.box[1] || qy > f.box[3]) { if (!f.circle) continue; }
          if (f.circle) {
            const dx = qx - f.circle[0], dy = qy - f.circle[1], rr = Math.max(f.circle[2], 2 / view.s);
            if (dx * dx + dy * dy <= rr * rr) return {type: "fence", i};
          } else if (ctx.isPointInPath(f.path, mx * r, my * r, "evenodd")) return {type: "fence", i};
        }
      }
      return null;
    }
    function pretty(value) { return JSON.stringify(value, null, 1); }
    function zoneText(z) { const zone = data.zones[z]; return zone.id + (zone.name ? " (" + zone.name + ")" : "") + (zone.data ? "\ncustomData " + pretty(zone.data) : ""); }
    function describe(h) {
      if (h.type === "event") { const json = data.events[h.i].json; try { return pretty(JSON.parse(json)); } catch (_) { return json; } }
      if (h.type === "track") {
        const t = data.tracks[h.i], p = t.parts[h.part], last = p.times.length - 1;
        return `device ${t.device}\nposition at ${iso(p.times[h.k])}\npart ${h.part + 1} of ${t.parts.length}: ${iso(p.times[0])} to ${iso(p.times[last])}, ${p.times.length} positions`;
      }
      if (h.type === "line") { const l = data.lines[h.i]; return `GEOLINE ${l.id}, direction ${l.direction}\nzone ${zoneText(l.z)}`; }
      const f = data.fences[h.i];
      return `fence ${f.id}` + (f.label ? `\nlabel ${f.label}` : "") + (f.circle ? `\ncircle, radius ${f.radius} m` : `\npolygon, ${f.vertices.toLocaleString("en-US")} vertices`) + `\nzone ${zoneText(f.z)}`;
    }
    function equal(a, b) { return a === b || (a && b && a.type === b.type && a.i === b.i && a.part === b.part && a.k === b.k); }

    let drag = null;
    canvas.addEventListener("mousedown", ev => { drag = {x: ev.offsetX, y: ev.offsetY, vx: view.x, vy: view.y, moved: false}; });
    window.addEventListener("mouseup", ev => {
      if (drag && !drag.moved && ev.target === canvas) {
        pinned = hit(ev.offsetX, ev.offsetY);
        detail.textContent = pinned ? describe(pinned) : idle; draw();
      }
      drag = null; canvas.style.cursor = "grab";
    });
    canvas.addEventListener("mousemove", ev => {
      if (drag) {
        const dx = ev.offsetX - drag.x, dy = ev.offsetY - drag.y;
        if (Math.abs(dx) + Math.abs(dy) > 3) { drag.moved = true; canvas.style.cursor = "grabbing"; }
        view.x = drag.vx + dx; view.y = drag.vy + dy; draw(); return;
      }
      const h = hit(ev.offsetX, ev.offsetY);
      if (!equal(h, hover)) { hover = h; draw(); }
      if (h) {
        tip.style.display = "block"; tip.textContent = describe(h);
        tip.style.left = Math.min(ev.offsetX + 14, canvas.clientWidth - 300) + "px"; tip.style.top = (ev.offsetY + 14) + "px";
      } else tip.style.display = "none";
    });
    canvas.addEventListener("mouseleave", () => { if (hover) { hover = null; draw(); } tip.style.display = "none"; });
    canvas.addEventListener("wheel", ev => {
      ev.preventDefault();
      const k = Math.exp(-ev.deltaY * 0.0015);
      view.x = ev.offsetX - (ev.offsetX - view.x) * k; view.y = ev.offsetY - (ev.offsetY - view.y) * k; view.s *= k;
      draw();
    }, {passive: false});
    function resize() {
      const r = dpr();
      canvas.width = canvas.clientWidth * r; canvas.height = canvas.clientHeight * r;
      draw();
    }
    canvas.addEventListener("dblclick", () => { fit(); draw(); });
    document.getElementById("fitFrame").textContent = "Fit " + data.frame.fits;
    document.getElementById("fitFrame").onclick = () => { fit(); draw(); };
    document.getElementById("fitAll").onclick = () => { fit(data.all); draw(); };
    window.addEventListener("resize", resize);
    // `page.html#event=N&from=S&to=S&hide=tracks,dwell&fit=X0,Y0,X1,Y1` opens with event N
    // pinned, the time window from S to S seconds after the first position, those layers off
    // and that box of picture units in view (for links and for screenshots).
    let fitBox = null;
    for (const [key, value] of new URLSearchParams(location.hash.slice(1))) {
      if (key === "event" && +value < data.events.length) { pinned = {type: "event", i: +value}; detail.textContent = describe(pinned); }
      else if (key === "from") from = Math.max(0, Math.min(data.span, +value || 0));
      else if (key === "to") to = Math.max(from, Math.min(data.span, +value || 0));
      else if (key === "hide") for (const layer of value.split(",")) show[layer] = false;
      else if (key === "fit") fitBox = value.split(",").map(Number);
    }
    legend();
    for (const box of document.querySelectorAll("input[data-layer]")) box.checked = show[box.dataset.layer] !== false;
    timeWindow(); fit(fitBox && fitBox.length === 4 && fitBox.every(isFinite) ? fitBox : null); resize();
    """#
}
