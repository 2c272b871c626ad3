// hermes-trail replay: renders one session's view (export/view.py) as a timeline you can scrub.
// The same file runs in the web viewer (it fetches /api/session) and inside an exported HTML file (the
// view is embedded in a JSON script element). Transcript text is hostile input: it only ever reaches the
// page through textContent, never as markup, so a <script> or <img> in a prompt is just text.
(function () {
  "use strict";

  var BATCH_FIRST = 60;   // turns drawn before the first paint
  var BATCH = 300;        // turns drawn per frame after that
  var SUMMARY_CHARS = 400;

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function seconds(value) {
    if (value === null || value === undefined) return "";
    if (value < 10) return value.toFixed(1) + " s";
    if (value < 60) return Math.round(value) + " s";
    var total = Math.round(value), minutes = Math.floor(total / 60), secs = total % 60;
    if (minutes < 60) return secs ? minutes + " min " + secs + " s" : minutes + " min";
    var hours = Math.floor(minutes / 60);
    minutes = minutes % 60;
    return minutes ? hours + " h " + minutes + " min" : hours + " h";
  }

  function clock(iso, withDate) {
    if (!iso) return "--:--:--";
    var d = new Date(iso);
    if (isNaN(d.getTime())) return iso;
    var pad = function (n) { return (n < 10 ? "0" : "") + n; };
    var time = pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds());
    if (!withDate) return time;
    return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " + time;
  }

  function number(n) { return (n || 0).toLocaleString("en-US"); }

  function tokensText(tokens) {
    var names = [["input", "in"], ["output", "out"], ["cache_read", "cache read"],
                 ["cache_write", "cache write"], ["reasoning", "reasoning"]];
    var parts = [];
    names.forEach(function (pair) { if (tokens && tokens[pair[0]]) parts.push(pair[1] + " " + number(tokens[pair[0]])); });
    return parts.length ? parts.join(" · ") : "none recorded";
  }

  function sessionHref(ref, links) {
    if (links) return links[ref] || null;   // an export links only to files written beside it
    return "/session?ref=" + encodeURIComponent(ref);
  }

  function linkOrText(ref, label, links) {
    var href = sessionHref(ref, links);
    if (!href) return el("span", "ref", label);
    var a = el("a", "ref", label);
    a.href = href;
    return a;
  }

  // ---- header -------------------------------------------------------------------------------------
  function renderHeader(view, links, root) {
    var s = view.session;
    var head = el("header", "session-head");
    if (!links) {
      var back = el("a", "back", "← all sessions");
      back.href = "/";
      head.appendChild(back);
    }
    head.appendChild(el("h1", "title", s.title || "(untitled)"));
    head.appendChild(el("div", "sid", s.ref));
    var facts = [
      ["project", s.project], ["profile", s.profile],
      ["source", (s.source || "?") + (s.kind !== "interactive" ? " · " + s.kind : "")],
      ["model", s.model || "?"], ["started", clock(s.started_at, true)],
      ["last activity", clock(s.last_activity_at, true)],
      ["messages", view.turns.filter(function (t) { return !t.hidden; }).length + " shown, " +
        view.turns.filter(function (t) { return t.hidden; }).length + " kept aside"],
      ["tokens", tokensText(s.tokens)], ["cost", s.cost_text],
      ["active time", s.active_seconds === null ? "unknown" : seconds(s.active_seconds)]
    ];
    if (s.compactions) facts.push(["compactions", String(s.compactions)]);
    (s.model_changes || []).forEach(function (c) {
      facts.push(["model switch", clock(c.time) + " → " + c.model + (c.provider ? " via " + c.provider : "")]);
    });
    (s.model_usage || []).forEach(function (m) {
      facts.push(["model usage", m.model + " (" + (m.task ? "auxiliary: " + m.task : "main loop") + ") " +
                  tokensText(m.tokens) + " · " + m.cost_text]);
    });
    if (s.messaging) facts.push(["chat", [s.messaging.platform, s.messaging.chat, s.messaging.user].filter(Boolean).join(" · ")]);
    if (s.worktree) facts.push(["worktree", s.worktree]);
    if (s.yolo) facts.push(["approvals", "off (/yolo)"]);
    if (s.end_reason) facts.push(["ended", s.end_reason]);
    var dl = el("dl", "facts");
    facts.forEach(function (f) { dl.appendChild(el("dt", null, f[0])); dl.appendChild(el("dd", null, f[1])); });
    head.appendChild(dl);

    var resume = el("div", "resume");
    resume.appendChild(el("span", "label", "resume"));
    var code = el("code", "resume-cmd", view.resume);
    resume.appendChild(code);
    var copy = el("button", "copy", "copy");
    copy.type = "button";
    copy.addEventListener("click", function () {
      var done = function () { copy.textContent = "copied"; setTimeout(function () { copy.textContent = "copy"; }, 1500); };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(view.resume).then(done, function () { selectText(code); });
      } else { selectText(code); }
    });
    resume.appendChild(copy);
    head.appendChild(resume);

    var lin = view.lineage || {};
    var lineage = el("nav", "lineage");
    if (lin.parent) {
      var p = el("div", "parent");
      p.appendChild(el("span", "label", (lin.parent.relation || "child") + " of"));
      p.appendChild(linkOrText(lin.parent.ref, lin.parent.title ? lin.parent.title + " (" + lin.parent.id + ")" : lin.parent.id, links));
      lineage.appendChild(p);
    }
    if (lin.chain && lin.chain.length) {
      var c = el("div", "chain");
      c.appendChild(el("span", "label", "conversation"));
      lin.chain.forEach(function (part, i) {
        var label = "part " + (i + 1) + (part.title ? ": " + part.title : "");
        c.appendChild(part.current ? el("strong", "ref", label) : linkOrText(part.ref, label, links));
      });
      lineage.appendChild(c);
    }
    if (lin.children && lin.children.length) {
      var kids = el("div", "children");
      kids.appendChild(el("span", "label", "linked sessions"));
      var ul = el("ul");
      lin.children.forEach(function (child) {
        var li = el("li");
        li.appendChild(el("span", "relation", child.relation));
        li.appendChild(linkOrText(child.ref, child.title ? child.title + " (" + child.id + ")" : child.id, links));
        ul.appendChild(li);
      });
      kids.appendChild(ul);
      lineage.appendChild(kids);
    }
    if (lineage.childNodes.length) head.appendChild(lineage);
    if (s.system_prompt) {
      var sp = el("details", "system-prompt");
      sp.appendChild(el("summary", null, "system prompt (" + number(s.system_prompt.length) + " characters)"));
      sp.appendChild(el("pre", "text", s.system_prompt));
      head.appendChild(sp);
    }
    if (view.redacted) head.appendChild(el("p", "note", "Secrets are redacted."));
    root.appendChild(head);
  }

  function selectText(node) {
    var range = document.createRange();
    range.selectNodeContents(node);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }

  // ---- turns --------------------------------------------------------------------------------------
  function callClass(call) {
    if (call.command) {
      if (call.command.status === "ok") return "ok";
      if (call.command.status === "background") return "bg";
      return "fail";
    }
    if (call.permission && call.permission.outcome === "blocked") return "blocked";
    if (call.permission && call.permission.outcome === "pending") return "pending";
    if (call.output === null) return "none";
    return "tool";
  }

  function permissionText(p, ran) {
    var by = p.by ? " by " + p.by : "";
    var text;
    if (p.outcome === "approved") text = "✔ approved" + (by || " by the user");
    else if (p.outcome === "auto_approved") text = "✔ auto-approved" + (by || " by smart approval");
    else if (p.outcome === "pending") text = "… awaiting approval" + (p.pattern_key ? " (" + p.pattern_key + ")" : "");
    else text = "✖ " + p.outcome + by;
    if (p.description) text += ": " + p.description;
    if (p.user_summary) text += " — " + p.user_summary;
    else if (p.message && !p.description) text += " — " + p.message.trim().split("\n")[0].slice(0, 200);
    if (!ran) text += " (never ran)";
    return text;
  }

  function renderCall(call) {
    var box = el("details", "call " + callClass(call));
    var summary = el("summary");
    var terminal = call.command || (call.name === "terminal" && call.permission);
    if (terminal) {
      summary.appendChild(el("span", "icon", "$"));
      summary.appendChild(el("span", "what mono", call.command ? call.command.command : (call.subject || call.arguments)));
    } else {
      summary.appendChild(el("span", "icon", "⚙"));
      summary.appendChild(el("span", "name", call.name));
      if (call.subject) summary.appendChild(el("span", "what mono", call.subject));
    }
    var badges = el("span", "badges");
    if (call.command) {
      var c = call.command;
      var label = c.exit_code !== null && c.exit_code !== undefined ? "exit " + c.exit_code : c.status;
      if (c.status === "killed" && c.signal) label += " (signal " + c.signal + ")";
      else if (["ok", "failed", "unknown"].indexOf(c.status) < 0) label += " (" + c.status + ")";
      badges.appendChild(el("span", "badge exit " + (c.status === "ok" ? "good" : "bad"), label));
    }
    if (call.permission) badges.appendChild(el("span", "badge perm " + call.permission.outcome, call.permission.outcome.replace("_", "-")));
    if (call.duration !== null && call.duration !== undefined) badges.appendChild(el("span", "badge dur", seconds(call.duration)));
    if (call.output === null && !call.command) badges.appendChild(el("span", "badge none", "no result"));
    summary.appendChild(badges);
    box.appendChild(summary);

    var body = el("div", "call-body");
    if (call.permission) body.appendChild(el("div", "perm-line " + call.permission.outcome, permissionText(call.permission, !!call.command)));
    if (!terminal && call.arguments && !call.edits.length) {
      body.appendChild(el("div", "label", "arguments"));
      body.appendChild(el("pre", "args mono", call.arguments));
    }
    if (call.command && call.command.workdir) body.appendChild(el("div", "workdir", "in " + call.command.workdir));
    call.reads.forEach(function (path) { body.appendChild(el("div", "read", "read " + path)); });
    call.edits.forEach(function (edit) {
      var e = el("div", "edit");
      e.appendChild(el("div", "edit-head", "✎ " + edit.action + " " + edit.path + (edit.moved_to ? " → " + edit.moved_to : "") +
                       (edit.applied === false ? "  (not applied)" : "")));
      var diff = el("pre", "diff mono");
      edit.removed.forEach(function (line) { diff.appendChild(el("span", "del", "- " + line + "\n")); });
      edit.added.forEach(function (line) { diff.appendChild(el("span", "add", "+ " + line + "\n")); });
      e.appendChild(diff);
      body.appendChild(e);
    });
    var showsDiff = call.edits.length && call.edits.every(function (e) { return e.applied !== false; });
    if (call.output !== null && call.output !== undefined && !showsDiff) {
      body.appendChild(el("pre", "output mono", call.output || "(empty output)"));
    }
    box.appendChild(body);
    return box;
  }

  function renderEvent(event) {
    if (event.type === "compaction") {
      return el("div", "event compaction", "⟲ compaction at " + clock(event.time) + ": " + event.archived +
                " rows archived" + (event.kind === "continuation" ? " (continued in a new session)" : ""));
    }
    return el("div", "event switch", "⇄ model switch → " + event.model + (event.provider ? " via " + event.provider : "") +
              "  " + clock(event.time));
  }

  function renderTurn(turn) {
    var box = el("article", "turn role-" + turn.role + (turn.hidden ? " hidden-row" : "") + (turn.kind ? " kind-" + turn.kind : ""));
    box.id = "t-" + turn.n;
    box.setAttribute("data-row", turn.row);
    if (turn.event) box.appendChild(renderEvent(turn.event));
    if (turn.event && turn.event.type === "model_switch") { box.classList.add("marker"); return box; }
    var head = el("div", "turn-head");
    head.appendChild(el("span", "role", turn.role === "summary" ? "compaction summary" : turn.role));
    var time = el("time", "when", clock(turn.time));
    if (turn.time) time.title = clock(turn.time, true);
    head.appendChild(time);
    var anchor = el("a", "row", "#" + turn.row);
    anchor.href = "#row-" + turn.row;
    head.appendChild(anchor);
    if (turn.role === "summary") head.appendChild(el("span", "flag", "not a prompt"));
    else if (turn.kind) head.appendChild(el("span", "flag", turn.kind));
    if (turn.rewound) head.appendChild(el("span", "flag warn", "rewound"));
    if (turn.compacted) head.appendChild(el("span", "flag warn", "archived by compaction"));
    if (turn.copy_of !== null) head.appendChild(el("span", "flag", "compaction copy of #" + turn.copy_of));
    box.appendChild(head);
    if (turn.reasoning) {
      var r = el("details", "reasoning");
      var first = turn.reasoning.trim().split("\n")[0] || "";
      r.appendChild(el("summary", null, "reasoning: " + first.slice(0, 100) + (first.length > 100 ? "…" : "")));
      r.appendChild(el("pre", "text", turn.reasoning));
      box.appendChild(r);
    }
    if (turn.text) {
      if (turn.role === "summary" && turn.text.length > SUMMARY_CHARS) {
        var d = el("details", "summary-text");
        d.appendChild(el("summary", null, turn.text.slice(0, SUMMARY_CHARS) + " …"));
        d.appendChild(el("div", "text", turn.text));
        box.appendChild(d);
      } else {
        box.appendChild(el("div", "text", turn.text));
      }
    }
    turn.calls.forEach(function (call) { box.appendChild(renderCall(call)); });
    if (turn.orphan) {
      box.appendChild(el("div", "orphan", "⚠ orphan result for " + (turn.orphan.call_id || "no id") + " (" + (turn.orphan.tool_name || "?") + ")"));
      if (turn.orphan.output) box.appendChild(el("pre", "output mono", turn.orphan.output));
    }
    turn.problems.forEach(function (p) { box.appendChild(el("div", "problem", "⚠ " + p)); });
    return box;
  }

  // ---- timeline -----------------------------------------------------------------------------------
  var SVG = "http://www.w3.org/2000/svg";

  function tickClass(turn) {
    if (turn.event && turn.event.type === "compaction") return "tick-compaction";
    if (turn.event && turn.event.type === "model_switch") return "tick-switch";
    if (turn.calls.some(function (c) { var k = callClass(c); return k === "fail" || k === "blocked"; })) return "tick-fail";
    if (turn.calls.length) return "tick-tool";
    return "tick-" + turn.role;
  }

  function Replay(view, links, root) {
    this.view = view;
    this.turns = view.turns;
    this.links = links;
    this.root = root;
    this.drawn = 0;
    this.current = -1;
    this.nodes = [];
    this.byRow = {};
    var self = this;
    this.turns.forEach(function (t, i) { if (!(t.row in self.byRow)) self.byRow[t.row] = i; });
  }

  Replay.prototype.build = function () {
    var self = this;
    var bar = el("div", "scrubber");
    var strip = document.createElementNS(SVG, "svg");
    strip.setAttribute("class", "strip");
    var n = Math.max(this.turns.length, 1);
    strip.setAttribute("viewBox", "0 0 " + n + " 10");
    strip.setAttribute("preserveAspectRatio", "none");
    strip.setAttribute("aria-hidden", "true");
    this.turns.forEach(function (turn, i) {
      var rect = document.createElementNS(SVG, "rect");
      rect.setAttribute("x", String(i));
      rect.setAttribute("width", "1");
      var tall = turn.event ? 0 : (turn.role === "user" ? 2 : 4);
      rect.setAttribute("y", String(tall));
      rect.setAttribute("height", String(10 - tall));
      rect.setAttribute("class", tickClass(turn) + (turn.hidden ? " tick-hidden" : ""));
      strip.appendChild(rect);
    });
    this.cursor = document.createElementNS(SVG, "rect");
    this.cursor.setAttribute("class", "cursor");
    this.cursor.setAttribute("y", "0");
    this.cursor.setAttribute("height", "10");
    this.cursor.setAttribute("width", String(Math.max(n / 200, 1)));
    strip.appendChild(this.cursor);
    bar.appendChild(strip);
    var range = el("input", "scrub");
    range.type = "range";
    range.min = "0";
    range.max = String(Math.max(this.turns.length - 1, 0));
    range.value = "0";
    range.setAttribute("aria-label", "scrub through the turns");
    this.range = range;
    bar.appendChild(range);
    var controls = el("div", "controls");
    this.position = el("span", "position", "");
    controls.appendChild(this.position);
    var prev = el("button", "prev", "◀"); prev.type = "button"; prev.title = "previous turn (k)";
    var next = el("button", "next", "▶"); next.type = "button"; next.title = "next turn (j)";
    prev.addEventListener("click", function () { self.goTo(Math.max(self.current - 1, 0)); });
    next.addEventListener("click", function () { self.goTo(Math.min(self.current + 1, self.turns.length - 1)); });
    controls.appendChild(prev);
    controls.appendChild(next);
    var hiddenTotal = this.turns.filter(function (t) { return t.hidden; }).length;
    if (hiddenTotal) {
      var toggle = el("label", "toggle");
      var box = el("input");
      box.type = "checkbox";
      box.className = "show-hidden";
      box.addEventListener("change", function () { document.body.classList.toggle("show-hidden", box.checked); });
      toggle.appendChild(box);
      var counts = this.view.hidden_counts || {};
      var what = Object.keys(counts).map(function (k) { return counts[k] + " " + k; }).join(", ");
      toggle.appendChild(document.createTextNode(" show rows kept aside (" + what + ")"));
      controls.appendChild(toggle);
    }
    var expand = el("button", "expand", "expand all"); expand.type = "button";
    expand.addEventListener("click", function () {
      self.drawAll();
      var open = expand.textContent === "expand all";
      self.list.querySelectorAll("details.call").forEach(function (d) { d.open = open; });
      expand.textContent = open ? "collapse all" : "expand all";
    });
    controls.appendChild(expand);
    bar.appendChild(controls);
    this.root.appendChild(bar);
    this.list = el("main", "turns");
    this.root.appendChild(this.list);
    if (this.view.strays && this.view.strays.length) {
      var strays = el("section", "strays");
      strays.appendChild(el("h2", null, "Rows that could not be read"));
      this.view.strays.forEach(function (s) { strays.appendChild(el("div", "problem", s.where + ": " + s.reason)); });
      this.root.appendChild(strays);
    }
    range.addEventListener("input", function () { self.goTo(parseInt(range.value, 10), true); });
    strip.addEventListener("click", function (ev) {
      var box = strip.getBoundingClientRect();
      self.goTo(Math.min(self.turns.length - 1, Math.floor((ev.clientX - box.left) / box.width * self.turns.length)));
    });
    document.addEventListener("keydown", function (ev) {
      var t = ev.target;
      if (t && ((t.tagName === "INPUT" && t.type !== "range" && t.type !== "checkbox") || t.tagName === "TEXTAREA")) return;
      if (ev.key === "j") self.goTo(Math.min(self.current + 1, self.turns.length - 1));
      if (ev.key === "k") self.goTo(Math.max(self.current - 1, 0));
    });
    var pending = false;
    window.addEventListener("scroll", function () {
      if (pending) return;
      pending = true;
      requestAnimationFrame(function () { pending = false; self.follow(); });
    }, {passive: true});
  };

  Replay.prototype.draw = function (upTo) {
    var end = Math.min(upTo, this.turns.length);
    if (this.drawn >= end) return;
    var frag = document.createDocumentFragment();
    for (var i = this.drawn; i < end; i++) {
      var node = renderTurn(this.turns[i]);
      this.nodes.push(node);
      frag.appendChild(node);
    }
    this.drawn = end;
    this.list.appendChild(frag);
    if (this.drawn === this.turns.length) document.body.setAttribute("data-drawn", "all");
  };

  Replay.prototype.drawAll = function () { this.draw(this.turns.length); };

  Replay.prototype.drawRest = function () {
    var self = this;
    var step = function () {
      self.draw(self.drawn + BATCH);
      if (self.drawn < self.turns.length) setTimeout(step, 0);
      else if (window.performance && performance.mark) performance.mark("trail-all-turns");
    };
    setTimeout(step, 0);
  };

  Replay.prototype.mark = function (i) {
    if (this.current >= 0 && this.nodes[this.current]) this.nodes[this.current].classList.remove("current");
    this.current = i;
    if (this.nodes[i]) this.nodes[i].classList.add("current");
    var turn = this.turns[i];
    if (!turn) return;
    this.range.value = String(i);
    this.cursor.setAttribute("x", String(i));
    this.position.textContent = "turn " + (i + 1) + " of " + this.turns.length + " · " + clock(turn.time) + " · " +
      (turn.role === "summary" ? "compaction summary" : turn.role) + " #" + turn.row;
  };

  Replay.prototype.goTo = function (i, fromRange) {
    if (!this.turns.length || isNaN(i)) return;
    this.draw(i + 1);
    var turn = this.turns[i];
    if (turn.hidden && !document.body.classList.contains("show-hidden")) {
      var box = this.root.querySelector("input.show-hidden");
      if (box) box.checked = true;
      document.body.classList.add("show-hidden");
    }
    this.mark(i);
    this.scrolling = true;
    var node = this.nodes[i], self = this, frames = 0, still = 0;
    // Put the turn just below the sticky scrubber. Turns near the new place take their real heights in
    // the layouts that follow (content-visibility), which moves the target: place it again each frame
    // until it has stayed put for a few frames.
    var place = function () {
      var bar = document.querySelector(".scrubber").getBoundingClientRect().bottom;
      var off = node.getBoundingClientRect().top - bar - 6;
      if (Math.abs(off) > 1) { window.scrollTo(0, window.scrollY + off); still = 0; } else { still++; }
      if (still < 3 && ++frames < 40) requestAnimationFrame(place);
      else self.scrolling = false;
    };
    place();
    if (!fromRange) this.range.focus({preventScroll: true});
  };

  Replay.prototype.follow = function () {
    if (this.scrolling || !this.nodes.length) return;
    var top = this.list.getBoundingClientRect().top;
    var offset = document.querySelector(".scrubber").getBoundingClientRect().bottom;
    // binary search for the first drawn turn whose bottom is below the scrubber
    var lo = 0, hi = this.nodes.length - 1;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (this.nodes[mid].getBoundingClientRect().bottom <= offset) lo = mid + 1; else hi = mid;
    }
    if (top < offset || lo > 0) this.mark(lo);
  };

  Replay.prototype.start = function () {
    this.build();
    this.draw(BATCH_FIRST);
    if (window.performance && performance.mark) performance.mark("trail-first-turns");
    var wanted = /^#row-(\d+)$/.exec(location.hash);
    if (wanted && wanted[1] in this.byRow) this.goTo(this.byRow[wanted[1]]);
    else if (this.turns.length) this.mark(0);
    this.drawRest();
    var self = this;
    window.addEventListener("hashchange", function () {
      var m = /^#row-(\d+)$/.exec(location.hash);
      if (m && m[1] in self.byRow) self.goTo(self.byRow[m[1]]);
    });
  };

  function show(view, links) {
    var root = document.getElementById("app");
    root.textContent = "";
    document.title = (view.session.title || view.session.id) + " · hermes-trail";
    renderHeader(view, links, root);
    var replay = new Replay(view, links, root);
    window.trailReplay = replay;
    replay.start();
  }

  function fail(message) {
    var root = document.getElementById("app");
    root.textContent = "";
    root.appendChild(el("p", "error", message));
    document.body.setAttribute("data-drawn", "error");
  }

  var embedded = document.getElementById("trail-data");
  if (embedded) {
    var data = JSON.parse(embedded.textContent);
    show(data.view, data.links || {});
    return;
  }
  var ref = new URLSearchParams(location.search).get("ref");
  if (!ref) { fail("No session named in the address (?ref=<store>:<id>)."); return; }
  fetch("/api/session?ref=" + encodeURIComponent(ref), {credentials: "same-origin"})
    .then(function (r) { return r.json().then(function (body) { return {ok: r.ok, body: body}; }); })
    .then(function (res) { if (res.ok) show(res.body, null); else fail(res.body.error || "could not load the session"); })
    .catch(function (e) { fail("could not load the session: " + e); });
})();
