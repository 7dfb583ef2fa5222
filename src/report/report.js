// report.html's drawing: reads the JSON mgensim wrote into #data and draws the page. No
// library, no network. When done it sets <body data-ready="yes" data-errors="N">, N counting
// the script errors the page met (tests read both).
"use strict";
(function () {
  var errors = 0;
  window.addEventListener("error", function () {
    errors += 1;
    document.body.dataset.errors = String(errors);
  });
  var D = JSON.parse(document.getElementById("data").textContent);
  var SVG = "http://www.w3.org/2000/svg";

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function sel(tag, attrs) {
    var e = document.createElementNS(SVG, tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    return e;
  }
  function pct(u) { return (100 * u).toFixed(1) + " %"; }
  // simulated picoseconds, in the unit that suits them
  function time(ps) {
    var units = [[1e12, "s"], [1e9, "ms"], [1e6, "us"], [1e3, "ns"]];
    for (var i = 0; i < units.length; i++) {
      if (ps >= units[i][0]) return +(ps / units[i][0]).toPrecision(4) + " " + units[i][1];
    }
    return ps + " ps";
  }
  // viridis by its five anchors, as plot.rs draws it
  var ANCHORS = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
  function colour(x) {
    x = Math.max(0, Math.min(1, x)) * 4;
    var i = Math.min(3, Math.floor(x)), f = x - i, a = ANCHORS[i], b = ANCHORS[i + 1];
    return "rgb(" + [0, 1, 2].map(function (k) { return Math.round(a[k] + (b[k] - a[k]) * f); }).join(",") + ")";
  }
  // the colour scale: 0 to 100 %, the same in every picture (report.html and the SVGs)
  function legend(box, top, what) {
    box.textContent = "";
    box.appendChild(el("span", {}, "0 %"));
    var c = el("canvas", { width: 200, height: 12 });
    var g = c.getContext("2d");
    for (var i = 0; i < 200; i++) { g.fillStyle = colour(i / 199); g.fillRect(i, 0, 1, 12); }
    box.appendChild(c);
    box.appendChild(el("span", {}, pct(top) + " " + what));
  }
  var tip = document.getElementById("tip");
  function showTip(ev, text) {
    tip.textContent = text;
    tip.style.display = "block";
    tip.style.left = (ev.clientX + 12) + "px";
    tip.style.top = (ev.clientY + 12) + "px";
  }
  function hideTip() { tip.style.display = "none"; }

  // --- the profile: a row per call and region, largest first ---
  (function () {
    var panel = document.getElementById("profile-panel");
    if (!D.profile) {
      panel.appendChild(el("p", { class: "sub" }, "Not recorded: run with --profile (recorded unasked with --out up to 65,536 ranks)."));
      return;
    }
    // a replay's rows: the program's own (its MPI calls and regions, as mpiP's), then apart
    // the API calls and library regions they were replayed as
    var mine = D.profile.filter(function (r) { return r.kind.indexOf("replayed") === 0; });
    if (mine.length) {
      panel.appendChild(table(mine, "profile", "the replayed trace's MPI call or region"));
      panel.appendChild(el("p", { class: "sub" }, "The API calls and library regions the trace was replayed as:"));
      panel.appendChild(table(D.profile.filter(function (r) { return mine.indexOf(r) < 0; }), "profile-api", "call or region"));
    } else {
      panel.appendChild(table(D.profile, "profile", "call or region"));
    }
  })();
  function table(rows, id, what) {
    var t = el("table", { class: "profile", id: id });
    var head = el("tr");
    [what, "share of the ranks' time", "count", "ranks", "least per rank", "mean per rank", "most per rank"].forEach(function (h) {
      head.appendChild(el("th", {}, h));
    });
    t.appendChild(head);
    rows.forEach(function (r) {
      var tr = el("tr");
      var kind = { call: "", replayed: "", "replayed region": "region " }[r.kind];
      tr.appendChild(el("td", {}, (kind === undefined ? r.kind + " " : kind) + r.name));
      var share = el("td");
      share.appendChild(el("span", { class: "bar", style: "width:" + Math.round(100 * Math.min(1, r.share)) + "px" }));
      share.appendChild(document.createTextNode(" " + pct(r.share)));
      tr.appendChild(share);
      [String(r.count), String(r.ranks), time(r.min_ps), time(r.mean_ps), time(r.max_ps)].forEach(function (v) {
        tr.appendChild(el("td", {}, v));
      });
      t.appendChild(tr);
    });
    return t;
  }

  // --- header, cards, stuck ranks ---
  document.getElementById("title").textContent = D.scenario;
  document.getElementById("subtitle").textContent = D.shape + ", " + D.routing + " routing" +
    (D.partial ? " — the run stopped early: figures up to the stop" : "");
  var cards = document.getElementById("cards");
  function card(label, value, wide) {
    var c = el("div", { class: "card" + (wide ? " wide" : "") });
    c.appendChild(el("span", { class: "sub" }, label));
    if (typeof value === "string") c.appendChild(el("b", {}, value));
    else c.appendChild(value);
    cards.appendChild(c);
  }
  card(D.partial ? "stopped at (not a prediction: the run did not finish)" : "predicted time",
    D.predicted);
  card("ranks finished", D.finished + " of " + D.ranks);
  if (D.bound) {
    var b = el("div", { id: "bound" });
    b.appendChild(el("span", { class: "badge" }, D.bound.kind));
    b.appendChild(document.createTextNode(D.bound.reason));
    card("bounded by", b, true);
  }
  if (D.unfinished.length) {
    var box = el("div", { class: "alert" });
    box.appendChild(el("b", {}, (D.ranks - D.finished) + " ranks had not finished when the run stopped"));
    var ul = el("ul");
    D.unfinished.slice(0, 16).forEach(function (u) {
      var what = u.state === "failed" ? " failed at " + time(u.since_ps) + ": " + u.waits_for :
        u.state === "blocked" ? " blocked since " + time(u.since_ps) + " in " + u.waits_for :
        " " + u.state + ", clock " + time(u.since_ps);
      ul.appendChild(el("li", {}, u.name + what + (u.at ? " (at " + u.at + ")" : "")));
    });
    box.appendChild(ul);
    document.getElementById("stuck").appendChild(box);
  }
  D.missing.forEach(function (m) {
    document.getElementById("missing").appendChild(el("p", { class: "note" }, m));
  });
  document.getElementById("summary").textContent = D.summary;

  // --- timeline: drawn here, so that it zooms and tells what is under the pointer ---
  var tp = document.getElementById("timeline-panel");
  var TL = D.timeline;
  if (TL) {
    timeline(tp, TL);
  } else {
    tp.appendChild(el("p", { class: "note" }, "No timeline recorded (see above)."));
  }

  // One row per rank shown; spans of calls and waits in the middle of the row, regions as
  // bands behind them with their names where they fit; arrows from each put or send to its
  // arrival. Drag across it to zoom in, the wheel zooms at the pointer, a double click or
  // "whole run" zooms out; report.html#timeline=A-B (microseconds) opens it zoomed, and
  // &at=ROW,T shows what rank row ROW was doing at T us.
  function timeline(box, T) {
    var rows = T.rows.length;
    var rowH = rows <= 16 ? 30 : rows <= 32 ? 26 : rows <= 64 ? 14 : 9;
    // (with room for region names, the spans sit in the lower part of the row)
    var barY = rowH >= 26 ? 0.45 : 0.28, barH = rowH >= 26 ? 0.42 : 0.44;
    var left = 110, right = 12, top = 8, axis = 34, W = 1100, plotW = W - left - right;
    var H = top + rows * rowH + axis;
    var bar = el("div", { id: "timeline-controls" });
    var whole = el("button", { type: "button", id: "timeline-whole" }, "whole run");
    var shown = el("span", { id: "timeline-range", class: "sub" });
    bar.appendChild(whole);
    bar.appendChild(document.createTextNode(" "));
    bar.appendChild(shown);
    box.appendChild(bar);
    var keys = el("div", { class: "legend", style: "flex-wrap: wrap; gap: 4px 14px" });
    function key(swatch, words) {
      var item = el("span", { style: "white-space: nowrap" });
      item.appendChild(el("span", { style: "display:inline-block;width:12px;height:12px;vertical-align:-2px;margin-right:4px;" + swatch }));
      item.appendChild(document.createTextNode(words));
      keys.appendChild(item);
    }
    T.kinds.forEach(function (k) { key("background:" + k[1], k[0]); });
    key("background:rgba(44,160,44,0.3);border:1px solid #1e6e1e", "region (its name on it where it fits)");
    box.appendChild(keys);
    if (T.every > 1) {
      box.appendChild(el("p", { class: "sub" }, "Every " + T.every + "th rank of " + T.ranks + " is shown."));
    }
    var svg = sel("svg", { id: "timeline", width: W, height: H, viewBox: "0 0 " + W + " " + H });
    svg.style.cursor = "crosshair";
    box.appendChild(svg);
    var v0 = 0, v1 = Math.max(T.end_us, 1e-6);
    var x = function (t) { return left + (t - v0) / (v1 - v0) * plotW; };
    var byRow = [], regByRow = [];
    for (var i = 0; i < rows; i++) { byRow.push([]); regByRow.push([]); }
    T.spans.forEach(function (s) { byRow[s[0]].push(s); });
    T.regions.forEach(function (s) { regByRow[s[0]].push(s); });

    function draw() {
      while (svg.firstChild) svg.removeChild(svg.firstChild);
      var clip = sel("clipPath", { id: "tl-clip" });
      clip.appendChild(sel("rect", { x: left, y: 0, width: plotW, height: H }));
      svg.appendChild(clip);
      var g = sel("g", { "clip-path": "url(#tl-clip)" });
      svg.appendChild(g);
      for (var r = 0; r < rows; r++) {
        var y = top + r * rowH;
        if (r % 2) g.appendChild(sel("rect", { x: left, y: y, width: plotW, height: rowH, fill: "#f4f4f4" }));
        var name = sel("text", { x: left - 6, y: y + rowH / 2 + 4, "text-anchor": "end", "font-size": rowH >= 14 ? 12 : 8 });
        name.textContent = T.rows[r];
        svg.appendChild(name);
        regByRow[r].forEach(function (s) {
          if (s[2] < v0 || s[1] > v1) return;
          var a = Math.max(left, x(s[1])), b = Math.min(left + plotW, x(s[2]));
          var band = sel("rect", { x: a, y: y + 1, width: Math.max(1, b - a), height: rowH - 2,
            fill: "rgba(44,160,44,0.25)", stroke: "#1e6e1e", "stroke-width": 0.6 });
          band.setAttribute("class", "region");
          g.appendChild(band);
          var label = T.texts[s[3]];
          if (rowH >= 26 && b - a > 6 * label.length + 6) {
            var t = sel("text", { x: a + 3, y: y + 11, "font-size": 10, fill: "#145014" });
            t.setAttribute("class", "region-name");
            t.textContent = label;
            g.appendChild(t);
          }
        });
        // spans narrower than a pixel are merged with their neighbours of the same kind
        var last = null;
        byRow[r].forEach(function (s) {
          if (s[2] < v0 || s[1] > v1) return;
          var a = x(s[1]), b = Math.max(x(s[2]), a + 1);
          if (last && last.kind === s[3] && a <= last.b + 0.5) { last.b = Math.max(last.b, b); return; }
          if (last) put(last);
          last = { a: a, b: b, kind: s[3], y: y };
        });
        if (last) put(last);
      }
      function put(m) {
        var a = Math.max(left - 1, m.a), b = Math.min(left + plotW + 1, m.b);
        g.appendChild(sel("rect", { x: a, y: m.y + rowH * barY, width: Math.max(1, b - a),
          height: rowH * barH, fill: T.kinds[m.kind][1] }));
      }
      var drawn = 0;
      T.arrows.forEach(function (ar) {
        if (drawn > 2000 || ar[3] < v0 || ar[1] > v1) return;
        drawn++;
        var mid = barY + barH / 2;
        g.appendChild(sel("line", { x1: x(ar[1]), y1: top + (ar[0] + mid) * rowH, x2: x(ar[3]),
          y2: top + (ar[2] + mid) * rowH, stroke: "rgba(60,60,60,0.5)", "stroke-width": 1 }));
        g.appendChild(sel("circle", { cx: x(ar[3]), cy: top + (ar[2] + mid) * rowH, r: 2, fill: "rgba(60,60,60,0.6)" }));
      });
      var yAxis = top + rows * rowH;
      svg.appendChild(sel("line", { x1: left, y1: yAxis, x2: left + plotW, y2: yAxis, stroke: "#444" }));
      for (var k = 0; k <= 6; k++) {
        var t = v0 + (v1 - v0) * k / 6, px = left + plotW * k / 6;
        svg.appendChild(sel("line", { x1: px, y1: yAxis, x2: px, y2: yAxis + 4, stroke: "#444" }));
        var lab = sel("text", { x: px, y: yAxis + 16, "text-anchor": k === 0 ? "start" : k === 6 ? "end" : "middle", "font-size": 11 });
        lab.textContent = time(Math.round(t * 1e6));
        svg.appendChild(lab);
      }
      var cap = sel("text", { x: left + plotW / 2, y: yAxis + 30, "text-anchor": "middle", "font-size": 11, fill: "#555" });
      cap.textContent = "simulated time";
      svg.appendChild(cap);
      shown.textContent = (v0 <= 0 && v1 >= T.end_us ? "the whole run: " : "zoomed to ") +
        time(Math.round(v0 * 1e6)) + " to " + time(Math.round(v1 * 1e6)) +
        " (drag across the timeline to zoom in, the wheel to zoom, a double click to see it all)";
    }

    // what rank row `r` was doing at `t` (us), in words
    function describe(r, t) {
      var words = [T.rows[r] + " at " + time(Math.round(t * 1e6))];
      var list = byRow[r], best = null, near = (v1 - v0) / plotW * 3;
      for (var i = 0; i < list.length; i++) {
        var s = list[i];
        if (s[1] - near <= t && t <= s[2] + near) {
          if (!best || Math.abs((s[1] + s[2]) / 2 - t) < Math.abs((best[1] + best[2]) / 2 - t)) best = s;
        }
        if (s[1] > t + near) break;
      }
      if (best) {
        words.push(T.texts[best[4]] + ", " + time(Math.round(best[1] * 1e6)) + " to " +
          time(Math.round(best[2] * 1e6)) + " (" + time(Math.round((best[2] - best[1]) * 1e6)) + ")");
      } else {
        words.push("idle or between calls");
      }
      var inside = regByRow[r].filter(function (s) { return s[1] <= t && t <= s[2]; })
        .map(function (s) { return T.texts[s[3]]; });
      if (inside.length) words.push("in " + inside.join(" > "));
      return words.join("; ");
    }
    function at(ev) {
      var b = svg.getBoundingClientRect();
      var px = (ev.clientX - b.left) * W / b.width, py = (ev.clientY - b.top) * H / b.height;
      return { t: v0 + (px - left) / plotW * (v1 - v0), r: Math.floor((py - top) / rowH), px: px, py: py };
    }
    var dragFrom = null, band = null;
    svg.addEventListener("mousedown", function (ev) {
      var p = at(ev);
      if (p.px < left) return;
      dragFrom = p;
      band = sel("rect", { x: p.px, y: top, width: 0, height: rows * rowH, fill: "rgba(31,119,180,0.15)", stroke: "#1f77b4" });
      svg.appendChild(band);
      ev.preventDefault();
    });
    svg.addEventListener("mousemove", function (ev) {
      var p = at(ev);
      if (dragFrom && band) {
        band.setAttribute("x", Math.min(p.px, dragFrom.px));
        band.setAttribute("width", Math.abs(p.px - dragFrom.px));
      }
      if (p.px >= left && p.r >= 0 && p.r < rows) showTip(ev, describe(p.r, p.t));
      else hideTip();
    });
    window.addEventListener("mouseup", function (ev) {
      if (!dragFrom) return;
      var p = at(ev), a = Math.min(p.t, dragFrom.t), b = Math.max(p.t, dragFrom.t);
      dragFrom = null;
      if (Math.abs(x(b) - x(a)) >= 4) zoom(a, b); else draw();
    });
    svg.addEventListener("mouseleave", hideTip);
    svg.addEventListener("wheel", function (ev) {
      var p = at(ev);
      if (p.px < left) return;
      ev.preventDefault();
      var f = ev.deltaY > 0 ? 1.25 : 0.8;
      zoom(p.t - (p.t - v0) * f, p.t + (v1 - p.t) * f);
    }, { passive: false });
    svg.addEventListener("dblclick", function () { zoom(0, T.end_us); });
    whole.addEventListener("click", function () { zoom(0, T.end_us); });
    function zoom(a, b) {
      a = Math.max(0, a);
      b = Math.min(Math.max(T.end_us, 1e-6), b);
      if (b - a < 1e-6) b = a + 1e-6; // a picosecond is the finest
      v0 = a;
      v1 = b;
      draw();
    }
    var asked = /timeline=([0-9.e+-]+)-([0-9.e+-]+)/.exec(location.hash);
    if (asked) zoom(+asked[1], +asked[2]); else draw();
    var point = /at=(\d+),([0-9.e+-]+)/.exec(location.hash);
    if (point && +point[1] < rows) {
      var tipBox = document.getElementById("tip");
      tipBox.textContent = describe(+point[1], +point[2]);
      tipBox.style.display = "block";
      tipBox.style.left = "10px";
      tipBox.style.top = "10px";
    }
  }

  // --- topology, with the slider ---
  var T = D.topology, svg = document.getElementById("topology");
  var slider = document.getElementById("slider"), label = document.getElementById("frame-label");
  var play = document.getElementById("play");
  if (T && T.note) {
    document.getElementById("topology-sub").textContent += " " + T.note;
  }
  if (T && T.routers.length) {
    var xs = T.routers.map(function (r) { return r[0]; }).concat(T.labels.map(function (l) { return l[0]; }));
    var ys = T.routers.map(function (r) { return r[1]; }).concat(T.labels.map(function (l) { return l[1]; }));
    var x0 = Math.min.apply(null, xs), x1 = Math.max.apply(null, xs);
    var y0 = Math.min.apply(null, ys), y1 = Math.max.apply(null, ys);
    var wUnits = Math.max(1, x1 - x0), hUnits = Math.max(1, y1 - y0);
    var scale = Math.max(6, Math.min(90, 1040 / (wUnits + 1), 620 / (hUnits + 1)));
    var pad = scale * 0.8;
    // (room for labels that start at the right end of the rows)
    var xr = Math.max.apply(null, T.routers.map(function (r) { return r[0]; }));
    var right = !T.centred_labels && T.labels.some(function (l) { return l[0] > xr; });
    var W = wUnits * scale + 2 * pad + (right ? 120 : 0), H = hUnits * scale + 2 * pad;
    svg.setAttribute("width", W);
    svg.setAttribute("height", H);
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    var px = function (x) { return pad + (x - x0) * scale; };
    var py = function (y) { return pad + (y - y0) * scale; };
    var rr = Math.max(2, Math.min(16, scale * 0.16));
    var top = 1;
    var lines = T.links.map(function (l) {
      var a = T.routers[l[0]], b = T.routers[l[1]];
      var ax = px(a[0]), ay = py(a[1]), bx = px(b[0]), by = py(b[1]);
      var dx = bx - ax, dy = by - ay, len = Math.sqrt(dx * dx + dy * dy) || 1;
      var ux = dx / len, uy = dy / len;
      // far neighbours (wrap-around links) are drawn as stubs pointing away from the grid
      var far = len > scale * 1.5 && T.far_links === "stub";
      var off = Math.max(1, rr * 0.35);
      var ox = -uy * off, oy = ux * off;
      var line;
      if (far) {
        line = sel("line", { x1: ax + ox, y1: ay + oy, x2: ax - ux * scale * 0.4 + ox, y2: ay - uy * scale * 0.4 + oy });
      } else if (T.far_links === "arc" && len > scale * 1.5) {
        // a HyperX's longer links arc off their row or column, clear of the routers between
        var bend = len * 0.22, mx = (ax + bx) / 2 - uy * bend + ox, my = (ay + by) / 2 + ux * bend + oy;
        line = sel("path", { d: "M" + (ax + ox) + " " + (ay + oy) + " Q" + mx + " " + my + " " + (bx + ox) + " " + (by + oy), fill: "none" });
      } else {
        line = sel("line", { x1: ax + ox, y1: ay + oy, x2: bx + ox, y2: by + oy });
      }
      line.setAttribute("stroke-width", Math.max(1, Math.min(4, scale * 0.06)));
      line.setAttribute("stroke-linecap", "round");
      line.dataset.name = l[3];
      svg.appendChild(line);
      return line;
    });
    T.labels.forEach(function (l) {
      var t = sel("text", { x: px(l[0]), y: py(l[1]) + 4, "font-size": 12, fill: "#333",
        "text-anchor": T.centred_labels ? "middle" : "start" });
      t.setAttribute("class", "place-label");
      t.textContent = l[2];
      svg.appendChild(t);
    });
    var nodes = T.routers.map(function (r) {
      var c = sel("circle", { cx: px(r[0]), cy: py(r[1]), r: rr, stroke: "#333", "stroke-width": 0.6 });
      c.dataset.name = "router " + T.routers.indexOf(r) + " " + r[2];
      svg.appendChild(c);
      return c;
    });
    svg.addEventListener("mousemove", function (ev) {
      var t = ev.target;
      if (t.dataset && t.dataset.name) showTip(ev, t.dataset.name + ": " + t.dataset.value);
      else hideTip();
    });
    svg.addEventListener("mouseleave", hideTip);
    var frames = T.frames.length;
    slider.max = String(frames);
    slider.value = String(frames);
    var show = function (k) {
      var whole = k >= frames;
      var util = new Float32Array(T.links.length);
      if (whole) T.links.forEach(function (l, i) { util[i] = l[2]; });
      else T.frames[k].forEach(function (c) { util[c[0]] = c[1]; });
      var routerUtil = new Float32Array(T.routers.length);
      lines.forEach(function (line, i) {
        line.setAttribute("stroke", colour(util[i] / top));
        line.dataset.value = pct(util[i]);
        var from = T.links[i][0];
        routerUtil[from] = Math.max(routerUtil[from], util[i]);
      });
      nodes.forEach(function (c, i) {
        var u = whole ? T.routers[i][3] : routerUtil[i];
        c.setAttribute("fill", colour(u / top));
        c.dataset.value = whole ? pct(u) + " (mean over its output ports)" : pct(u) + " (its busiest link)";
      });
      label.textContent = whole ? "the whole run" :
        time(k * T.frame_ps) + " to " + time((k + 1) * T.frame_ps);
    };
    slider.addEventListener("input", function () { show(+slider.value); });
    var timer = null;
    play.addEventListener("click", function () {
      if (timer) { clearInterval(timer); timer = null; play.textContent = "Play"; return; }
      var k = 0;
      play.textContent = "Pause";
      timer = setInterval(function () {
        slider.value = String(k);
        show(k);
        k += 1;
        if (k > frames) { clearInterval(timer); timer = null; play.textContent = "Play"; }
      }, 250);
    });
    if (!frames) { slider.disabled = true; play.disabled = true; }
    // a link to one frame: report.html#frame=K
    var asked = /frame=(\d+)/.exec(location.hash);
    var first = asked ? Math.min(frames, +asked[1]) : frames;
    slider.value = String(first);
    show(first);
    legend(document.getElementById("topo-legend"), top, "of the time busy");
  } else {
    svg.setAttribute("width", 10);
    svg.setAttribute("height", 10);
    slider.disabled = true;
    play.disabled = true;
  }

  // --- heat map ---
  var Hm = D.heat, canvas = document.getElementById("heatmap");
  if (Hm && Hm.rows.length) {
    var rows = Hm.rows.length, cols = Hm.columns;
    var named = rows <= 40;
    var left = named ? 240 : 60, right = 10, topPad = 10, bottom = 34;
    var rowH = Math.max(2, Math.min(18, Math.floor(560 / rows)));
    var width = 1100, plotW = width - left - right, plotH = rowH * rows;
    canvas.width = width;
    canvas.height = plotH + topPad + bottom;
    var g = canvas.getContext("2d");
    g.fillStyle = "#fff";
    g.fillRect(0, 0, canvas.width, canvas.height);
    g.fillStyle = colour(0);
    g.fillRect(left, topPad, plotW, plotH);
    var cw = plotW / cols, hTop = 1;
    Hm.cells.forEach(function (c) {
      g.fillStyle = colour(c[2] / hTop);
      g.fillRect(left + c[1] * cw, topPad + c[0] * rowH, Math.ceil(cw), rowH);
    });
    g.fillStyle = "#222";
    g.font = "11px sans-serif";
    g.textAlign = "right";
    g.textBaseline = "middle";
    if (named) {
      Hm.rows.forEach(function (name, i) { g.fillText(name, left - 6, topPad + (i + 0.5) * rowH); });
    } else {
      g.fillText("link", left - 6, topPad + plotH / 2);
    }
    g.textAlign = "center";
    g.textBaseline = "top";
    var total = cols * Hm.column_ps;
    for (var t = 0; t <= 5; t++) {
      g.fillText(time(total * t / 5), left + plotW * t / 5, topPad + plotH + 4);
    }
    g.fillText("simulated time", left + plotW / 2, topPad + plotH + 19);
    var cell = {};
    Hm.cells.forEach(function (c) { cell[c[0] * cols + c[1]] = c[2]; });
    canvas.addEventListener("mousemove", function (ev) {
      var box = canvas.getBoundingClientRect();
      var x = (ev.clientX - box.left) * canvas.width / box.width - left;
      var y = (ev.clientY - box.top) * canvas.height / box.height - topPad;
      var i = Math.floor(y / rowH), j = Math.floor(x / cw);
      if (x < 0 || y < 0 || i >= rows || j >= cols) { hideTip(); return; }
      showTip(ev, Hm.rows[i] + ", " + time(j * Hm.column_ps) + " to " + time((j + 1) * Hm.column_ps) +
        ": busy " + pct(cell[i * cols + j] || 0));
    });
    canvas.addEventListener("mouseleave", hideTip);
    legend(document.getElementById("heat-legend"), hTop, "of the window busy");
  } else {
    canvas.height = 30;
    var g2 = canvas.getContext("2d");
    g2.font = "13px sans-serif";
    g2.fillText("No time series recorded (see above).", 10, 20);
  }
  document.body.dataset.errors = String(errors);
  document.body.dataset.ready = "yes";
})();
