// hermes-trail dashboard: every session of every profile, filters, search as you type, and charts.
// Everything from the stores reaches the page as text (textContent), never as markup.
(function () {
  "use strict";

  var PAGE = 100;
  var state = {offset: 0, by: "day", facetsDrawn: false, searchSeq: 0, statsTimer: null};
  var FILTERS = ["profile", "project", "source", "model", "from", "to", "text"];

  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function compact(n) {
    n = n || 0;
    if (n >= 1e9) return (n / 1e9).toFixed(1) + "B";
    if (n >= 1e6) return (n / 1e6).toFixed(1) + "M";
    if (n >= 1e4) return Math.round(n / 1e3) + "k";
    if (n >= 1e3) return (n / 1e3).toFixed(1) + "k";
    return String(Math.round(n));
  }
  function usd(n) {
    if (!n) return "$0";
    return n < 0.01 ? "$" + n.toFixed(4) : "$" + n.toLocaleString("en-US", {minimumFractionDigits: 2, maximumFractionDigits: 2});
  }
  function hours(seconds) {
    if (!seconds) return "0";
    if (seconds < 60) return (seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)) + " s";
    if (seconds < 3600) return Math.round(seconds / 60) + " min";
    return (seconds / 3600).toFixed(1) + " h";
  }
  function when(iso) {
    if (!iso) return "";
    var d = new Date(iso);
    var pad = function (n) { return (n < 10 ? "0" : "") + n; };
    return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " + pad(d.getHours()) + ":" + pad(d.getMinutes());
  }

  function filters() {
    var out = {};
    FILTERS.forEach(function (name) {
      var v = $("f-" + name).value;
      if (v) out[name] = v;
    });
    return out;
  }

  function query(extra) {
    var params = new URLSearchParams(filters());
    Object.keys(extra || {}).forEach(function (k) { params.set(k, extra[k]); });
    return params.toString();
  }

  function getJSON(url) {
    return fetch(url, {credentials: "same-origin"}).then(function (r) {
      return r.json().then(function (body) {
        if (!r.ok) throw new Error(body.error || r.statusText);
        return body;
      });
    });
  }

  function sessionHref(ref, row) {
    return "/session?ref=" + encodeURIComponent(ref) + (row !== undefined && row !== null ? "#row-" + row : "");
  }

  // ---- sessions -----------------------------------------------------------------------------------
  function drawFacets(facets) {
    ["profile", "project", "source", "model"].forEach(function (name) {
      var select = $("f-" + name);
      var keep = select.value;
      while (select.options.length > 1) select.remove(1);
      (facets[name] || []).forEach(function (pair) {
        var option = el("option", null, (pair[0] || "(none)") + " (" + pair[1] + ")");
        option.value = pair[0];
        select.appendChild(option);
      });
      select.value = keep;
    });
  }

  function drawTable(data) {
    var body = $("table").querySelector("tbody");
    body.textContent = "";
    data.sessions.forEach(function (s) {
      var tr = el("tr", "session-row");
      tr.setAttribute("data-ref", s.ref);
      var title = el("td", "title");
      var a = el("a", null, s.title || "(untitled) " + s.id);
      a.href = sessionHref(s.ref);
      title.appendChild(a);
      if (s.relation && s.relation !== "root") title.appendChild(el("span", "rel", s.relation));
      var tokens = s.tokens.input === null && s.tokens.output === null ? "" : compact(s.tokens.input) + "/" + compact(s.tokens.output);
      [el("td", "when", when(s.last_activity_at)), title, el("td", "project", s.project), el("td", null, s.profile),
       el("td", null, s.source || ""), el("td", null, s.model || ""), el("td", "num", s.messages === null ? "" : s.messages),
       el("td", "num", tokens), el("td", "num" + (s.cost === null ? " unknown" : ""), s.cost === null ? "unknown" : usd(s.cost))
      ].forEach(function (td) { tr.appendChild(td); });
      tr.addEventListener("click", function (ev) { if (ev.target.tagName !== "A") location.href = sessionHref(s.ref); });
      body.appendChild(tr);
    });
    $("count").textContent = data.total === data.all ? data.all + " sessions" : data.total + " of " + data.all + " sessions";
    var last = Math.min(data.offset + PAGE, data.total);
    $("page").textContent = data.total ? (data.offset + 1) + "–" + last : "no session matches";
    $("prev").disabled = data.offset <= 0;
    $("next").disabled = last >= data.total;
    var notes = $("notes");
    notes.textContent = "";
    if (data.demo) notes.appendChild(el("p", "note", "No Hermes home was found: this is the demo home bundled with hermes-trail."));
    data.skipped.forEach(function (s) { notes.appendChild(el("p", "note warn", "skipped " + s.where + ": " + s.reason)); });
  }

  function loadSessions() {
    return getJSON("/api/sessions?" + query({offset: state.offset, limit: PAGE})).then(function (data) {
      if (!state.facetsDrawn) { drawFacets(data.facets); state.facetsDrawn = true; applyUrl(); }
      drawTable(data);
      if (document.body.getAttribute("data-sessions") !== "ready" && window.performance && performance.mark) {
        performance.mark("trail-sessions");
      }
      document.body.setAttribute("data-sessions", "ready");
    }).catch(function (e) { $("notes").textContent = "Could not list the sessions: " + e.message; });
  }

  // ---- stats --------------------------------------------------------------------------------------
  function card(label, value, sub) {
    var box = el("div", "card");
    box.appendChild(el("div", "label", label));
    box.appendChild(el("div", "value", value));
    if (sub) box.appendChild(el("div", "sub", sub));
    return box;
  }

  function drawStats(stats) {
    if (!document.body.hasAttribute("data-stats") && window.performance && performance.mark) performance.mark("trail-charts");
    var all = stats.overall, t = all.tokens;
    var cards = $("cards");
    cards.textContent = "";
    cards.appendChild(card("sessions", all.sessions.toLocaleString("en-US"),
      all.measured === all.sessions ? all.turns.toLocaleString("en-US") + " turns · " + all.tool_calls.toLocaleString("en-US") + " tool calls" : "reading messages…"));
    cards.appendChild(card("tokens", compact(t.input + t.output + t.reasoning),
      "in " + compact(t.input) + " · out " + compact(t.output) + " · reasoning " + compact(t.reasoning) +
      " · cache read " + compact(t.cache_read) + " · write " + compact(t.cache_write)));
    cards.appendChild(card("cost", usd(all.cost.usd),
      all.cost.unknown ? all.cost.unknown + " session(s) with unknown cost (not counted as $0)" : "every cost known"));
    cards.appendChild(card("active time", all.measured ? hours(all.active_seconds) : "…",
      all.measured < all.sessions ? "measured " + all.measured + " of " + all.sessions + " sessions" : all.failing_commands + " failing command(s)"));
    var groups = stats.groups;
    var labels = groups.map(function (g) { return g.key; });
    var horizontal = stats.by !== "day";
    var pick = function (f) { return groups.map(f); };
    var notes = pick(function (g) { return g.cost.unknown ? g.cost.unknown + " with unknown cost" : ""; });
    TrailCharts.draw($("c-sessions"), {labels: labels, horizontal: horizontal, format: compact,
      series: [{name: "sessions", cls: "s-sessions", values: pick(function (g) { return g.sessions; })}]});
    TrailCharts.draw($("c-tokens"), {labels: labels, horizontal: horizontal, format: compact, series: [
      {name: "input", cls: "s-input", values: pick(function (g) { return g.tokens.input; })},
      {name: "output", cls: "s-output", values: pick(function (g) { return g.tokens.output; })},
      {name: "reasoning", cls: "s-reasoning", values: pick(function (g) { return g.tokens.reasoning; })}]});
    TrailCharts.draw($("c-cache"), {labels: labels, horizontal: horizontal, format: compact, series: [
      {name: "cache read", cls: "s-cache-read", values: pick(function (g) { return g.tokens.cache_read; })},
      {name: "cache write", cls: "s-cache-write", values: pick(function (g) { return g.tokens.cache_write; })}]});
    TrailCharts.draw($("c-cost"), {labels: labels, horizontal: horizontal, format: usd, notes: notes,
      caption: all.cost.unknown ? all.cost.unknown + " session(s) of unknown cost are not in these bars" : "",
      series: [{name: "known cost", cls: "s-cost", values: pick(function (g) { return g.cost.usd; })}]});
    TrailCharts.draw($("c-active"), {labels: labels, horizontal: horizontal, format: hours,
      caption: all.measured < all.sessions ? "measuring: " + all.measured + " of " + all.sessions + " sessions read" : "",
      series: [{name: "active time", cls: "s-active", values: pick(function (g) { return g.active_seconds; })}]});
    var m = stats.measuring;
    $("measuring").textContent = m.done < m.total ? "reading messages: " + m.done + " / " + m.total : "";
    document.body.setAttribute("data-stats", m.done < m.total ? "partial" : "ready");
  }

  function loadStats() {
    clearTimeout(state.statsTimer);
    return getJSON("/api/stats?" + query({by: state.by})).then(function (stats) {
      drawStats(stats);
      if (stats.measuring.done < stats.measuring.total) state.statsTimer = setTimeout(loadStats, 1500);
    }).catch(function (e) { $("measuring").textContent = "stats: " + e.message; });
  }

  // ---- search -------------------------------------------------------------------------------------
  function snippet(text) {
    // «» mark the matches: each marked part becomes a <mark>, the rest stays text
    var box = el("span", "snippet");
    text.replace(/\n/g, " ").split("\u00ab").forEach(function (part, i) {
      if (i === 0) { box.appendChild(document.createTextNode(part)); return; }
      var end = part.indexOf("\u00bb");
      if (end < 0) { box.appendChild(document.createTextNode(part)); return; }
      box.appendChild(el("mark", null, part.slice(0, end)));
      box.appendChild(document.createTextNode(part.slice(end + 1)));
    });
    return box;
  }

  function drawResults(result) {
    var box = $("results");
    box.textContent = "";
    box.hidden = false;
    var missing = (result.missing || []).join(", ");
    if (!result.conversations.length) {
      box.appendChild(el("p", "none", "No match for " + result.query + "." + (missing ? " Not found anywhere: " + missing + "." : "")));
      return;
    }
    if (missing) box.appendChild(el("p", "missing", "Not found anywhere: " + missing + "; showing what the other words find."));
    result.conversations.forEach(function (c) {
      var best = c.hits[0];
      var item = el("article", "conversation");
      var head = el("div", "conv-head");
      var a = el("a", "conv-title", best.title || "(untitled) " + best.session_id);
      a.href = sessionHref(best.ref, best.row);
      head.appendChild(a);
      head.appendChild(el("span", "where", [best.project, best.profile, best.source || "?"].join(" · ")));
      item.appendChild(head);
      c.hits.forEach(function (h) {
        var line = el("a", "hit");
        line.href = sessionHref(h.ref, h.row);
        line.appendChild(el("span", "when", when(h.time)));
        line.appendChild(el("span", "kind", h.kind + (h.kind === "command" && h.exit_code !== null ? " exit " + h.exit_code : "")));
        line.appendChild(snippet(h.snippet));
        item.appendChild(line);
      });
      item.appendChild(el("code", "resume", best.resume));
      box.appendChild(item);
    });
    var more = result.truncated ? " (more not shown)" : "";
    box.appendChild(el("p", "meta", result.matches + (result.matches === 1 ? " matching turn in " : " matching turns in ") + Math.round(result.seconds * 1000) + " ms" + more));
  }

  function search() {
    var words = $("search").value.trim();
    var seq = ++state.searchSeq;
    if (!words) { $("results").hidden = true; $("results").textContent = ""; return; }
    getJSON("/api/search?" + query({q: words, limit: 10})).then(function (result) {
      if (seq === state.searchSeq) { drawResults(result); document.body.setAttribute("data-search", words); }
    }).catch(function (e) {
      if (seq === state.searchSeq) { $("results").hidden = false; $("results").textContent = "Search failed: " + e.message; }
    });
  }

  // ---- wiring -------------------------------------------------------------------------------------
  function applyUrl() {
    var params = new URLSearchParams(location.search);
    FILTERS.forEach(function (name) { if (params.get(name)) $("f-" + name).value = params.get(name); });
  }

  function refresh() {
    state.offset = 0;
    var params = new URLSearchParams(filters());
    history.replaceState(null, "", params.toString() ? "?" + params.toString() : location.pathname);
    loadSessions();
    loadStats();
    if ($("search").value.trim()) search();
  }

  var timer = null;
  $("search").addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(search, 180); });
  $("search").addEventListener("keydown", function (ev) { if (ev.key === "Escape") { $("search").value = ""; search(); } });
  FILTERS.forEach(function (name) {
    $("f-" + name).addEventListener(name === "text" ? "input" : "change", function () {
      clearTimeout(timer);
      timer = setTimeout(refresh, name === "text" ? 200 : 0);
    });
  });
  $("f-clear").addEventListener("click", function () { FILTERS.forEach(function (n) { $("f-" + n).value = ""; }); refresh(); });
  $("prev").addEventListener("click", function () { state.offset = Math.max(0, state.offset - PAGE); loadSessions(); });
  $("next").addEventListener("click", function () { state.offset += PAGE; loadSessions(); });
  document.querySelectorAll(".tabs button").forEach(function (button) {
    button.addEventListener("click", function () {
      document.querySelectorAll(".tabs button").forEach(function (b) { b.classList.toggle("on", b === button); });
      state.by = button.getAttribute("data-by");
      loadStats();
    });
  });

  applyUrl();
  loadSessions().then(function () { loadStats(); });
})();
