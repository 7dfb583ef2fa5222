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
    var t = el("table", { class: "profile", id: "profile" });
    var head = el("tr");
    ["call, replayed MPI action or region", "share of the ranks' time", "count", "ranks", "least per rank", "mean per rank", "most per rank"].forEach(function (h) {
      head.appendChild(el("th", {}, h));
    });
    t.appendChild(head);
    D.profile.forEach(function (r) {
      var tr = el("tr");
      tr.appendChild(el("td", {}, (r.kind === "call" ? "" : r.kind + " ") + r.name));
      var share = el("td");
      share.appendChild(el("span", { class: "bar", style: "width:" + Math.round(100 * Math.min(1, r.share)) + "px" }));
      share.appendChild(document.createTextNode(" " + pct(r.share)));
      tr.appendChild(share);
      [String(r.count), String(r.ranks), time(r.min_ps), time(r.mean_ps), time(r.max_ps)].forEach(function (v) {
        tr.appendChild(el("td", {}, v));
      });
      t.appendChild(tr);
    });
    panel.appendChild(t);
  })();

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

  // --- timeline ---
  var tp = document.getElementById("timeline-panel");
  if (D.timeline) {
    tp.appendChild(el("img", { id: "timeline", src: D.timeline, alt: "timeline of the ranks" }));
  } else {
    tp.appendChild(el("p", { class: "note" }, "No timeline recorded (see above)."));
  }

  // --- topology, with the slider ---
  var T = D.topology, svg = document.getElementById("topology");
  var slider = document.getElementById("slider"), label = document.getElementById("frame-label");
  var play = document.getElementById("play");
  if (T && T.kind === "torus") {
    document.getElementById("topology-sub").textContent +=
      " A torus's wrap-around links are short stubs at the edge.";
  }
  if (T && T.routers.length) {
    var xs = T.routers.map(function (r) { return r[0]; }), ys = T.routers.map(function (r) { return r[1]; });
    var x0 = Math.min.apply(null, xs), x1 = Math.max.apply(null, xs);
    var y0 = Math.min.apply(null, ys), y1 = Math.max.apply(null, ys);
    var wUnits = Math.max(1, x1 - x0), hUnits = Math.max(1, y1 - y0);
    var scale = Math.max(6, Math.min(90, 1040 / (wUnits + 1), 620 / (hUnits + 1)));
    var pad = scale * 0.8;
    var W = wUnits * scale + 2 * pad, H = hUnits * scale + 2 * pad;
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
      var far = len > scale * 1.5 && T.kind !== "fattree" && T.kind !== "dragonfly";
      var off = Math.max(1, rr * 0.35);
      var ox = -uy * off, oy = ux * off;
      var line;
      if (far) {
        line = sel("line", { x1: ax + ox, y1: ay + oy, x2: ax - ux * scale * 0.4 + ox, y2: ay - uy * scale * 0.4 + oy });
      } else {
        line = sel("line", { x1: ax + ox, y1: ay + oy, x2: bx + ox, y2: by + oy });
      }
      line.setAttribute("stroke-width", Math.max(1, Math.min(4, scale * 0.06)));
      line.setAttribute("stroke-linecap", "round");
      line.dataset.name = l[3];
      svg.appendChild(line);
      return line;
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
