// Live viewer of one match: /match/<id> (and the arbiter view, which adds arbiter.js).
// State comes from the SSE stream: an `event: state` catch-up on every (re)connection,
// then events and states. window.bugbridge exposes the state for scripts and tests.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const id = decodeURIComponent(location.pathname.split("/")[2] || "");
  const params = new URLSearchParams(location.search);
  const overlay = params.get("overlay") === "1";
  if (overlay) document.body.classList.add("overlay");

  const stored = localStorage.getItem("bugbridge.flipB");
  const api = {
    match: id,
    state: null,
    events: [],
    connected: false,
    // Whether the table's daemon is online, when a relay says (null on the daemon itself).
    online: null,
    seq: 0,
    receivedAt: 0,
    flipB: stored === null ? true : stored === "1",
    stateCount: 0,
    setFlip,
    render,
    clockValue,
  };
  window.bugbridge = api;

  const flip = $("flip-b");
  flip.checked = api.flipB;
  flip.addEventListener("change", () => setFlip(flip.checked));
  $("bpgn-link").href = "/api/matches/" + encodeURIComponent(id) + "/bpgn";

  // Clock elements and name elements are made once and moved between the bars on flip.
  const clocks = {};
  const names = {};
  for (const b of ["A", "B"]) {
    for (const c of ["white", "black"]) {
      const name = document.createElement("span");
      name.className = "name";
      name.id = "name-" + b + "-" + c;
      const clock = document.createElement("span");
      clock.className = "clock";
      clock.id = "clock-" + b + "-" + c;
      clock.dataset.board = b;
      clock.dataset.color = c;
      clock.textContent = "–:––";
      names[b + c] = name;
      clocks[b + c] = clock;
    }
  }

  function setFlip(on) {
    api.flipB = !!on;
    flip.checked = api.flipB;
    localStorage.setItem("bugbridge.flipB", api.flipB ? "1" : "0");
    if (api.state) render(api.state);
  }

  function bottomColor(board) {
    return board === "B" && api.flipB ? "black" : "white";
  }

  function fmt(seconds) {
    if (!isFinite(seconds)) return "–:––";
    const s = Math.max(0, seconds);
    if (s < 20) return s.toFixed(1);
    const whole = Math.floor(s);
    const h = Math.floor(whole / 3600);
    const m = Math.floor((whole % 3600) / 60);
    const sec = String(whole % 60).padStart(2, "0");
    return h ? h + ":" + String(m).padStart(2, "0") + ":" + sec : m + ":" + sec;
  }

  // Remaining time of one clock now: the reading minus what elapsed since it was taken.
  function clockValue(board, color) {
    const st = api.state;
    if (!st || !st.clocks || !st.clocks[board]) return NaN;
    const c = st.clocks[board];
    let v = c[color];
    // An offline table (a relay says so): its clocks are its last readings, not running.
    if (c.running === color && !st.result && api.online !== false) {
      const transit = Math.min(2000, Math.max(0, api.receivedAt - (st.clocks.at || api.receivedAt)));
      v -= (Date.now() - api.receivedAt + transit) / 1000;
    }
    return Math.max(0, v);
  }

  function configured(st, b) {
    return !(st.boards && st.boards[b] && st.boards[b].configured === false);
  }

  function tick() {
    const st = api.state;
    if (!st) return;
    for (const b of ["A", "B"]) {
      for (const c of ["white", "black"]) {
        const el = clocks[b + c];
        // A board the table's configuration does not have, or whose clock has never been
        // read (a board without a clock), has no clock to show (not a flagged 0.0).
        el.hidden = !configured(st, b) || !!(st.clocks && st.clocks[b] && st.clocks[b].unread);
        if (el.hidden) { el.textContent = ""; el.classList.remove("running", "low", "flagged"); continue; }
        const v = clockValue(b, c);
        el.textContent = fmt(v);
        const running = !!(st.clocks && st.clocks[b] && st.clocks[b].running === c && !st.result && api.online !== false);
        el.classList.toggle("running", running);
        el.classList.toggle("low", v < 20);
        el.classList.toggle("flagged", v <= 0);
      }
    }
  }
  setInterval(tick, 100);

  // A move's flags (`reconstructed`, `ambiguous`, ...) as one attribute value.
  function flagsOf(m) {
    return (m.flags || []).join(" ");
  }

  function tokenOf(m) {
    const letter = m.board === "A" ? (m.side === "white" ? "A" : "a") : (m.side === "white" ? "B" : "b");
    return m.number + letter + ".";
  }

  function renderMoves(st) {
    const list = $("moves");
    const moves = st.moves || [];
    // Rebuild when the list was corrected (replaced move) or shrank; else append.
    const items = list.children;
    let same = items.length <= moves.length;
    for (let i = 0; same && i < items.length; i++) {
      if (items[i].dataset.key !== tokenOf(moves[i]) + moves[i].san + "|" + flagsOf(moves[i])) same = false;
    }
    if (!same) list.innerHTML = "";
    for (let i = list.children.length; i < moves.length; i++) {
      const m = moves[i];
      const li = document.createElement("li");
      li.className = "mv board-" + m.board;
      li.dataset.index = i;
      li.dataset.board = m.board;
      li.dataset.key = tokenOf(m) + m.san + "|" + flagsOf(m);
      // Moves worked out after a lost connection rather than seen: marked as such.
      const flags = m.flags || [];
      if (flags.length) li.dataset.flags = flagsOf(m);
      if (flags.includes("reconstructed")) {
        li.classList.add("reconstructed");
        li.dataset.reconstructed = flags.includes("ambiguous") ? "ambiguous" : "yes";
        li.title = flags.includes("ambiguous")
          ? "Reconstructed after a lost connection; other orders were possible (see the arbiter's alert)"
          : "Reconstructed after a lost connection";
      }
      li.innerHTML = '<span class="tok"></span> <span class="san"></span>' +
        (m.clock != null ? ' <span class="t"></span>' : "");
      li.querySelector(".tok").textContent = tokenOf(m);
      li.querySelector(".san").textContent = m.san;
      if (m.clock != null) li.querySelector(".t").textContent = "{" + Math.round(m.clock) + "}";
      list.appendChild(li);
    }
    for (const li of list.querySelectorAll(".current")) li.classList.remove("current");
    const last = list.lastElementChild;
    if (last) {
      last.classList.add("current");
      last.setAttribute("aria-current", "true");
    }
    if (moves.length !== shownMoves || !same) {
      shownMoves = moves.length;
      scrollToLast();
    }
  }
  // The list is scrolled once the page is laid out (the BFEN text under it, set after the
  // list, makes it shorter): on the next frames, and again when the list changes size.
  let shownMoves = -1;
  function scrollToLast() {
    const list = $("moves");
    // Scroll the list only (scrollIntoView would scroll the page on phones).
    const down = () => { list.scrollTop = list.scrollHeight; };
    down();
    requestAnimationFrame(() => requestAnimationFrame(down));
  }
  if (window.ResizeObserver) new ResizeObserver(() => { if (shownMoves >= 0) $("moves").scrollTop = $("moves").scrollHeight; }).observe($("moves"));
  api.scrollToLast = scrollToLast;

  function renderBoard(st, b) {
    const info = (st.boards && st.boards[b]) || {};
    const fromBfen = window.BBBoard.parseBfen(st.bfen)[b];
    const parsed = info.bfen ? window.BBBoard.parseBoard(info.bfen) : fromBfen;
    const holdings = info.holdings != null && info.holdings !== "" ? info.holdings : parsed.holdings;
    const flipped = bottomColor(b) === "black";
    // A board whose moves are not being recorded (its link is back, the plies it missed
    // could not be worked out): the pieces as they stand, marked "not recorded".
    const physical = info.physical ? window.BBBoard.parseBoard(info.physical) : null;
    const shown = physical ? Object.assign({}, parsed, { squares: physical.squares }) : parsed;
    window.BBBoard.render($("board-" + b), b, shown, physical ? null : info.last_move, flipped);
    markGrab($("board-" + b), grabOn(st, b));
    const bottom = bottomColor(b);
    const top = bottom === "white" ? "black" : "white";
    window.BBBoard.renderHoldings($("hold-" + b + "-top"), b, holdings.replace(top === "white" ? /[a-z]/g : /[A-Z]/g, ""), top);
    window.BBBoard.renderHoldings($("hold-" + b + "-bottom"), b, holdings.replace(bottom === "white" ? /[a-z]/g : /[A-Z]/g, ""), bottom);
    for (const [bar, color] of [["top", top], ["bottom", bottom]]) {
      const el = $("bar-" + b + "-" + bar);
      el.dataset.color = color;
      const name = names[b + color];
      name.textContent = info[color] || (color === "white" ? "White " : "Black ") + b;
      el.append(name, clocks[b + color]);
      const toMove = (info.to_move || (parsed.side === "b" ? "black" : "white")) === color;
      el.classList.toggle("to-move", toMove && !st.result);
    }
    const block = $("block-" + b);
    // A board the configuration does not have is not a lost link.
    const unconfigured = info.configured === false;
    block.classList.toggle("unconfigured", unconfigured);
    block.dataset.configured = unconfigured ? "no" : "yes";
    const lost = info.connected === false && !unconfigured;
    block.classList.toggle("disconnected", lost);
    block.dataset.link = lost ? "down" : "up";
    block.classList.toggle("unrecorded", !!physical);
    block.dataset.recorded = physical ? "no" : "yes";
    block.title = unconfigured ? "Board " + b + ": not configured at this table" : lost ? "Board " + b + ": link lost" :
      physical ? "Board " + b + ": not recorded (shown as it stands; its moves since the link came back could not be worked out)" : "";
  }

  // Koedem: a grab promotion (`b8=Ra1`) takes a piece off the other board; the square it
  // left there is marked while that promotion is the last move.
  function grabOn(st, b) {
    const moves = st.moves || [];
    const last = moves[moves.length - 1];
    if (!last || last.board === b) return null;
    const m = /=[QRBN]([a-h][1-8])/.exec(last.san || "");
    return m ? m[1] : null;
  }

  function markGrab(el, square) {
    for (const sq of el.children) sq.classList.toggle("grabbed", sq.dataset.square === square);
  }

  function render(st) {
    api.state = st;
    const t = st.tags || {};
    $("title").textContent = t.Event ? t.Event + " · " + (st.id || id) : "Match " + (st.id || id);
    document.title = $("title").textContent + " · bugbridge";
    renderBoard(st, "A");
    renderBoard(st, "B");
    renderMoves(st);
    $("bfen").textContent = st.bfen || "";
    const res = $("result");
    if (st.result) {
      const r = st.result;
      const who = r.result === "1-0" ? "Team " + teamName(st, "A") + " wins" :
        r.result === "0-1" ? "Team " + teamName(st, "B") + " wins" : "Draw";
      res.textContent = r.result + " · " + who + " · " + r.reason.replace(/-/g, " ") +
        (r.board ? " on board " + r.board : "") + (r.detail ? " (" + r.detail + ")" : "");
      res.hidden = false;
    } else {
      res.hidden = true;
    }
    tick();
  }

  // Team "A" = WhiteA + BlackB (the 1-0 team); team "B" = BlackA + WhiteB.
  function teamName(st, team) {
    const b = st.boards || {};
    const one = team === "A" ? (b.A || {}).white : (b.A || {}).black;
    const two = team === "A" ? (b.B || {}).black : (b.B || {}).white;
    return one && two ? one + " & " + two : team === "A" ? "White A / Black B" : "Black A / White B";
  }

  function setConn(state) {
    api.connected = state === "live";
    const el = $("conn");
    el.dataset.state = state;
    el.dataset.table = api.online === false ? "offline" : "online";
    el.textContent = state === "live" && api.online === false ? "table offline" : state;
  }

  let source = null;
  function connect() {
    if (source) source.close();
    setConn("connecting");
    source = new EventSource("/api/matches/" + encodeURIComponent(id) + "/stream");
    source.addEventListener("open", () => setConn("live"));
    source.addEventListener("state", (e) => {
      const st = JSON.parse(e.data);
      api.receivedAt = Date.now();
      api.seq = st.seq;
      api.stateCount++;
      render(st);
      setConn("live");
      document.dispatchEvent(new CustomEvent("bugbridge:state", { detail: st }));
    });
    // A relay says whether the table's daemon is online (after the catch-up, on change).
    source.addEventListener("status", (e) => {
      api.online = !!JSON.parse(e.data).online;
      setConn($("conn").dataset.state);
      tick();
    });
    source.addEventListener("message", (e) => {
      const ev = JSON.parse(e.data);
      api.events.push(ev);
      if (api.events.length > 500) api.events.shift();
      api.seq = Math.max(api.seq, ev.seq);
      document.dispatchEvent(new CustomEvent("bugbridge:event", { detail: ev }));
    });
    source.addEventListener("error", () => {
      setConn("reconnecting");
      // The browser retries on its own unless the server refused (e.g. 404): then retry here.
      if (source.readyState === EventSource.CLOSED) setTimeout(connect, 3000);
    });
  }
  api.reconnect = connect;
  connect();
})();
