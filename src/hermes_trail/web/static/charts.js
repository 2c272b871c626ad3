// hermes-trail charts: small inline SVG bar charts, drawn with DOM calls only (no library, no markup
// strings), so labels taken from the data stay text.
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";

  function svg(tag, attrs, text) {
    var node = document.createElementNS(NS, tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, String(attrs[k])); });
    if (text !== undefined) node.textContent = String(text);
    return node;
  }

  function nice(max) {
    if (max <= 0) return 1;
    var step = Math.pow(10, Math.floor(Math.log10(max)));
    var top = Math.ceil(max / step) * step;
    return top;
  }

  function total(series, i) {
    return series.reduce(function (sum, s) { return sum + (s.values[i] || 0); }, 0);
  }

  // Vertical stacked bars over an ordered axis (days).
  function columns(plot, data) {
    var labels = data.labels, series = data.series, fmt = data.format;
    var W = 560, H = 200, left = 56, bottom = 22, top = 8;
    var chart = svg("svg", {viewBox: "0 0 " + W + " " + H, class: "bars", role: "img"});
    var max = 0;
    labels.forEach(function (_, i) { max = Math.max(max, total(series, i)); });
    var peak = nice(max);
    var innerH = H - bottom - top, innerW = W - left - 4;
    [0, 0.5, 1].forEach(function (f) {
      var y = top + innerH * (1 - f);
      chart.appendChild(svg("line", {x1: left, x2: W - 4, y1: y, y2: y, class: "grid"}));
      chart.appendChild(svg("text", {x: left - 6, y: y + 4, class: "axis", "text-anchor": "end"}, fmt(peak * f)));
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
        tip.push(s.name + ": " + fmt(v));
      });
      if (data.notes && data.notes[i]) tip.push(data.notes[i]);
      group.appendChild(svg("rect", {x: left + slot * i, y: top, width: slot, height: innerH, class: "hit"}));
      group.appendChild(svg("title", {}, tip.join("\n")));
      chart.appendChild(group);
    });
    var shown = labels.length <= 8 ? labels.map(function (_, i) { return i; })
      : [0, Math.floor((labels.length - 1) / 2), labels.length - 1];
    shown.forEach(function (i) {
      chart.appendChild(svg("text", {x: left + slot * (i + 0.5), y: H - 6, class: "axis", "text-anchor": "middle"},
                            labels[i]));
    });
    plot.appendChild(chart);
  }

  // Horizontal stacked bars over categories (projects, models, profiles), biggest first.
  function rows(plot, data) {
    var labels = data.labels, series = data.series, fmt = data.format;
    var order = labels.map(function (_, i) { return i; })
      .sort(function (a, b) { return total(series, b) - total(series, a); }).slice(0, 12);
    var W = 560, row = 20, labelW = 190, H = Math.max(order.length, 1) * row + 4;
    var chart = svg("svg", {viewBox: "0 0 " + W + " " + H, class: "bars horizontal", role: "img"});
    var max = 0;
    order.forEach(function (i) { max = Math.max(max, total(series, i)); });
    var innerW = W - labelW - 80;
    order.forEach(function (i, r) {
      var y = r * row + 2;
      var label = labels[i].length > 30 ? "…" + labels[i].slice(-29) : labels[i];
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
        tip.push(s.name + ": " + fmt(v));
      });
      group.appendChild(svg("text", {x: x + 4, y: y + 13, class: "value"}, fmt(total(series, i))));
      if (data.notes && data.notes[i]) tip.push(data.notes[i]);
      group.appendChild(svg("title", {}, tip.join("\n")));
      chart.appendChild(group);
    });
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
    (data.horizontal ? rows : columns)(plot, data);
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
