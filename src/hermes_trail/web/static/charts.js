// hermes-trail charts: small inline SVG bar charts, drawn with DOM calls only (no library, no markup
// strings), so labels taken from the data stay text.
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var LETTER = 6.4;  // the advance of one character of a 10 px axis label, a little over a digit's

  function svg(tag, attrs, text) {
    var node = document.createElementNS(NS, tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, String(attrs[k])); });
    if (text !== undefined) node.textContent = String(text);
    return node;
  }

  // A step of 1, 2 or 5 times a power of ten that covers ``max`` in at most ``count`` steps; whole
  // numbers never get a fractional step (no "0, 1, 1" axis for counts).
  function niceStep(max, count, integer) {
    if (!(max > 0)) return 1;
    var raw = max / count;
    var power = Math.pow(10, Math.floor(Math.log10(raw)));
    var step = [1, 2, 5, 10].map(function (m) { return m * power; }).filter(function (s) { return s >= raw; })[0];
    return integer ? Math.max(1, Math.round(step)) : step;
  }

  // The axis: its top, its ticks, and how a tick reads. A duration in seconds is ticked in the unit its
  // size reads in (whole hours, minutes or seconds), never "41.7 h".
  function axis(max, data) {
    var scale = 1, suffix = null;
    if (data.unit === "seconds") {
      if (max >= 5400) { scale = 3600; suffix = " h"; }
      else if (max >= 90) { scale = 60; suffix = " min"; }
      else { suffix = " s"; }
    }
    var step = niceStep(max / scale, 4, data.integer || suffix !== null) * scale;
    var top = Math.max(step, Math.ceil(max / step - 1e-9) * step);
    var ticks = [];
    for (var v = 0; v <= top + step / 2; v += step) ticks.push(v);
    var label = suffix === null ? data.format : function (v) {
      var n = v / scale;
      return (Math.abs(n - Math.round(n)) < 1e-9 ? String(Math.round(n)) : n.toFixed(1)) + suffix;
    };
    return {top: top, ticks: ticks, label: label};
  }

  // Drawn at the width it is shown at (text keeps its size on a phone), 560 when not laid out yet.
  function plotWidth(plot) {
    var w = Math.round(plot.getBoundingClientRect().width);
    return w >= 240 ? Math.min(w, 900) : 560;
  }

  function total(series, i) {
    return series.reduce(function (sum, s) { return sum + (s.values[i] || 0); }, 0);
  }

  // every series has no value here (an unknown cost): no bar, and it reads "unknown"
  function unknown(series, i) {
    return series.every(function (s) { return s.values[i] === null || s.values[i] === undefined; }) &&
      series.some(function (s) { return s.values[i] === null; });
  }

  // The figure beside a bar: the sum of its series, "unknown" when none has a value, and a series drawn
  // ``apart`` (trail's estimate beside Hermes' costs) said after it, never added in.
  function valueText(series, i, fmt) {
    var own = series.filter(function (s) { return !s.apart; });
    var text = unknown(own, i) ? fmt(null) : fmt(total(own, i));
    series.forEach(function (s) {
      var v = s.values[i];
      if (s.apart && v !== null && v !== undefined) text += " + ~" + fmt(v) + " " + s.apart;
    });
    return text;
  }

  // Vertical stacked bars over an ordered axis (days).
  function columns(plot, data) {
    var labels = data.labels, series = data.series, fmt = data.format;
    var W = plotWidth(plot), H = 200, left = 56, bottom = 22, top = 8;
    var chart = svg("svg", {viewBox: "0 0 " + W + " " + H, class: "bars", role: "img"});
    var max = 0;
    labels.forEach(function (_, i) { max = Math.max(max, total(series, i)); });
    var scale = axis(max, data), peak = scale.top;
    var innerH = H - bottom - top, innerW = W - left - 4;
    scale.ticks.forEach(function (v) {
      var y = top + innerH * (1 - v / peak);
      chart.appendChild(svg("line", {x1: left, x2: W - 4, y1: y, y2: y, class: "grid"}));
      chart.appendChild(svg("text", {x: left - 6, y: y + 4, class: "axis tick", "text-anchor": "end"}, scale.label(v)));
    });
    var slot = innerW / Math.max(labels.length, 1);
    var width = Math.max(Math.min(slot * 0.8, 40), 1);
    labels.forEach(function (label, i) {
      var x = left + slot * i + (slot - width) / 2;
      var base = top + innerH;
      var group = svg("g", {class: "bar", "data-label": label});
      var tip = [label];
      series.forEach(function (s) {
        var v = s.values[i] || 0;
        var h = peak ? innerH * v / peak : 0;
        if (h > 0) {
          group.appendChild(svg("rect", {x: x, y: base - h, width: width, height: h, class: s.cls}));
          base -= h;
        }
        tip.push(s.name + ": " + fmt(s.values[i]));
      });
      if (data.notes && data.notes[i]) tip.push(data.notes[i]);
      if (data.empty && data.empty[i]) tip = [label, "no session"];
      group.appendChild(svg("rect", {x: left + slot * i, y: top, width: slot, height: innerH, class: "hit"}));
      group.appendChild(svg("title", {}, tip.join("\n")));
      chart.appendChild(group);
    });
    labelsUnder(chart, labels, {left: left, slot: slot, W: W, y: H - 6});
    plot.appendChild(chart);
  }

  // The labels under the columns: as many as fit side by side at the width drawn (at most seven), every
  // k-th one and always the last, each kept inside the chart (moved in near an edge, never cut off).
  function labelsUnder(chart, labels, at) {
    var width = function (i) { return String(labels[i]).length * LETTER + 2; };
    var widest = labels.reduce(function (m, _, i) { return Math.max(m, width(i)); }, 0);
    var every = Math.max(1, Math.ceil((widest + 12) / at.slot), Math.ceil(labels.length / 7));
    var shown = [];
    for (var i = 0; i < labels.length; i += every) shown.push(i);
    var last = labels.length - 1;
    if (shown[shown.length - 1] !== last) {
      if (shown.length > 1 && last - shown[shown.length - 1] < every) shown.pop();
      shown.push(last);
    }
    var placed = shown.map(function (i) {
      var half = width(i) / 2;
      return {i: i, x: Math.min(Math.max(at.left + at.slot * (i + 0.5), half), at.W - half), half: half};
    });
    // moved in at an edge, the last label may now touch the one before it: that one gives way
    if (placed.length > 1) {
      var a = placed[placed.length - 2], b = placed[placed.length - 1];
      if (a.x + a.half + 6 > b.x - b.half) placed.splice(placed.length - 2, 1);
    }
    placed.forEach(function (p) {
      chart.appendChild(svg("text", {x: p.x, y: at.y, class: "axis label", "text-anchor": "middle"}, labels[p.i]));
    });
  }

  // Horizontal stacked bars over categories (projects, models, profiles), biggest first.
  function rows(plot, data) {
    var labels = data.labels, series = data.series, fmt = data.format;
    var all = labels.map(function (_, i) { return i; })
      .sort(function (a, b) { return total(series, b) - total(series, a); });
    var order = all.slice(0, 12), rest = all.length - order.length;
    var W = plotWidth(plot), row = 20, labelW = Math.min(190, Math.round(W * 0.36));
    var H = (Math.max(order.length, 1) + (rest ? 1 : 0)) * row + 4;
    var chart = svg("svg", {viewBox: "0 0 " + W + " " + H, class: "bars horizontal", role: "img"});
    var max = 0;
    order.forEach(function (i) { max = Math.max(max, total(series, i)); });
    // room after the longest bar for the longest figure ("$1.00 + ~$4.50 trail" is wider than "22")
    var figures = order.map(function (i) { return valueText(series, i, fmt); });
    var figureRoom = figures.reduce(function (m, t) { return Math.max(m, t.length * LETTER + 8); }, 48);
    var innerW = Math.max(W - labelW - Math.min(figureRoom, W * 0.4), 20);
    order.forEach(function (i, r) {
      var y = r * row + 2;
      var room = Math.max(8, Math.floor(labelW / 6.2));
      var label = labels[i].length > room ? "…" + labels[i].slice(1 - room) : labels[i];
      var group = svg("g", {class: "bar", "data-label": labels[i]});
      group.appendChild(svg("text", {x: labelW - 6, y: y + 13, class: "axis", "text-anchor": "end"}, label));
      var x = labelW;
      var tip = [labels[i]];
      series.forEach(function (s) {
        var v = s.values[i] || 0;
        var w = max ? innerW * v / max : 0;
        if (w > 0) {
          group.appendChild(svg("rect", {x: x, y: y + 2, width: w, height: row - 6, class: s.cls}));
          x += w;
        }
        tip.push(s.name + ": " + fmt(s.values[i]));
      });
      group.appendChild(svg("text", {x: x + 4, y: y + 13, class: "value"}, figures[r]));
      if (data.notes && data.notes[i]) tip.push(data.notes[i]);
      group.appendChild(svg("title", {}, tip.join("\n")));
      chart.appendChild(group);
    });
    if (rest) {  // the groups past the first twelve are not drawn: say how many
      chart.appendChild(svg("text", {x: labelW - 6, y: order.length * row + 15, class: "axis more", "text-anchor": "end"},
                            "and " + rest + " more"));
    }
    plot.appendChild(chart);
  }

  function draw(figure, data) {
    var plot = figure.querySelector(".plot");
    plot.textContent = "";
    var legend = figure.querySelector(".legend");
    if (legend) legend.remove();
    if (!data.labels.length) {
      plot.appendChild(document.createTextNode("No sessions."));
      return;
    }
    var none = data.series.every(function (s) { return s.values.every(function (v) { return v === null; }); });
    if (none) {  // nothing known to draw (every cost unknown): said, never an axis of $0
      plot.appendChild(document.createTextNode("unknown for every session here"));
    } else {
      (data.horizontal ? rows : columns)(plot, data);
    }
    if (data.series.length > 1 || data.caption) {
      legend = document.createElement("div");
      legend.className = "legend";
      data.series.forEach(function (s) {
        var item = document.createElement("span");
        item.className = "key " + s.cls;
        item.textContent = s.name;
        legend.appendChild(item);
      });
      if (data.caption) {
        var note = document.createElement("span");
        note.className = "caption";
        note.textContent = data.caption;
        legend.appendChild(note);
      }
      figure.appendChild(legend);
    }
  }

  window.TrailCharts = {draw: draw};
})();
