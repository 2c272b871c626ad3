// hermes-trail replay: renders one session's view (export/view.py) as a timeline you can scrub.
// The same file runs in the web viewer (it fetches /api/session) and inside an exported HTML file (the
// view is embedded in a JSON script element). Transcript text is hostile input: it only ever reaches the
// page through textContent, never as markup, so a <script> or <img> in a prompt is just text.
(function () {
  "use strict";

  var BATCH_FIRST = 60;   // turns drawn before the first paint
  var HEAD = 30;          // turns asked for first (a screen and more), the whole view after them
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
  // A count and its noun, singular for one: "1 file touched", "3 files touched".
  function counted(n, noun, many) { return number(n) + " " + (n === 1 ? noun : (many || noun + "s")); }

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
  // Counted as `trail show` counts them: turns replayed, rows kept aside (older views: from the turns).
  // A view made from the session's first rows (``counted`` false) has no counts yet: the whole view does.
  function messagesText(view) {
    var s = view.session;
    if (view.counted === false) return "counting…" + (s.message_count ? " (" + number(s.message_count) + " rows)" : "");
    var replayed = s.replayed, aside = s.kept_aside;
    if (replayed === undefined || aside === undefined) {
      replayed = view.turns.filter(function (t) { return !t.hidden; }).length;
      aside = view.turns.filter(function (t) { return t.hidden; }).length;
    }
    var turns = view.turn_counts ? view.turn_counts.shown : view.turns.filter(function (t) { return !t.hidden; }).length;
    return replayed + " replayed, " + aside + " kept aside" +
      (turns !== replayed ? " (" + turns + " turns here: tool results shown under their calls)" : "");
  }

  function roleLabel(turn) {
    if (turn.event && turn.event.type === "model_switch") return "model switch";
    if (turn.role === "summary") return "compaction summary";
    return turn.role;
  }

  // The facts under the title; drawn again when a view made from the first rows gets its counts.
  function renderFacts(view) {
    var s = view.session;
    var counting = view.counted === false;
    var facts = [
      ["project", s.project], ["profile", s.profile],
      ["source", (s.source || "?") + (s.kind !== "interactive" ? " · " + s.kind : "")],
      ["model", s.model || "?"], ["started", clock(s.started_at, true)],
      ["last activity", clock(s.last_activity_at, true)],
      ["messages", messagesText(view)],
      ["tokens", tokensText(s.tokens)], ["cost", s.cost_text],
      ["active time", counting ? "counting…" : s.active_seconds === null ? "unknown" : seconds(s.active_seconds)]
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
    return dl;
  }

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
    head.appendChild(renderFacts(view));

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

  function renderTurn(turn, info) {
    var box = el("article", "turn role-" + turn.role + (turn.hidden ? " hidden-row" : "") + (turn.kind ? " kind-" + turn.kind : ""));
    box.id = "t-" + turn.n;
    box.setAttribute("data-row", turn.row);
    if (info && info.day) box.appendChild(el("div", "day", info.day));
    if (turn.event) box.appendChild(renderEvent(turn.event));
    if (turn.event && turn.event.type === "model_switch") { box.classList.add("marker"); return box; }
    var head = el("div", "turn-head");
    head.appendChild(el("span", "role", turn.role === "summary" ? "compaction summary" : turn.role));
    var time = el("time", "when", clock(turn.time));
    if (turn.time) time.title = clock(turn.time, true);
    head.appendChild(time);
    var anchor = el("a", "row", turn.divert ? turn.divert : "#" + turn.row);
    anchor.href = "#row-" + turn.row;
    head.appendChild(anchor);
    if (turn.divert) head.appendChild(el("span", "flag warn", "found in the divert file, not in the store"));
    if (turn.role === "summary") head.appendChild(el("span", "flag", "not a prompt"));
    else if (turn.kind) head.appendChild(el("span", "flag", turn.kind));
    if (turn.rewound) head.appendChild(el("span", "flag warn", "rewound"));
    if (turn.compacted) head.appendChild(el("span", "flag warn", "archived by compaction"));
    if (turn.copy_of !== null) head.appendChild(el("span", "flag", "compaction copy of #" + turn.copy_of));
    if (info && info.answered !== undefined) {
      var took = el("span", "answered", "answered in " + seconds(info.answered));
      took.title = "from this prompt to the last reply before the next one";
      head.appendChild(took);
    }
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
    (turn.images || []).forEach(function (image) {
      if (!image.src) return;  // a link is never loaded: its label is in the text
      var img = el("img", "image");
      img.src = image.src;
      img.alt = image.label;
      img.title = image.label;
      box.appendChild(img);
    });
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

  function dayOf(iso) {
    if (!iso) return null;
    var d = new Date(iso);
    if (isNaN(d.getTime())) return null;
    var pad = function (n) { return (n < 10 ? "0" : "") + n; };
    return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate());
  }

  function isPrompt(turn) { return turn.role === "user" && !turn.kind && !turn.hidden && !turn.event; }
  function isFailure(turn) {
    return turn.calls.some(function (c) { var k = callClass(c); return k === "fail" || k === "blocked"; });
  }
  function isEdit(turn) { return turn.calls.some(function (c) { return c.edits.length > 0; }); }
  function isCompaction(turn) { return !!(turn.event && turn.event.type === "compaction"); }
  function isSwitch(turn) { return !!(turn.event && turn.event.type === "model_switch"); }
  var JUMPS = [["failure", isFailure, "the next failing or blocked command"], ["edit", isEdit, "the next file edit"],
               ["compaction", isCompaction, "the next compaction"], ["switch", isSwitch, "the next model switch"]];

  // What each turn shows besides itself: a separator where the day changes (in a session that spans
  // days), and for a prompt, the time until the last reply before the next prompt.
  function turnInfo(turns) {
    var out = [], days = {}, last = null, i;
    turns.forEach(function (t) { var d = dayOf(t.time); if (d) days[d] = true; });
    var many = Object.keys(days).length > 1;
    for (i = 0; i < turns.length; i++) {
      var info = {}, day = dayOf(turns[i].time);
      if (many && day && day !== last) { info.day = day; last = day; }
      out.push(info);
    }
    for (i = 0; i < turns.length; i++) {
      // a compaction copy carries the compaction's time, not the prompt's: no answer time for it
      if (!isPrompt(turns[i]) || !turns[i].time || turns[i].copy_of !== null) continue;
      var end = null;
      for (var j = i + 1; j < turns.length && !isPrompt(turns[j]); j++) {
        if (!turns[j].hidden && turns[j].role === "assistant" && turns[j].time) end = turns[j].time;
      }
      if (end) out[i].answered = Math.max(0, (new Date(end) - new Date(turns[i].time)) / 1000);
    }
    return out;
  }

  // The summary at the top: files touched with lines added and removed (each a jump to its edits),
  // failing commands, and the sub-agent sessions, linked.
  function renderSummary(replay) {
    var view = replay.view, turns = replay.turns, links = replay.links;
    var box = el("details", "summary-box");
    box.open = true;
    var files = {}, order = [], failures = [];
    turns.forEach(function (turn, i) {
      // what happened, once: rows archived by compaction count (a jump to one shows them), their
      // copies do not, nor what was rewound
      if (turn.rewound || turn.copy_of !== null) return;
      turn.calls.forEach(function (call) {
        call.edits.forEach(function (e) {
          if (!(e.path in files)) { files[e.path] = {added: 0, removed: 0, at: []}; order.push(e.path); }
          var f = files[e.path];
          f.added += e.added.length;
          f.removed += e.removed.length;
          if (f.at[f.at.length - 1] !== i) f.at.push(i);
        });
        var k = callClass(call);
        if (k === "fail" || k === "blocked") failures.push([i, call]);
      });
    });
    var delegates = ((view.lineage || {}).children || []).filter(function (c) { return c.relation === "delegate"; });
    var said = [];
    if (order.length) said.push(counted(order.length, "file") + " touched");
    if (failures.length) said.push(counted(failures.length, "failing command"));
    if (delegates.length) said.push(counted(delegates.length, "sub-agent session"));
    box.appendChild(el("summary", null, "summary: " + (said.join(" · ") || "no file touched, no command failed")));
    // a long list shows its first items, the rest one click away
    var list = function (cls, items, first, draw) {
      var ul = el("ul", cls);
      items.slice(0, first).forEach(function (item) { ul.appendChild(draw(item)); });
      if (items.length > first) {
        var more = el("li", "more");
        var b = el("button", "jump more", "and " + (items.length - first) + " more");
        b.type = "button";
        b.addEventListener("click", function () {
          more.remove();
          items.slice(first).forEach(function (item) { ul.appendChild(draw(item)); });
        });
        more.appendChild(b);
        ul.appendChild(more);
      }
      return ul;
    };
    var jump = function (label, cls, at) {
      var b = el("button", "jump " + cls, label);
      b.type = "button";
      var next = 0;
      b.addEventListener("click", function () { replay.goTo(at[next % at.length]); next++; });
      return b;
    };
    if (order.length) {
      box.appendChild(el("div", "label", "files touched"));
      box.appendChild(list("files", order, 8, function (path) {
        var f = files[path], li = el("li");
        li.appendChild(jump(path, "file", f.at));
        li.appendChild(el("span", "add", " +" + f.added));
        li.appendChild(el("span", "del", " -" + f.removed));
        if (f.at.length > 1) li.appendChild(el("span", "dim", " (" + f.at.length + " turns)"));
        return li;
      }));
    }
    if (failures.length) {
      box.appendChild(el("div", "label", "failing commands"));
      box.appendChild(list("failures", failures, 5, function (pair) {
        var call = pair[1], li = el("li");
        var what = call.command ? call.command.command : (call.subject || call.name);
        var status = call.command ? (call.command.exit_code !== null ? "exit " + call.command.exit_code : call.command.status)
          : (call.permission ? call.permission.outcome : "failed");
        li.appendChild(jump(what.split("\n")[0].slice(0, 120), "fail", [pair[0]]));
        li.appendChild(el("span", "dim", " " + status + (replay.turns[pair[0]].hidden ? " (archived)" : "")));
        return li;
      }));
    }
    if (delegates.length) {
      var dl = el("ul", "delegates");
      delegates.forEach(function (c) {
        var li = el("li");
        li.appendChild(linkOrText(c.ref, c.title ? c.title + " (" + c.id + ")" : c.id, links));
        dl.appendChild(li);
      });
      box.appendChild(el("div", "label", "sub-agent sessions"));
      box.appendChild(dl);
    }
    return box;
  }

  function Replay(view, links, root) {
    this.view = view;
    this.turns = view.turns;
    this.links = links;
    this.root = root;
    this.drawn = 0;
    this.current = -1;
    this.placing = 0;  // which goTo is placing its turn (the latest only)
    this.pinned = null;  // the turn gone to, kept current while on screen (see bindings)
    this.nodes = [];
    this.delegatesBefore = [];  // the sub-agent links given out before each turn drawn (redraw)
    this.partial = !!view.partial;  // the first turns only: the rest comes with extend()
    this.counted = view.counted !== false;  // false: made from the first rows, no counts yet
    this.info = turnInfo(this.turns);
    this.byRow = {};
    var self = this;
    this.turns.forEach(function (t, i) { if (!(t.row in self.byRow)) self.byRow[t.row] = i; });
    this.renav();
  }

  // The whole view, after a partial one was drawn: its first turns are the ones already on the page,
  // drawn again where the whole view shows them otherwise (a reply's answer time or a day separator only
  // the later turns tell; anything a view made from the first rows could not know).
  Replay.prototype.extend = function (view) {
    var self = this, before = this.turns, known = this.info;
    this.view = view;
    this.turns = view.turns;
    this.partial = false;
    this.info = turnInfo(this.turns);
    if (!this.counted) {
      this.counted = true;
      var facts = this.root.querySelector("dl.facts");
      if (facts) facts.parentNode.replaceChild(renderFacts(view), facts);
      this.drawToggle();
      this.drawStrays();
    }
    this.redraw(before, known);
    this.drawSummary();
    this.drawJumps();
    this.byRow = {};
    this.turns.forEach(function (t, i) { if (!(t.row in self.byRow)) self.byRow[t.row] = i; });
    this.renav();
    if (this.current >= 0) this.mark(this.current);
    this.drawRest();
    if (this.wanted !== undefined && this.wanted in this.byRow) this.goTo(this.byRow[this.wanted]);
    this.wanted = undefined;
  };

  // The turns the cursor steps through: the replayed ones, and the rows kept aside only while shown.
  Replay.prototype.renav = function () {
    var all = document.body.classList.contains("show-hidden");
    var nav = [], rank = {};
    this.turns.forEach(function (t, i) { if (all || !t.hidden) { rank[i] = nav.length; nav.push(i); } });
    this.nav = nav;
    this.rank = rank;
    this.drawStrip();
    if (this.range) {
      this.range.max = String(Math.max(nav.length - 1, 0));
      if (this.current >= 0) this.mark(this.nearest(this.current, 0));
    }
  };

  // The navigable turn at ``i`` or, when that one is hidden, the next one in direction ``d`` (0: closest).
  Replay.prototype.nearest = function (i, d) {
    if (i in this.rank) return i;
    var nav = this.nav, after = null, before = null;
    for (var k = 0; k < nav.length; k++) {
      if (nav[k] > i) { after = nav[k]; before = k ? nav[k - 1] : null; break; }
    }
    if (after === null && nav.length) before = nav[nav.length - 1];
    if (d > 0) return after !== null ? after : before;
    if (d < 0) return before !== null ? before : after;
    if (after === null) return before;
    if (before === null) return after;
    return after - i <= i - before ? after : before;
  };

  Replay.prototype.step = function (d) {
    if (!this.nav.length) return;
    var r;
    if (this.current in this.rank) r = Math.min(Math.max(this.rank[this.current] + d, 0), this.nav.length - 1);
    else r = this.rank[this.nearest(this.current, d)];
    this.goTo(this.nav[r]);
  };

  Replay.prototype.build = function () {
    var self = this;
    this.summaryHost = el("div", "summary-host");
    this.root.appendChild(this.summaryHost);
    this.drawSummary();
    var bar = el("div", "scrubber");
    var strip = document.createElementNS(SVG, "svg");
    strip.setAttribute("class", "strip");
    strip.setAttribute("preserveAspectRatio", "none");
    strip.setAttribute("aria-hidden", "true");
    this.strip = strip;
    this.cursor = document.createElementNS(SVG, "rect");
    this.cursor.setAttribute("class", "cursor");
    this.cursor.setAttribute("y", "0");
    this.cursor.setAttribute("height", "10");
    // The legend names only the kinds the strip draws (drawStrip shows and hides its keys).
    var legend = el("div", "strip-legend"), keys = this.keys = {};
    [["tick-user", "prompt"], ["tick-assistant", "reply"], ["tick-tool", "tool call"], ["tick-fail", "failure"],
     ["tick-compaction", "compaction"], ["tick-switch", "model switch"], ["gap", "idle > 10 min"]].forEach(function (k) {
      keys[k[0]] = legend.appendChild(el("span", "key " + k[0], k[1]));
    });
    this.drawStrip();
    bar.appendChild(strip);
    bar.appendChild(legend);
    var range = el("input", "scrub");
    range.type = "range";
    range.min = "0";
    range.max = String(Math.max(this.nav.length - 1, 0));
    range.value = "0";
    range.setAttribute("aria-label", "scrub through the turns");
    this.range = range;
    bar.appendChild(range);
    var controls = el("div", "controls");
    this.position = el("span", "position", "");
    controls.appendChild(this.position);
    var prev = el("button", "prev", "◀"); prev.type = "button"; prev.title = "previous turn (k)";
    var next = el("button", "next", "▶"); next.type = "button"; next.title = "next turn (j)";
    // A mouse steps when pressed, not when the click comes: the step scrolls the page, and near the top
    // (the scrubber not yet stuck to it) the button moves away before the release, when the browser sends
    // the click to neither. The click that follows a press is then not a second step; a click from the
    // keyboard (detail 0: Enter, Space) or a touch steps as it comes.
    [[prev, -1], [next, 1]].forEach(function (b) {
      var pressed = false;
      b[0].addEventListener("pointerdown", function (ev) {
        pressed = ev.pointerType === "mouse" && ev.button === 0;
        if (!pressed) return;
        self.step(b[1]);
      });
      b[0].addEventListener("click", function (ev) {
        if (ev.detail > 0 && pressed) { pressed = false; return; }
        self.step(b[1]);
      });
    });
    controls.appendChild(prev);
    controls.appendChild(next);
    this.controls = controls;
    var expand = el("button", "expand", "expand all"); expand.type = "button";
    expand.addEventListener("click", function () {
      self.drawAll();
      var open = expand.textContent === "expand all";
      self.list.querySelectorAll("details.call").forEach(function (d) { d.open = open; });
      expand.textContent = open ? "collapse all" : "expand all";
    });
    controls.appendChild(expand);
    this.expand = expand;
    this.drawToggle();
    this.jumps = el("span", "jumps");
    this.drawJumps();
    controls.appendChild(this.jumps);
    bar.appendChild(controls);
    this.root.appendChild(bar);
    this.list = el("main", "turns");
    this.root.appendChild(this.list);
    this.drawStrays();
    range.addEventListener("input", function () { self.goTo(self.nav[parseInt(range.value, 10)], true); });
    strip.addEventListener("click", function (ev) {
      var box = strip.getBoundingClientRect();
      if (self.nav.length) self.goTo(self.atStrip((ev.clientX - box.left) / box.width));
    });
    document.addEventListener("keydown", function (ev) {
      var t = ev.target;
      if (t && ((t.tagName === "INPUT" && t.type !== "range" && t.type !== "checkbox") || t.tagName === "TEXTAREA")) return;
      if (ev.key === "j") self.step(1);
      if (ev.key === "k") self.step(-1);
    });
    // A turn gone to (j/k, ▶, a link, the scrubber) stays the current one while it is on screen: layouts
    // that follow (content-visibility) move the page after it was placed, and the scroll they cause must
    // not hand the cursor to the turn before it. The reader's own scrolling lets it go.
    var release = function () { self.pinned = null; };
    window.addEventListener("wheel", release, {passive: true});
    window.addEventListener("touchmove", release, {passive: true});
    window.addEventListener("mousedown", function (ev) { if (!self.root.contains(ev.target)) release(); });  // the scrollbar
    document.addEventListener("keydown", function (ev) {
      if (["PageUp", "PageDown", "ArrowUp", "ArrowDown", "Home", "End", " "].indexOf(ev.key) >= 0) release();
    });
    var pending = false;
    window.addEventListener("scroll", function () {
      if (pending) return;
      pending = true;
      requestAnimationFrame(function () { pending = false; self.follow(); });
    }, {passive: true});
  };

  // The checkbox that shows the rows kept aside, when the session has any (once counted).
  Replay.prototype.drawToggle = function () {
    var self = this, view = this.view;
    if (!this.controls || !this.counted) return;
    var hiddenTotal = view.turn_counts ? view.turn_counts.hidden : this.turns.filter(function (t) { return t.hidden; }).length;
    if (!hiddenTotal) return;
    var toggle = el("label", "toggle");
    var box = el("input");
    box.type = "checkbox";
    box.className = "show-hidden";
    box.checked = document.body.classList.contains("show-hidden");
    box.addEventListener("change", function () {
      document.body.classList.toggle("show-hidden", box.checked);
      self.renav();
    });
    toggle.appendChild(box);
    var counts = view.hidden_counts || {};
    var what = Object.keys(counts).map(function (k) { return counts[k] + " " + k; }).join(", ");
    var aside = view.session.kept_aside !== undefined ? view.session.kept_aside : hiddenTotal;
    toggle.appendChild(document.createTextNode(" show the " + aside + " rows kept aside (" + what + ")"));
    this.controls.insertBefore(toggle, this.expand);
  };

  // The rows that could not be read, under the turns (once counted).
  Replay.prototype.drawStrays = function () {
    if (!this.counted || !this.view.strays || !this.view.strays.length) return;
    var strays = el("section", "strays");
    strays.appendChild(el("h2", null, "Rows that could not be read"));
    this.view.strays.forEach(function (s) { strays.appendChild(el("div", "problem", s.where + ": " + s.reason)); });
    this.root.appendChild(strays);
  };

  // Draw again each drawn turn the whole view shows otherwise than the first turns (``before``, with
  // what ``known`` said beside them) did.
  Replay.prototype.redraw = function (before, known) {
    var same = function (a, b) { return JSON.stringify(a) === JSON.stringify(b); };
    var drawn = Math.min(this.drawn, this.turns.length);
    for (var i = 0; i < drawn; i++) {
      if (same(before[i], this.turns[i]) && same(known[i], this.info[i])) continue;
      var node = renderTurn(this.turns[i], this.info[i]);
      var seen = this.delegateSeen;
      this.delegateSeen = this.delegatesBefore[i];
      this.linkDelegates(node, this.turns[i]);
      this.delegateSeen = seen;
      if (this.nodes[i].classList.contains("current")) node.classList.add("current");
      this.nodes[i].parentNode.replaceChild(node, this.nodes[i]);
      this.nodes[i] = node;
    }
  };

  // A jump for each kind of turn the session has (all four while only its first turns are here).
  Replay.prototype.drawJumps = function () {
    var self = this;
    if (!this.jumps) return;
    this.jumps.textContent = "";
    JUMPS.forEach(function (j) {
      if (!self.partial && !self.turns.some(j[1])) return;
      var b = el("button", "jump-" + j[0], j[0] + " ▸");
      b.type = "button";
      b.title = "go to " + j[2];
      b.addEventListener("click", function () { self.jump(j[1]); });
      self.jumps.appendChild(b);
    });
  };

  Replay.prototype.drawSummary = function () {
    if (!this.summaryHost) return;
    this.summaryHost.textContent = "";
    if (this.partial) return;  // made from every turn: drawn when they are all here
    this.summaryHost.appendChild(renderSummary(this));
  };

  // The next turn (after the cursor, wrapping) that ``test`` picks among those the cursor steps through.
  Replay.prototype.jump = function (test) {
    var nav = this.nav, start = this.current in this.rank ? this.rank[this.current] : -1;
    for (var k = 1; k <= nav.length; k++) {
      var i = nav[(start + k) % nav.length];
      if (test(this.turns[i])) { this.goTo(i); return; }
    }
  };

  // A delegate_task call links to the sub-agent session it started (the session's delegate children, in
  // the order of the calls).
  Replay.prototype.linkDelegates = function (node, turn) {
    var children = ((this.view.lineage || {}).children || []).filter(function (c) { return c.relation === "delegate"; });
    if (!children.length) return;
    if (this.delegateSeen === undefined) this.delegateSeen = 0;
    var self = this;
    turn.calls.forEach(function (call, k) {
      if (call.name !== "delegate_task" || turn.copy_of !== null) return;
      var child = children[self.delegateSeen++];
      if (!child) return;
      var box = node.querySelectorAll("details.call")[k];
      if (!box) return;
      var line = el("div", "delegate-link");
      line.appendChild(el("span", "label", "sub-agent"));
      line.appendChild(linkOrText(child.ref, child.title ? child.title + " (" + child.id + ")" : child.id, self.links));
      box.parentNode.insertBefore(line, box.nextSibling);
    });
  };

  // The strip: one tick per turn the cursor steps through (rows kept aside only while shown).
  // Where each turn sits on the strip, on a time scale: a turn spans from its time to the next one's, an
  // idle gap longer than GAP is drawn as a gap of fixed width (the strip stays readable across a night),
  // and every turn gets at least a sliver. Without times, one unit a turn.
  var GAP = 600;  // seconds
  Replay.prototype.layout = function () {
    var turns = this.turns, nav = this.nav;
    var times = nav.map(function (i) { var t = turns[i].time ? Date.parse(turns[i].time) / 1000 : NaN; return t; });
    var known = times.filter(function (t) { return !isNaN(t); });
    var span = known.length > 1 ? Math.max.apply(null, known) - Math.min.apply(null, known) : 0;
    var x = [], w = [], gaps = [], at = 0;
    if (!span) {
      nav.forEach(function (_, k) { x.push(k); w.push(1); });
      return {x: x, w: w, gaps: gaps, total: Math.max(nav.length, 1)};
    }
    // each turn's time to the next one's (null: unknown, or the last turn)
    var last = NaN, steps = [], active = 0;
    for (var k = 0; k < nav.length; k++) {
      var t = isNaN(times[k]) ? last : times[k];
      var next = NaN;
      for (var j = k + 1; j < nav.length; j++) if (!isNaN(times[j])) { next = times[j]; break; }
      var step = isNaN(t) || isNaN(next) ? null : Math.max(next - t, 0);
      steps.push(step);
      if (step !== null) active += Math.min(step, GAP);
      last = t;
    }
    var floor = Math.max(active / Math.max(nav.length, 1) / 4, 0.5), gapWidth = Math.max(active / 25, floor * 4);
    for (k = 0; k < nav.length; k++) {
      var d = steps[k] === null ? floor : steps[k];
      x.push(at);
      if (steps[k] !== null && d > GAP) {  // the turn, then the idle time as a gap
        w.push(floor * 2);
        gaps.push({x: at + floor * 2, w: gapWidth, seconds: d});
        at += floor * 2 + gapWidth;
      } else {
        w.push(Math.max(d, floor));
        at += Math.max(d, floor);
      }
    }
    return {x: x, w: w, gaps: gaps, total: Math.max(at, 1e-3)};
  };

  Replay.prototype.drawStrip = function () {
    var strip = this.strip, turns = this.turns;
    if (!strip) return;
    while (strip.firstChild) strip.removeChild(strip.firstChild);
    var place = this.place = this.layout();
    strip.setAttribute("viewBox", "0 0 " + place.total + " 10");
    var many = this.nav.length > 4000;  // thousands of tooltips cost more than they tell
    this.nav.forEach(function (i, k) {
      var turn = turns[i];
      var rect = document.createElementNS(SVG, "rect");
      rect.setAttribute("x", String(place.x[k]));
      rect.setAttribute("width", String(place.w[k]));
      var tall = turn.event ? 0 : (turn.role === "user" ? 2 : 4);
      rect.setAttribute("y", String(tall));
      rect.setAttribute("height", String(10 - tall));
      rect.setAttribute("class", tickClass(turn) + (turn.hidden ? " tick-hidden" : ""));
      if (!many) {
        var tip = document.createElementNS(SVG, "title");
        tip.textContent = "turn " + (k + 1) + " · " + clock(turn.time, true) + " · " + roleLabel(turn) + " #" + turn.row +
          (turn.calls.length ? " · " + counted(turn.calls.length, "tool call") : "");
        rect.appendChild(tip);
      }
      strip.appendChild(rect);
    });
    place.gaps.forEach(function (g) {
      var rect = document.createElementNS(SVG, "rect");
      rect.setAttribute("x", String(g.x));
      rect.setAttribute("width", String(g.w));
      rect.setAttribute("y", "0");
      rect.setAttribute("height", "10");
      rect.setAttribute("class", "gap");
      var tip = document.createElementNS(SVG, "title");
      tip.textContent = "idle " + seconds(g.seconds);
      rect.appendChild(tip);
      strip.appendChild(rect);
    });
    this.cursor.setAttribute("width", String(place.total / 200));
    strip.appendChild(this.cursor);
    var drawn = {gap: place.gaps.length > 0};
    this.nav.forEach(function (i) { drawn[tickClass(turns[i])] = true; });
    var keys = this.keys || {};
    Object.keys(keys).forEach(function (k) { keys[k].hidden = !drawn[k]; });
  };

  // The turn under a point of the strip (a fraction of its width).
  Replay.prototype.atStrip = function (fraction) {
    var place = this.place, target = fraction * place.total, lo = 0, hi = this.nav.length - 1;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (place.x[mid] <= target) lo = mid; else hi = mid - 1;
    }
    return this.nav[lo];
  };

  Replay.prototype.draw = function (upTo) {
    var end = Math.min(upTo, this.turns.length);
    if (this.drawn >= end) return;
    var frag = document.createDocumentFragment();
    for (var i = this.drawn; i < end; i++) {
      var node = renderTurn(this.turns[i], this.info[i]);
      this.delegatesBefore[i] = this.delegateSeen || 0;
      this.linkDelegates(node, this.turns[i]);
      this.nodes.push(node);
      frag.appendChild(node);
    }
    this.drawn = end;
    this.list.appendChild(frag);
    if (this.drawn === this.turns.length && !this.partial) document.body.setAttribute("data-drawn", "all");
  };

  Replay.prototype.drawAll = function () { this.draw(this.turns.length); };

  Replay.prototype.drawRest = function () {
    var self = this;
    var step = function () {
      self.draw(self.drawn + BATCH);
      if (self.drawn < self.turns.length) setTimeout(step, 0);
      else if (!self.partial && window.performance && performance.mark) performance.mark("trail-all-turns");
    };
    setTimeout(step, 0);
  };

  Replay.prototype.mark = function (i) {
    if (this.current >= 0 && this.nodes[this.current]) this.nodes[this.current].classList.remove("current");
    this.current = i;
    if (this.nodes[i]) this.nodes[i].classList.add("current");
    var turn = this.turns[i];
    if (!turn) return;
    var r = i in this.rank ? this.rank[i] : 0;
    this.range.value = String(r);
    if (this.place && this.place.x[r] !== undefined) this.cursor.setAttribute("x", String(this.place.x[r]));
    var of = this.nav.length, counts = this.view.turn_counts;
    if (this.partial && counts) of = counts.shown + (document.body.classList.contains("show-hidden") ? counts.hidden : 0);
    else if (this.partial) of = "…";  // not counted yet
    this.position.textContent = "turn " + (r + 1) + " of " + of + " · " + clock(turn.time) + " · " +
      roleLabel(turn) + " #" + turn.row;
  };

  Replay.prototype.goTo = function (i, fromRange) {
    if (!this.turns.length || i === undefined || i === null || isNaN(i)) return;
    this.draw(i + 1);
    var turn = this.turns[i];
    if (turn.hidden && !document.body.classList.contains("show-hidden")) {
      // only a link to a row kept aside gets here (stepping skips them): show them, as asked
      var box = this.root.querySelector("input.show-hidden");
      if (box) box.checked = true;
      document.body.classList.add("show-hidden");
      this.renav();
    }
    this.mark(i);
    this.pinned = i;
    this.scrolling = true;
    var node = this.nodes[i], self = this, frames = 0, still = 0, placing = ++this.placing;
    // Put the turn just below the sticky scrubber. Turns near the new place take their real heights in
    // the layouts that follow (content-visibility), which moves the target: place it again each frame
    // until it has stayed put for a few frames. Only the latest turn gone to is placed: keys pressed in
    // a row started one loop each, which pulled the page between their turns, and the first to stop said
    // the page was still while the others went on moving it.
    var place = function () {
      if (placing !== self.placing) return;
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
    var pinned = this.pinned !== null && this.pinned !== undefined ? this.nodes[this.pinned] : null;
    if (pinned) {
      var box = pinned.getBoundingClientRect();
      if (box.height && box.bottom > offset && box.top < window.innerHeight) return;  // still on screen
      this.pinned = null;
    }
    // the drawn turns on screen (a row kept aside and not shown has no box)
    var drawn = this.nav.filter(function (i) { return i < this.drawn; }, this);
    if (!drawn.length) return;
    var doc = document.documentElement;
    if (this.drawn === this.turns.length && window.scrollY > 0 &&
        window.innerHeight + window.scrollY >= doc.scrollHeight - 2) {
      this.mark(drawn[drawn.length - 1]);  // the page's end: the last turn, which cannot reach the top
      return;
    }
    // binary search for the first drawn turn whose bottom is below the scrubber
    var lo = 0, hi = drawn.length - 1;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (this.nodes[drawn[mid]].getBoundingClientRect().bottom <= offset) lo = mid + 1; else hi = mid;
    }
    if (top < offset || lo > 0) this.mark(drawn[lo]);
  };

  Replay.prototype.start = function () {
    this.build();
    this.draw(BATCH_FIRST);
    if (window.performance && performance.mark) performance.mark("trail-first-turns");
    var wanted = /^#row-(\d+)$/.exec(location.hash);
    if (wanted && wanted[1] in this.byRow) this.goTo(this.byRow[wanted[1]]);
    else if (this.nav.length) this.mark(this.nav[0]);
    if (wanted && !(wanted[1] in this.byRow) && this.partial) this.wanted = wanted[1];
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
    return replay;
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
  // The first turns first (answered as soon as the session is read), then the whole view.
  var url = "/api/session?ref=" + encodeURIComponent(ref);
  var getView = function (u) {
    return fetch(u, {credentials: "same-origin"})
      .then(function (r) { return r.json().then(function (body) { return {ok: r.ok, body: body}; }); });
  };
  getView(url + "&head=" + HEAD).then(function (res) {
    if (!res.ok) { fail(res.body.error || "could not load the session"); return; }
    var replay = show(res.body, null);
    if (!res.body.partial) return;
    getView(url).then(function (whole) {
      if (whole.ok) replay.extend(whole.body);
      else fail(whole.body.error || "could not load the session");
    });
  }).catch(function (e) { fail("could not load the session: " + e); });
})();
