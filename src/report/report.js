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
  // a share as a percentage: one decimal from 1 %, two significant digits below (0.26 %)
  function pct(u) {
    var p = 100 * u;
    return (p === 0 || p >= 1 ? p.toFixed(1) : String(+p.toPrecision(2))) + " %";
  }
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
  // a colour scale from 0 to scale.top (mgensim picks the least round share above all but
  // the busiest hundredth of the values drawn: 100 % unless the load pictured is lighter); the
  // legend says where it stops, what the busiest value was, and how many were busier than
  // the top (drawn in its colour)
  function legend(box, scale, what, busiest, things) {
    box.textContent = "";
    box.appendChild(el("span", {}, "0 %"));
    var c = el("canvas", { width: 200, height: 12 });
    var g = c.getContext("2d");
    for (var i = 0; i < 200; i++) { g.fillStyle = colour(i / 199); g.fillRect(i, 0, 1, 12); }
    box.appendChild(c);
    box.appendChild(el("span", {}, pct(scale.top) + " " + what));
    if (scale.top < 1) {
      var above = scale.above ? "; " + scale.above + " of the " + scale.drawn + " " + things +
        " that were busy at all were busier than " + pct(scale.top) + ", drawn in its colour" : "";
      box.appendChild(el("span", { class: "stretched" }, "(the colours stop at " + pct(scale.top) +
        ", not at 100 %: " + busiest + " " + pct(scale.busiest) + above + ")"));
    }
  }
  // a note above a picture of a network whose busiest link (`busiest`, over the run) was busy
  // under 5 % of the run: it was nearly idle (`empty`: what to say when nothing was busy;
  // `which`: which links `busiest` is of)
  function idle(box, busiest, scale, empty, which) {
    if (busiest >= 0.05) return;
    var text = busiest === 0 ? empty : "The network was nearly idle: " + which + " was busy " +
      pct(busiest) + " of the run, and all link directions (NIC links included) " +
      pct(D.link_efficiency) + " on average; moving bytes took little of the run's time. " +
      (scale.top < 1 ? "The colours are stretched (the scale under the picture says how far) " +
      "so that what little load there was shows." : "");
    box.appendChild(el("p", { class: "idle", id: box.id + "-idle" }, text));
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
  // the ranks that had not finished, and why the run stopped in the words stderr gave (a
  // deadlock's detail: what each rank waits for, what is there instead, who had finished)
  if (D.unfinished.length || D.stop) {
    var box = el("div", { class: "alert", id: "stop-box" });
    var stuck = D.ranks - D.finished;
    box.appendChild(el("b", {}, D.unfinished.length ? stuck + (stuck === 1 ? " rank" : " ranks") +
      " had not finished when the run stopped" : "The run stopped early"));
    if (D.stop) {
      box.appendChild(el("pre", { class: "why", id: "stop" }, D.stop));
    }
    if (!D.stop_lists_ranks && D.unfinished.length) {
      var ul = el("ul");
      D.unfinished.slice(0, 16).forEach(function (u) {
        var what = u.state === "failed" ? " failed at " + time(u.since_ps) + ": " + u.waits_for :
          u.state === "blocked" ? " blocked since " + time(u.since_ps) + " in " + u.waits_for :
          " " + u.state + ", clock " + time(u.since_ps);
        ul.appendChild(el("li", {}, u.name + what + (u.at ? " (at " + u.at + ")" : "")));
      });
      box.appendChild(ul);
    }
    document.getElementById("stuck").appendChild(box);
  }

  // --- what the script measured (MGEN_report): a row per value, its spread as a bar ---
  (function () {
    if (!D.metrics.length) return;
    var at = document.getElementById("reported");
    at.appendChild(el("h2", {}, "What the script measured"));
    at.appendChild(el("p", { class: "sub" }, "The values the scripts reported with MGEN_report, " +
      "over the reports (one per call). The bar runs from the least to the most, the mark is the " +
      "mean; times (names ending in _s) share one axis, other values another."));
    var show = function (m, x) { return m.seconds ? time(Math.round(x * 1e12)) : String(+x.toPrecision(5)); };
    // each axis: 0 to the largest value of its kind, if none is negative
    var axis = {};
    D.metrics.forEach(function (m) {
      var k = m.seconds ? "s" : "n";
      axis[k] = Math.max(axis[k] || 0, m.max);
      if (m.min < 0) axis[k] = -Infinity;
    });
    var t = el("table", { class: "profile", id: "metrics" });
    var head = el("tr");
    ["value", "reports", "least", "mean", "most", ""].forEach(function (h) { head.appendChild(el("th", {}, h)); });
    t.appendChild(head);
    D.metrics.forEach(function (m) {
      var tr = el("tr");
      tr.appendChild(el("td", {}, m.name));
      [String(m.count), show(m, m.min), show(m, m.mean), show(m, m.max)].forEach(function (v) {
        tr.appendChild(el("td", {}, v));
      });
      var cell = el("td", { class: "range" });
      var top = axis[m.seconds ? "s" : "n"];
      if (top > 0) {
        var w = 260, px = function (x) { return Math.round(w * x / top); };
        var bar = el("span", { class: "spread", style: "width:" + w + "px" });
        bar.appendChild(el("span", { class: "span", style: "left:" + px(m.min) + "px;width:" +
          Math.max(2, px(m.max) - px(m.min)) + "px" }));
        bar.appendChild(el("span", { class: "mean", style: "left:" + Math.min(w - 2, px(m.mean)) + "px" }));
        cell.appendChild(bar);
      }
      tr.appendChild(cell);
      t.appendChild(tr);
    });
    var panel = el("div", { class: "panel" });
    panel.appendChild(t);
    at.appendChild(panel);
  })();
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
  // A colour per region name (in the order the names first appear), and the phases: the
  // k-th time the ranks shown entered a region of one name is one phase, from the first of
  // them in to the last out, laid in lanes so that phases that overlap (nested regions, ranks
  // skewed) do not cover each other.
  function phasesOf(T) {
    var REGION_RGB = [[31, 119, 180], [255, 127, 14], [44, 160, 44], [214, 39, 40], [148, 103, 189],
      [140, 86, 75], [227, 119, 194], [127, 127, 127], [188, 189, 34], [23, 190, 207]];
    var rgb = {}, names = [], seen = {}, byKey = {}, phases = [];
    T.regions.forEach(function (s) {
      var n = s[3];
      if (!(n in rgb)) { rgb[n] = REGION_RGB[names.length % REGION_RGB.length]; names.push(n); }
      var k = (seen[s[0] + ":" + n] = (seen[s[0] + ":" + n] || 0) + 1);
      var key = n + ":" + k, p = byKey[key];
      if (!p) { p = byKey[key] = { text: n, k: k, a: s[1], b: s[2], ranks: 0 }; phases.push(p); }
      p.a = Math.min(p.a, s[1]);
      p.b = Math.max(p.b, s[2]);
      p.ranks += 1;
    });
    // a name the ranks entered more than once is numbered: line-up #2
    var most = {};
    phases.forEach(function (p) { most[p.text] = Math.max(most[p.text] || 0, p.k); });
    phases.forEach(function (p) { p.label = T.texts[p.text] + (most[p.text] > 1 ? " #" + p.k : ""); });
    phases.sort(function (p, q) { return p.a - q.a || q.b - p.b; });
    // (each phase knows the next in its lane: its name may run on into the room before it)
    var ends = [], last = [], LANES = 4;
    phases.forEach(function (p) {
      var lane = ends.findIndex(function (e) { return e <= p.a; });
      if (lane < 0 && ends.length < LANES) lane = ends.length;
      if (lane < 0) lane = ends.indexOf(Math.min.apply(null, ends));
      p.lane = lane;
      ends[lane] = Math.max(ends[lane] || 0, p.b);
      if (last[lane]) last[lane].next = p;
      last[lane] = p;
    });
    return { rgb: rgb, names: names, phases: phases, lanes: ends.length };
  }
  function rgba(c, a) { return "rgba(" + c.join(",") + "," + a + ")"; }

  function timeline(box, T) {
    var rows = T.rows.length;
    var rowH = rows <= 16 ? 30 : rows <= 32 ? 26 : rows <= 64 ? 14 : 9;
    // (with room for region names, the spans sit in the lower part of the row)
    var barY = rowH >= 26 ? 0.45 : 0.28, barH = rowH >= 26 ? 0.42 : 0.44;
    var P = phasesOf(T), laneH = 18;
    var left = 110, right = 12, top = 8 + (P.lanes ? P.lanes * laneH + 8 : 0), axis = 34, W = 1100,
      plotW = W - left - right;
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
    box.appendChild(keys);
    if (P.names.length) {
      var regionKeys = el("div", { class: "legend", id: "region-keys", style: "flex-wrap: wrap; gap: 4px 14px" });
      regionKeys.appendChild(el("span", {}, "Regions (a band behind each rank's calls; above the " +
        "ranks, each from the first rank in to the last out):"));
      keys = regionKeys;
      P.names.slice(0, 16).forEach(function (n) {
        key("background:" + rgba(P.rgb[n], 0.35) + ";border:1px solid " + rgba(P.rgb[n], 1), T.texts[n]);
      });
      if (P.names.length > 16) key("", "and " + (P.names.length - 16) + " more (hover for their names)");
      box.appendChild(regionKeys);
    }
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
          var c = P.rgb[s[3]];
          var band = sel("rect", { x: a, y: y + 1, width: Math.max(1, b - a), height: rowH - 2,
            fill: rgba(c, 0.25), stroke: rgba(c, 0.9), "stroke-width": 0.6 });
          band.setAttribute("class", "region");
          g.appendChild(band);
          var label = T.texts[s[3]];
          if (rowH >= 26 && b - a > 6 * label.length + 6) {
            var t = sel("text", { x: a + 3, y: y + 11, "font-size": 10, fill: "#222" });
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
      // the phases, above the ranks, each with its name where it fits
      if (P.lanes) {
        var lanesTop = 8;
        var cap = sel("text", { x: left - 6, y: lanesTop + 12, "text-anchor": "end", "font-size": 11, fill: "#555" });
        cap.textContent = "regions";
        svg.appendChild(cap);
        P.phases.forEach(function (p, i) {
          if (p.b < v0 || p.a > v1) return;
          var a = Math.max(left, x(p.a)), b = Math.min(left + plotW, x(p.b)), y = lanesTop + p.lane * laneH;
          var c = P.rgb[p.text];
          var strip = sel("rect", { x: a, y: y + 1, width: Math.max(1, b - a), height: laneH - 3,
            fill: rgba(c, 0.35), stroke: rgba(c, 1), "stroke-width": 0.8 });
          strip.setAttribute("class", "phase");
          strip.dataset.phase = i;
          g.appendChild(strip);
          // its name on it, running on to the next phase of its lane
          var room = p.next && p.next.a > p.b ? Math.min(left + plotW, x(p.next.a)) : b;
          var fits = Math.floor((Math.max(b, room) - a - 6) / 6.2);
          if (fits >= 3) {
            var t = sel("text", { x: a + 3, y: y + 12, "font-size": 11, fill: "#111",
              stroke: "rgba(255,255,255,0.8)", "stroke-width": 3, "paint-order": "stroke" });
            t.setAttribute("class", "phase-name");
            t.dataset.phase = i;
            t.textContent = p.label.length <= fits ? p.label : p.label.slice(0, fits - 1) + "\u2026";
            g.appendChild(t);
          }
        });
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
      var ph = ev.target.dataset && ev.target.dataset.phase;
      if (ph !== undefined && !dragFrom) {
        var q = P.phases[+ph];
        showTip(ev, q.label + ": " + time(Math.round(q.a * 1e6)) + " to " + time(Math.round(q.b * 1e6)) +
          " (" + time(Math.round((q.b - q.a) * 1e6)) + ", from the first of " + q.ranks +
          " ranks in to the last out)");
      } else if (p.px >= left && p.r >= 0 && p.r < rows) showTip(ev, describe(p.r, p.t));
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
    // (room for the arcs of a HyperX's longer links: a link d units long bows 0.11 d off its
    // row or column, half its control point's 0.22 d)
    var bow = 0;
    if (T.far_links === "arc") {
      T.links.forEach(function (l) {
        var a = T.routers[l[0]], b = T.routers[l[1]];
        var d = Math.sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]));
        if (d > 1.5) bow = Math.max(bow, d * 0.11);
      });
    }
    var pad = Math.max(scale * 0.8, bow * scale + Math.min(16, scale * 0.16) + 6);
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
    var nodes = T.routers.map(function (r, i) {
      var c = sel("circle", { cx: px(r[0]), cy: py(r[1]), r: rr, stroke: "#333", "stroke-width": 0.6 });
      c.dataset.name = "router " + i + " " + r[2];
      svg.appendChild(c);
      return c;
    });
    // a graph's routers are named by their numbers alone: each drawn beside its router (up to
    // 512 of them; beyond, the tooltip says it)
    if (T.numbered && T.routers.length <= 512) {
      var fs = Math.max(8, Math.min(13, rr * 1.3));
      T.routers.forEach(function (r, i) {
        var t = sel("text", { x: px(r[0]) + rr * 0.7, y: py(r[1]) - rr * 0.7, "font-size": fs,
          fill: "#111", "font-weight": "bold", stroke: "#fff", "stroke-width": 3, "stroke-linejoin": "round",
          "paint-order": "stroke", "pointer-events": "none" });
        t.setAttribute("class", "router-number");
        t.textContent = String(i);
        svg.appendChild(t);
      });
    }
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
      var top = (whole ? T.scale : T.frame_scale).top;
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
        time(k * T.frame_ps) + " to " + time((k + 1) * T.frame_ps) +
        (T.frames[k].length ? "" : ": no link between routers was busy");
      // (a window's load has its own scale: it may be far above the run's)
      if (whole) {
        legend(topoLegend, T.scale, "of the run busy", "the busiest link direction or router was busy",
          "link directions and routers");
      } else {
        legend(topoLegend, T.frame_scale, "of the window busy",
          "the busiest link direction in any window was busy", "(link, window) pairs");
      }
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
    var topoLegend = document.getElementById("topo-legend");
    idle(document.getElementById("topology-note"),
      T.links.reduce(function (m, l) { return Math.max(m, l[2]); }, 0), T.scale,
      "No link between routers carried anything over the run (messages that stay within a node " +
      "cross none).", "the busiest link direction between routers");
    // a link to one frame: report.html#frame=K
    var asked = /frame=(\d+)/.exec(location.hash);
    var first = asked ? Math.min(frames, +asked[1]) : frames;
    slider.value = String(first);
    show(first);
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
    var left = 240, right = 10, topPad = 10, bottom = 34;
    var rowH = Math.max(2, Math.min(18, Math.floor(560 / rows)));
    var width = 1100, plotW = width - left - right, plotH = rowH * rows;
    canvas.width = width;
    canvas.height = plotH + topPad + bottom;
    var g = canvas.getContext("2d");
    g.fillStyle = "#fff";
    g.fillRect(0, 0, canvas.width, canvas.height);
    g.fillStyle = colour(0);
    g.fillRect(left, topPad, plotW, plotH);
    var cw = plotW / cols, hTop = Hm.scale.top;
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
      // too many rows to name each: the router whose links begin at a row names it, with a
      // tick, as many as fit 12 pixels apart (the tooltip names every row)
      var lastY = -1e9;
      g.strokeStyle = "#888";
      Hm.groups.forEach(function (gr) {
        var y = topPad + gr[0] * rowH;
        if (y - lastY < 12) return;
        lastY = y;
        g.beginPath();
        g.moveTo(left - 4, y + 0.5);
        g.lineTo(left, y + 0.5);
        g.stroke();
        g.textBaseline = "top";
        g.fillText(gr[1], left - 6, y);
      });
      g.textBaseline = "middle";
    }
    g.textAlign = "center";
    g.textBaseline = "top";
    var total = cols * Hm.column_ps;
    for (var t = 0; t <= 5; t++) {
      // (the last label ends at the plot's edge: centred, the page's edge cut it)
      g.textAlign = t === 5 ? "right" : "center";
      g.fillText(time(total * t / 5), left + plotW * t / 5, topPad + plotH + 4);
    }
    g.textAlign = "center";
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
    legend(document.getElementById("heat-legend"), Hm.scale, "of the window busy",
      "the busiest cell was busy", "cells");
    idle(document.getElementById("heat-note"), D.busiest_link, Hm.scale,
      "No link carried anything over the run.", "the busiest link direction");
  } else {
    canvas.height = 30;
    var g2 = canvas.getContext("2d");
    g2.font = "13px sans-serif";
    g2.fillText("No time series recorded (see above).", 10, 20);
  }
  document.body.dataset.errors = String(errors);
  document.body.dataset.ready = "yes";
})();
