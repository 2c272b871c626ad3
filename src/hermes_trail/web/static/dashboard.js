// hermes-trail dashboard: every session of every profile, filters, search as you type, and charts.
// Everything from the stores reaches the page as text (textContent), never as markup.
(function () {
  "use strict";

  var PAGE = 100;
  var state = {offset: 0, by: "day", facetsDrawn: false, searchSeq: 0, statsTimer: null};
  var FILTERS = ["profile", "project", "source", "model", "from", "to", "text"];
  var SELECTS = ["profile", "project", "source", "model"];
  var BYS = ["day", "project", "model", "profile", "source"];

  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  // Bidirectional controls in a value shown (a project path, a model name) written as escapes, as the
  // server writes them in titles: a U+202E cannot reorder what follows it.
  function shown(text) {
    return String(text).replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, function (c) {
      return "\\u" + c.charCodeAt(0).toString(16);
    });
  }

  // 1.2M, 15k, 5k (not "5.0k": an axis of whole thousands reads 0, 5k, 10k)
  // A count and its noun, singular for one: "1 session", "3 sessions".
  function counted(n, noun, many) { return n.toLocaleString("en-US") + " " + (n === 1 ? noun : (many || noun + "s")); }

  function compact(n) {
    n = n || 0;
    var one = function (v, unit) { return v.toFixed(1).replace(/\.0$/, "") + unit; };
    if (n >= 1e9) return one(n / 1e9, "B");
    if (n >= 1e6) return one(n / 1e6, "M");
    if (n >= 1e4) return Math.round(n / 1e3) + "k";
    if (n >= 1e3) return one(n / 1e3, "k");
    return String(Math.round(n));
  }
  // null is an unknown cost: never written as $0
  function usd(n) {
    if (n === null || n === undefined) return "unknown";
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
    if ($("f-estimate").checked) out.estimate = "1";
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
        var option = el("option", null, shown(pair[0] || "(none)") + " (" + pair[1] + ")");
        option.value = pair[0];
        select.appendChild(option);
      });
      keepOption(select, keep);
      select.value = keep;
    });
  }

  // A select takes a value only when it has that option: one for a value from the address, before the
  // facets arrive (or when no session has it any more), so the first request already carries it.
  function keepOption(select, value) {
    if (!value) return;
    for (var i = 0; i < select.options.length; i++) if (select.options[i].value === value) return;
    var option = el("option", null, shown(value) + " (0)");
    option.value = value;
    select.appendChild(option);
  }

  // A session's cost: Hermes' actual figure, Hermes' estimate ("est."), or unknown, with trail's estimate
  // beside an unknown one only when asked, and always said to be trail's.
  function costCell(s) {
    if (s.cost !== null) {
      var td = el("td", "num cost-" + (s.cost_kind || "known"), usd(s.cost) + (s.cost_kind === "estimated" ? " est." : ""));
      td.title = s.cost_kind === "estimated" ? "estimated by Hermes" : s.cost_kind === "zero" ? "a real $0 Hermes vouches for" : "actual cost, as Hermes recorded it";
      return td;
    }
    if (s.estimate !== undefined && s.estimate !== null) {
      var guess = el("td", "num unknown estimate", "~" + usd(s.estimate) + " trail");
      guess.title = "unknown to Hermes; estimated by trail from Hermes' pricing table";
      return guess;
    }
    var none = el("td", "num unknown", "unknown");
    none.title = "Hermes recorded no cost for this session";
    return none;
  }

  // A cell cut short by the column's width keeps its whole text in its tooltip.
  function cell(cls, text) {
    var td = el("td", cls, text);
    td.title = text;
    return td;
  }

  function drawTable(data) {
    var body = $("table").querySelector("tbody");
    body.textContent = "";
    data.sessions.forEach(function (s) {
      var tr = el("tr", "session-row");
      tr.setAttribute("data-ref", s.ref);
      var title = el("td", "title");
      var a = el("a", s.title || !s.opening ? null : "opening", s.title || s.opening || "(untitled) " + s.id);
      a.href = sessionHref(s.ref);
      title.title = a.textContent;
      title.appendChild(a);
      if (s.relation && s.relation !== "root") title.appendChild(el("span", "rel", s.relation));
      var tokens = s.tokens.input === null && s.tokens.output === null ? "" : compact(s.tokens.input) + "/" + compact(s.tokens.output);
      [el("td", "when", when(s.last_activity_at)), title, cell("project", shown(s.project)), el("td", null, s.profile),
       el("td", null, shown(s.source || "")), cell("model", shown(s.model || "")), el("td", "num", s.messages === null ? "" : s.messages),
       el("td", "num", tokens), costCell(s)
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
    var indexNote = el("p", "note indexing");
    indexNote.id = "indexing";
    notes.appendChild(indexNote);
    if (data.index) drawIndexing(data.index);
  }

  // ---- the search index's first build -----------------------------------------------------------------
  function indexingText(ix) {
    if (ix.state === "failed") return "The search index could not be built: " + ix.error;
    if (ix.state !== "building") return "";
    var part = ix.total ? Math.floor(ix.done * 100 / ix.total) + "% (" + ix.done.toLocaleString("en-US") + " of " +
      ix.total.toLocaleString("en-US") + " messages)" : "starting";
    return "Building the search index: " + part + ". The sessions and charts are ready; search works when it is done.";
  }

  function drawIndexing(ix) {
    var note = $("indexing");
    if (note) note.textContent = indexingText(ix);
    document.body.setAttribute("data-index", ix.state);
    clearTimeout(state.indexTimer);
    if (ix.state === "building") {
      state.indexTimer = setTimeout(function () {
        getJSON("/api/index").then(function (next) {
          drawIndexing(next);
          if (next.state !== "building" && $("search").value.trim()) search();
        }).catch(function () { state.indexTimer = setTimeout(function () { drawIndexing(ix); }, 3000); });
      }, 1000);
    }
  }

  // The first page is asked for by the page itself, before its scripts load (a preload of
  // /api/sessions with the address's own query, web/server.py); its answer says which view it is, and is
  // used only when that is the view the filters now show.
  function preloaded() {
    var q = location.search.slice(1);
    return "/api/sessions?" + (q ? q + "&" : "") + "limit=" + PAGE;
  }

  function sameView(view) {
    var mine = filters();
    if (!view || view.offset !== state.offset || !!view.estimate !== (mine.estimate === "1")) return false;
    return FILTERS.every(function (name) { return (view.filters[name] || "") === (mine[name] || ""); });
  }

  function loadSessions(first) {
    var url = first ? preloaded() : "/api/sessions?" + query({offset: state.offset, limit: PAGE});
    return getJSON(url).then(function (data) {
      if (first && !sameView(data.view)) return loadSessions(false);
      if (!state.facetsDrawn) { drawFacets(data.facets); state.facetsDrawn = true; }
      drawTable(data);
      if (document.body.getAttribute("data-sessions") !== "ready" && window.performance && performance.mark) {
        performance.mark("trail-sessions");
      }
      document.body.setAttribute("data-sessions", "ready");
    }).catch(function (e) {
      if (first) return loadSessions(false);
      $("notes").textContent = "Could not list the sessions: " + e.message;
    });
  }

  // ---- stats --------------------------------------------------------------------------------------
  function card(label, value, sub) {
    var box = el("div", "card");
    box.appendChild(el("div", "label", label));
    box.appendChild(el("div", "value", value));
    if (sub) box.appendChild(el("div", "sub", sub));
    return box;
  }

  // The days between the first and the last that have no session, as empty days: the axis is a calendar,
  // so two days a fortnight apart are not drawn side by side. (Not for a span of over ten years.)
  var DAY_KEY = /^(\d{4})-(\d{2})-(\d{2})$/;
  function calendar(groups) {
    var dated = groups.filter(function (g) { return DAY_KEY.test(g.key); });
    var others = groups.filter(function (g) { return !DAY_KEY.test(g.key); });
    if (dated.length < 2) return groups;
    var time = function (key) { var m = DAY_KEY.exec(key); return Date.UTC(+m[1], +m[2] - 1, +m[3]); };
    var first = time(dated[0].key), last = time(dated[dated.length - 1].key);
    if (last <= first || (last - first) / 864e5 > 3660) return groups;
    var byKey = {};
    dated.forEach(function (g) { byKey[g.key] = g; });
    var pad = function (n) { return (n < 10 ? "0" : "") + n; };
    var out = [];
    for (var t = first; t <= last; t += 864e5) {
      var d = new Date(t), key = d.getUTCFullYear() + "-" + pad(d.getUTCMonth() + 1) + "-" + pad(d.getUTCDate());
      out.push(byKey[key] || {key: key, empty: true, sessions: 0, active_seconds: 0,
        tokens: {input: 0, output: 0, reasoning: 0, cache_read: 0, cache_write: 0},
        cost: {usd: 0, known: 0, unknown: 0, estimated_usd: null, estimated: 0}});
    }
    return out.concat(others);
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
    var known = all.cost.known !== undefined ? all.cost.known : all.sessions - all.cost.unknown;
    var guessed = all.cost.estimated_usd !== null && all.cost.estimated_usd !== undefined && all.cost.estimated;
    cards.appendChild(card("cost", known ? usd(all.cost.usd) : (all.sessions ? "unknown" : "none"),
      (all.cost.unknown ? (known ? "known for " + known + "; " : "") + counted(all.cost.unknown, "session") +
        " with unknown cost, left out of the sum" : "every cost known") +
      (guessed ? " · ~" + usd(all.cost.estimated_usd) + " estimated by trail for " + all.cost.estimated : "")));
    cards.appendChild(card("active time", all.measured ? hours(all.active_seconds) : "…",
      all.measured < all.sessions ? "measured " + all.measured + " of " + all.sessions + " sessions" : counted(all.failing_commands, "failing command")));
    var groups = stats.by === "day" ? calendar(stats.groups) : stats.groups;
    var labels = groups.map(function (g) { return shown(g.key); });
    var horizontal = stats.by !== "day";
    var pick = function (f) { return groups.map(f); };
    var notes = pick(function (g) { return g.cost.unknown ? g.cost.unknown + " with unknown cost" : ""; });
    // a group whose every cost is unknown has no bar and reads "unknown", not $0
    var costs = pick(function (g) { return g.cost.unknown >= g.sessions ? null : g.cost.usd; });
    var costSeries = [{name: "known cost", cls: "s-cost", values: costs}];
    if (all.cost.estimated_usd !== null && all.cost.estimated_usd !== undefined) {
      costSeries.push({name: "estimated by trail", cls: "s-estimate", apart: "trail",
                       values: pick(function (g) { return g.cost.estimated ? g.cost.estimated_usd : null; })});
    }
    var empty = pick(function (g) { return !!g.empty; });
    TrailCharts.draw($("c-sessions"), {labels: labels, horizontal: horizontal, format: compact, integer: true, empty: empty,
      series: [{name: "sessions", cls: "s-sessions", values: pick(function (g) { return g.sessions; })}]});
    TrailCharts.draw($("c-tokens"), {labels: labels, horizontal: horizontal, format: compact, integer: true, empty: empty, series: [
      {name: "input", cls: "s-input", values: pick(function (g) { return g.tokens.input; })},
      {name: "output", cls: "s-output", values: pick(function (g) { return g.tokens.output; })},
      {name: "reasoning", cls: "s-reasoning", values: pick(function (g) { return g.tokens.reasoning; })}]});
    TrailCharts.draw($("c-cache"), {labels: labels, horizontal: horizontal, format: compact, integer: true, empty: empty, series: [
      {name: "cache read", cls: "s-cache-read", values: pick(function (g) { return g.tokens.cache_read; })},
      {name: "cache write", cls: "s-cache-write", values: pick(function (g) { return g.tokens.cache_write; })}]});
    TrailCharts.draw($("c-cost"), {labels: labels, horizontal: horizontal, format: usd, notes: notes, empty: empty,
      caption: costCaption(all.cost),
      series: costSeries});
    TrailCharts.draw($("c-active"), {labels: labels, horizontal: horizontal, format: hours, unit: "seconds", empty: empty,
      caption: all.measured < all.sessions ? "measuring: " + all.measured + " of " + all.sessions + " sessions read" : "",
      series: [{name: "active time", cls: "s-active", values: pick(function (g) { return g.active_seconds; })}]});
    var m = stats.measuring;
    $("measuring").textContent = m.done < m.total ? "reading messages: " + m.done + " / " + m.total : "";
    document.body.setAttribute("data-stats", m.done < m.total ? "partial" : "ready");
  }

  // What the cost bars leave out: Hermes' unknown costs, with the ones trail estimated drawn apart.
  function costCaption(cost) {
    var guessed = cost.estimated_usd !== null && cost.estimated_usd !== undefined ? cost.estimated || 0 : 0;
    if (!cost.unknown) return "";
    if (!guessed) return counted(cost.unknown, "session") + " of unknown cost " + (cost.unknown === 1 ? "is" : "are") + " not in these bars";
    var left = cost.unknown - guessed;
    return counted(cost.unknown, "session") + " of unknown cost: " + guessed + " estimated by trail (drawn apart)" +
      (left ? ", " + left + " not in these bars" : "");
  }

  function loadStats() {
    clearTimeout(state.statsTimer);
    return getJSON("/api/stats?" + query({by: state.by})).then(function (stats) {
      drawStats(stats);
      if (stats.measuring.done < stats.measuring.total) state.statsTimer = setTimeout(loadStats, 1500);
    }).catch(function (e) { $("measuring").textContent = "stats: " + e.message; });
  }

  // ---- search -------------------------------------------------------------------------------------
  // Hits whose lines are a program's (a command and its output, an edit's lines, a tool's output): a dim
  // ⏎ shows where each line ends, so a command is told from what it printed (as the terminal shows it).
  var LINED = {command: true, blocked: true, edit: true, tool: true};

  function snippet(hit) {
    // the server splits each snippet into [text, marked] parts (a guillemet in the text is only text)
    var box = el("span", "snippet");
    var parts = hit.snippet_parts || [[hit.snippet, false]];
    parts.forEach(function (part) {
      var text = String(part[0]).replace(/[^\S\n]+/g, " ");
      if (part[1]) { box.appendChild(el("mark", null, text.replace(/\s+/g, " "))); return; }
      text.split(/\s*\n\s*/).forEach(function (piece, i) {
        if (i) box.appendChild(LINED[hit.kind] ? el("span", "line-break", " \u23ce ") : document.createTextNode(" "));
        if (piece) box.appendChild(document.createTextNode(piece));
      });
    });
    return box;
  }

  function conversation(c) {
    var best = c.hits[0];
    var item = el("article", "conversation");
    var head = el("div", "conv-head");
    var opening = !best.title && c.opening;  // untitled: its first prompt stands in, in italics
    var a = el("a", opening ? "conv-title opening" : "conv-title", best.title || c.opening || "(untitled) " + best.session_id);
    a.href = sessionHref(best.ref, best.row);
    head.appendChild(a);
    head.appendChild(el("span", "where", shown([best.project, best.profile, best.source || "?"].join(" · "))));
    item.appendChild(head);
    c.hits.forEach(function (h) {
      var line = el("a", "hit");
      line.href = sessionHref(h.ref, h.row);
      line.appendChild(el("span", "when", when(h.time)));
      line.appendChild(el("span", "kind", h.kind + (h.kind === "command" && h.exit_code !== null ? " exit " + h.exit_code : "")));
      line.appendChild(snippet(h));
      item.appendChild(line);
    });
    // What a later conversation changed (the rule of the newest fact): said under the earlier one.
    if (c.superseded_by) {
      item.appendChild(el("p", "superseded", "superseded by the later " + c.superseded_by + ", which says it changed"));
    }
    if (best.resume) item.appendChild(el("code", "resume", best.resume));
    return item;
  }

  function drawResults(result) {
    var box = $("results");
    box.textContent = "";
    box.hidden = false;
    if (result.indexing) {  // asked during the first build: said, and asked again when it is done
      box.appendChild(el("p", "none", indexingText(result.indexing) || "The search index is being built."));
      drawIndexing(result.indexing);
      return;
    }
    var absent = result.missing || [];  // the first twelve, and how many more (a pasted traceback's hundreds)
    var missing = absent.slice(0, 12).join(", ") + (absent.length > 12 ? " and " + (absent.length - 12) + " more" : "");
    var spelled = result.spelled || {};
    var respelled = Object.keys(spelled).reduce(function (all, typed) { return all.concat(spelled[typed]); }, []);
    // A time the question named ("yesterday"): its words are no words to find; a question that asks for
    // nothing else is answered by that time's conversations, every one shown.
    var when = result.when;
    // A session id pasted as the question: that conversation, listed by its prompts (no word to mark).
    // Names of places alone ("discord", "work"): the conversations held there, listed as a time's are.
    var listing = Boolean(when && when.listing) || Boolean(result.session) || Boolean(result.places);
    var words = queryWords(when ? when.rest : result.query).concat(result.read_as || [], result.read_as_cjk || [], respelled);
    // What is only near in meaning is folded away under the matches, except what the search put before
    // every match (a conversation held in another language, which no word of the question can reach): the
    // search's first answer, shown first, and said to be near in meaning.
    var has = result.conversations.map(function (c) { return listing || hasWords(c, words); });
    var firstMatch = has.indexOf(true);
    var shown = function (c, i) { return has[i] || i < firstMatch; };
    var matched = result.conversations.filter(shown);
    var nearOnly = result.conversations.filter(function (c, i) { return !shown(c, i); });
    if (!matched.length) {
      // nothing has the words: say so, and keep what is only near in meaning folded away, never counted
      box.appendChild(el("p", "none", "No match for \u201c" + result.query + "\u201d." +
        (missing ? " Not found anywhere: " + missing + "." : "")));
      if (when) box.appendChild(el("p", "missing", when.explained));
      // a filter nothing matches (a window after the last session): said, not taken for an empty history
      (result.unmatched || []).forEach(function (said) {
        box.appendChild(el("p", "missing", said.charAt(0).toUpperCase() + said.slice(1) + "."));
      });
      box.appendChild(nearFold(nearOnly));
      return;
    }
    if (when) box.appendChild(el("p", "missing", when.explained));
    if (result.places) box.appendChild(el("p", "missing", result.places.explained));
    // a quoted phrase no turn has as typed, whose words some have
    var others = absent.every(function (w) { return w.charAt(0) === '"'; }) ? "its words" : "the other words";
    if (missing) box.appendChild(el("p", "missing", "Not found anywhere: " + missing + "; showing what " + others + " find."));
    Object.keys(spelled).forEach(function (typed) {
      box.appendChild(el("p", "missing", "Not found: " + typed + "; searched for " + spelled[typed].join(" or ") + "."));
    });
    var readAs = (result.read_as || []).join(", ");
    if (readAs) box.appendChild(el("p", "missing", "Also read as English: " + readAs + "."));
    // Only the readings a match shown has: an English question is read so whenever its words find few
    // conversations, and most readings find nothing shown.
    var readAsCjk = (result.read_as_cjk || []).filter(function (w) {
      return matched.some(function (c) {
        return c.hits.some(function (h) { return (h.snippet || "").indexOf(w) >= 0 || String(h.title || "").indexOf(w) >= 0; });
      });
    }).join(", ");
    if (readAsCjk) box.appendChild(el("p", "missing", "Also read as Chinese or Japanese: " + readAsCjk + "."));
    matched.forEach(function (c, i) {  // those before the first match come first here too, without words
      var item = conversation(c);
      if (i < firstMatch) item.insertBefore(el("p", "near-note", "near in meaning (no word matched)"), item.children[1] || null);
      box.appendChild(item);
    });
    box.appendChild(nearFold(nearOnly));
    var more = result.truncated ? " (more not shown)" : "";
    var tally = result.session ? counted(result.matches, "prompt") + " of session " + result.session + ", listed" :
      result.places ? counted(result.matches, "prompt") + " there, listed" :
      listing ? counted(result.matches, "prompt") + " at that time, listed" :
      result.matches ? counted(result.matches, "matching turn") : counted(matched.length, "conversation") + " by title";
    box.appendChild(el("p", "meta", tally + " in " + Math.round(result.seconds * 1000) + " ms" + more));
  }

  // The query's words, lower-cased, without the quotes and signs around them.
  function queryWords(q) {
    return String(q || "").toLowerCase().split(/\s+/).map(function (w) {
      return w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
    }).filter(Boolean);
  }

  // A conversation the words reach: a word marked in a snippet, or one in a title (the search lifts a
  // session its title names). Anything else came only by meaning.
  function hasWords(c, words) {
    return c.hits.some(function (h) {
      if ((h.snippet_parts || []).some(function (part) { return part[1]; })) return true;
      var title = String(h.title || "").toLowerCase();
      return words.some(function (w) { return title.indexOf(w) >= 0; });
    });
  }

  // What is only near in meaning: folded away under the matches, never counted as one.
  function nearFold(conversations) {
    var near = el("details", "near");
    if (!conversations.length) return document.createTextNode("");
    near.appendChild(el("summary", null, counted(conversations.length, "conversation") + " near it in meaning (no word matched)"));
    conversations.forEach(function (c) { near.appendChild(conversation(c)); });
    return near;
  }

  // A question pasted whole (a log, a traceback) is sent as its first and last MOST_SENT characters: an
  // address past what the server reads (64 KB) was refused, and the error a log ends on is its last line.
  var MOST_SENT = 3000;
  function sent(words) {
    var chars = Array.from(words);  // by character, never half of a pair of UTF-16 units
    if (chars.length <= 2 * MOST_SENT) return words;
    return chars.slice(0, MOST_SENT).join("") + " " + chars.slice(-MOST_SENT).join("");
  }

  function search() {
    var words = $("search").value.trim();
    var seq = ++state.searchSeq;
    syncUrl();
    if (!words) { $("results").hidden = true; $("results").textContent = ""; return; }
    var asked = sent(words);
    getJSON("/api/search?" + query({q: asked, limit: 10})).then(function (result) {
      if (seq !== state.searchSeq) return;
      drawResults(result);
      if (asked !== words) {
        var pasted = Array.from(words).length.toLocaleString("en-US");
        $("results").insertBefore(el("p", "missing", "Searched the first and last " +
          MOST_SENT.toLocaleString("en-US") + " characters of the " + pasted + " given."), $("results").firstChild);
      }
      document.body.setAttribute("data-search", words);
    }).catch(function (e) {
      if (seq === state.searchSeq) { $("results").hidden = false; $("results").textContent = "Search failed: " + e.message; }
    });
  }

  // ---- wiring -------------------------------------------------------------------------------------
  // The address holds the filters, the query, the page and the chart tab, so a bookmark, a reload and
  // Back all come back to the same view.
  function applyUrl() {
    var params = new URLSearchParams(location.search);
    FILTERS.forEach(function (name) {
      var value = params.get(name);
      if (!value) return;
      if (SELECTS.indexOf(name) >= 0) keepOption($("f-" + name), value);
      $("f-" + name).value = value;
    });
    if (params.get("q")) $("search").value = params.get("q");
    $("f-estimate").checked = params.get("estimate") === "1";
    var by = params.get("by");
    if (by && BYS.indexOf(by) >= 0) setTab(by);
    var offset = parseInt(params.get("offset") || "0", 10);
    state.offset = offset > 0 ? offset - offset % PAGE : 0;
  }

  function syncUrl() {
    var params = new URLSearchParams(filters());
    var words = $("search").value.trim();
    if (words) params.set("q", sent(words));  // what was searched: a whole log's address is refused
    if (state.by !== "day") params.set("by", state.by);
    if (state.offset) params.set("offset", state.offset);
    var text = params.toString();
    history.replaceState(null, "", text ? "?" + text : location.pathname);
  }

  function setTab(by) {
    state.by = by;
    document.querySelectorAll(".tabs button").forEach(function (b) { b.classList.toggle("on", b.getAttribute("data-by") === by); });
  }

  function refresh() {
    state.offset = 0;
    syncUrl();
    loadSessions();
    loadStats();
    if ($("search").value.trim()) search();
  }

  var timer = null;
  // What is typed through an input method (Chinese, Japanese, Korean) is asked once it is chosen, not
  // while it is composed: "ね", "ねこ" on the way to 猫 are no question, and each was searched and shown.
  // The browser's last input event of a composition comes before its end, still composing.
  function typed(box, then, delay) {
    function later() { clearTimeout(timer); timer = setTimeout(then, delay); }
    box.addEventListener("input", function (ev) { if (!ev.isComposing) later(); });
    box.addEventListener("compositionend", later);
  }
  typed($("search"), search, 180);
  $("search").addEventListener("keydown", function (ev) {
    if (ev.key === "Escape" && !ev.isComposing) { $("search").value = ""; search(); }
  });
  FILTERS.forEach(function (name) {
    if (name === "text") { typed($("f-text"), refresh, 200); return; }
    $("f-" + name).addEventListener("change", function () { clearTimeout(timer); timer = setTimeout(refresh, 0); });
  });
  $("f-clear").addEventListener("click", function () {
    FILTERS.forEach(function (n) { $("f-" + n).value = ""; });
    $("f-estimate").checked = false;
    refresh();
  });
  $("f-estimate").addEventListener("change", refresh);
  $("prev").addEventListener("click", function () { state.offset = Math.max(0, state.offset - PAGE); syncUrl(); loadSessions(); });
  $("next").addEventListener("click", function () { state.offset += PAGE; syncUrl(); loadSessions(); });
  document.querySelectorAll(".tabs button").forEach(function (button) {
    button.addEventListener("click", function () {
      setTab(button.getAttribute("data-by"));
      syncUrl();
      loadStats();
    });
  });

  applyUrl();
  loadSessions(true).then(function () { loadStats(); });
  if ($("search").value.trim()) search();
})();
