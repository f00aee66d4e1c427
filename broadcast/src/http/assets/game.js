// A recorded game, step by step: /games/<match>/<n>. The daemon computed every position
// (GET /api/games/<match>/<n>: start_bfen and the BFEN after each move); this page only
// draws them. Buttons and the keyboard (← → Home End) move through the game.
// window.bugbridge exposes the game and the current ply for scripts and tests.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const parts = location.pathname.split("/");
  const match = decodeURIComponent(parts[2] || "");
  const number = parts[3] || "";
  const base = "/api/games/" + encodeURIComponent(match) + "/" + encodeURIComponent(number);
  const api = { match, number, game: null, ply: 0, go, first, prev, next, last, error: null };
  window.bugbridge = api;
  $("bpgn-link").href = base + "/bpgn";

  function tokenOf(m) {
    const letter = m.board === "A" ? (m.side === "white" ? "A" : "a") : (m.side === "white" ? "B" : "b");
    return m.number + letter + ".";
  }

  function fmt(seconds) {
    if (seconds == null || !isFinite(seconds)) return "–:––";
    const whole = Math.floor(Math.max(0, seconds));
    if (seconds < 20) return Math.max(0, seconds).toFixed(1);
    return Math.floor(whole / 60) + ":" + String(whole % 60).padStart(2, "0");
  }

  // "placement side castling ep wtime btime": the times, when the BFEN has them.
  function times(part) {
    const f = (part || "").trim().split(/\s+/);
    const w = parseFloat(f[4]);
    const b = parseFloat(f[5]);
    return { white: isFinite(w) ? w : null, black: isFinite(b) ? b : null };
  }

  function buildMoves(g) {
    const list = $("moves");
    list.innerHTML = "";
    g.moves.forEach((m, i) => {
      const li = document.createElement("li");
      li.className = "mv board-" + m.board;
      li.dataset.index = i;
      li.dataset.board = m.board;
      li.tabIndex = -1;
      li.innerHTML = '<span class="tok"></span> <span class="san"></span>' +
        (m.clock != null ? ' <span class="t"></span>' : "");
      li.querySelector(".tok").textContent = tokenOf(m);
      li.querySelector(".san").textContent = m.san;
      if (m.clock != null) li.querySelector(".t").textContent = "{" + Math.round(m.clock) + "}";
      li.addEventListener("click", () => go(i + 1));
      list.appendChild(li);
    });
  }

  // The last move of `board` among the first `ply` moves, for highlighting.
  function lastOn(g, board, ply) {
    for (let i = ply - 1; i >= 0; i--) if (g.moves[i].board === board) return g.moves[i];
    return null;
  }

  function renderBoard(g, b, part, ply) {
    const parsed = window.BBBoard.parseBoard(part);
    const bottom = b === "B" ? "black" : "white";
    const top = bottom === "white" ? "black" : "white";
    window.BBBoard.render($("board-" + b), b, parsed, lastOn(g, b, ply), bottom === "black");
    const h = parsed.holdings;
    window.BBBoard.renderHoldings($("hold-" + b + "-top"), b, h.replace(top === "white" ? /[a-z]/g : /[A-Z]/g, ""), top);
    window.BBBoard.renderHoldings($("hold-" + b + "-bottom"), b, h.replace(bottom === "white" ? /[a-z]/g : /[A-Z]/g, ""), bottom);
    const players = (g.players && g.players[b]) || {};
    const t = times(part);
    for (const [bar, color] of [["top", top], ["bottom", bottom]]) {
      const el = $("bar-" + b + "-" + bar);
      el.dataset.color = color;
      el.innerHTML = '<span class="name"></span><span class="clock"></span>';
      el.querySelector(".name").textContent = players[color] || (color === "white" ? "White " : "Black ") + b;
      const clock = el.querySelector(".clock");
      clock.id = "clock-" + b + "-" + color;
      clock.textContent = fmt(t[color]);
      el.classList.toggle("to-move", (parsed.side === "b" ? "black" : "white") === color && ply < g.moves.length);
    }
  }

  function go(ply) {
    const g = api.game;
    if (!g) return;
    api.ply = Math.max(0, Math.min(g.moves.length, ply));
    const bfen = api.ply === 0 ? g.start_bfen : g.moves[api.ply - 1].bfen;
    const halves = bfen.split("|");
    renderBoard(g, "A", halves[0], api.ply);
    renderBoard(g, "B", halves[1], api.ply);
    $("bfen").textContent = bfen;
    $("ply").textContent = api.ply + " / " + g.moves.length;
    $("first").disabled = $("prev").disabled = api.ply === 0;
    $("next").disabled = $("last").disabled = api.ply === g.moves.length;
    for (const li of $("moves").children) {
      const current = Number(li.dataset.index) === api.ply - 1;
      li.classList.toggle("current", current);
      if (current) li.setAttribute("aria-current", "true"); else li.removeAttribute("aria-current");
    }
    reveal();
    // Again once laid out (the BFEN text under the list, set above, changes its height).
    requestAnimationFrame(() => requestAnimationFrame(reveal));
    document.dispatchEvent(new CustomEvent("bugbridge:ply", { detail: api.ply }));
  }
  // Scrolls the move list (only the list: scrollIntoView would scroll the page on phones)
  // so that the highlighted move is in view.
  function reveal() {
    const list = $("moves");
    const li = list.querySelector(".current");
    if (!li) { if (api.ply === 0) list.scrollTop = 0; return; }
    const box = list.getBoundingClientRect();
    const r = li.getBoundingClientRect();
    if (r.top < box.top) list.scrollTop -= box.top - r.top;
    else if (r.bottom > box.bottom) list.scrollTop += r.bottom - box.bottom;
  }
  function first() { go(0); }
  function prev() { go(api.ply - 1); }
  function next() { go(api.ply + 1); }
  function last() { go(api.game ? api.game.moves.length : 0); }

  $("first").addEventListener("click", first);
  $("prev").addEventListener("click", prev);
  $("next").addEventListener("click", next);
  $("last").addEventListener("click", last);
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const action = { ArrowLeft: prev, ArrowRight: next, Home: first, End: last }[e.key];
    if (action) { e.preventDefault(); action(); }
  });

  function show(g) {
    api.game = g;
    const t = g.tags || {};
    const title = (t.Event ? t.Event + " · " : "") + "Match " + g.match + " · game " + g.number;
    $("title").textContent = title;
    document.title = title + " · bugbridge";
    const res = $("result");
    // Team "A" = White on A + Black on B (the 1-0 team); team "B" = Black on A + White on B.
    const p = g.players || {};
    const name = (b, c) => (p[b] && p[b][c]) || (c === "white" ? "White " : "Black ") + b;
    res.textContent = g.result === "*" ? "Unfinished" : g.result + " · " +
      (g.result === "1-0" ? name("A", "white") + " & " + name("B", "black") + " win" :
        g.result === "0-1" ? name("A", "black") + " & " + name("B", "white") + " win" : "Draw");
    res.hidden = false;
    if (g.incomplete) { $("incomplete").textContent = g.incomplete; $("incomplete").hidden = false; }
    buildMoves(g);
    last();
  }

  fetch(base)
    .then((r) => (r.ok ? r.json() : r.json().then((e) => Promise.reject(new Error(e.error)))))
    .then(show)
    .catch((e) => { api.error = String(e.message || e); $("title").textContent = api.error; });
})();
