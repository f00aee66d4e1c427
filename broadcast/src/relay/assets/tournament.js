// The tournament page: every table as a compact pair of boards with names, clocks and
// result, grouped by the Event and Round tags, ordered by the Table tag; fed by one stream.
(function () {
  "use strict";
  const root = document.getElementById("rounds");
  const tables = {};
  const api = { tables, updates: 0 };
  window.bugbridge = api;

  function groupKey(t) {
    const tags = t.tags || {};
    return JSON.stringify([tags.Event || "", tags.Round || ""]);
  }
  function order(t) {
    const tag = (t.tags || {}).Table;
    const n = tag === undefined ? Infinity : Number(tag);
    return [isNaN(n) ? Infinity - 1 : n, tag || "", t.id];
  }
  function cmp(a, b) {
    const x = order(a), y = order(b);
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
  }
  function fmt(s) {
    s = Math.max(0, s);
    const m = Math.floor(s / 60), r = Math.floor(s % 60);
    return m + ":" + String(r).padStart(2, "0");
  }
  // A board the table's configuration lacks (a one-board table), or whose clock was never
  // read (published `unread`), has no clock to show: not a 0:00.
  function unclocked(t, b) {
    const info = (t.boards || {})[b] || {};
    const c = (t.clocks || {})[b] || {};
    return info.configured === false || !!c.unread || !t.clocks;
  }
  function clock(t, b, color) {
    const c = (t.clocks || {})[b] || {};
    let v = c[color] || 0;
    // An offline table's clocks are its last readings: nothing runs while no one reads them.
    if (c.running === color && t.clocks.at && !t.result && t.status !== "offline") v -= (Date.now() - t.clocks.at) / 1000;
    return v;
  }

  function card(t) {
    const a = document.createElement("div");
    a.className = "match-card table-card";
    a.dataset.match = t.id;
    a.innerHTML = '<h2><a class="title"></a> <span class="badge"></span></h2>' +
      '<div class="mini"><div><div class="names" data-names="A"></div><div class="board"></div></div>' +
      '<div><div class="names" data-names="B"></div><div class="board"></div></div></div>' +
      '<div class="last"></div><a class="bpgn" download>BPGN</a>';
    a.querySelector(".title").href = "/match/" + encodeURIComponent(t.id);
    a.querySelector(".bpgn").href = "/api/matches/" + encodeURIComponent(t.id) + "/bpgn";
    return a;
  }

  function names(el, t, b) {
    const info = (t.boards || {})[b] || {};
    const running = ((t.clocks || {})[b] || {}).running;
    el.innerHTML = "";
    const tags = t.tags || {};
    for (const color of ["white", "black"]) {
      const seat = document.createElement("span");
      seat.className = "seat " + color;
      const name = document.createElement("span");
      name.className = "name";
      name.textContent = info[color] || tags[(color === "white" ? "White" : "Black") + b] || (color === "white" ? "White" : "Black");
      const span = document.createElement("span");
      span.dataset.clock = b + "-" + color;
      if (unclocked(t, b)) {
        span.className = "clock";
        span.hidden = true;
      } else {
        span.className = "clock" + (running === color && t.status !== "offline" ? " running" : "");
        span.textContent = fmt(clock(t, b, color));
      }
      seat.append(name, span);
      el.appendChild(seat);
    }
  }

  function render(t) {
    const entry = tables[t.id] || (tables[t.id] = { el: card(t) });
    entry.state = t;
    const el = entry.el;
    el.dataset.status = t.status;
    el.dataset.seq = t.seq;
    el.dataset.table = (t.tags || {}).Table || "";
    el.dataset.result = t.result ? t.result.result : "";
    el.querySelector(".title").textContent = ((t.tags || {}).Table ? "Table " + t.tags.Table : t.id);
    el.querySelector(".badge").textContent = t.status === "offline" ? "offline" : "";
    const boards = el.querySelectorAll(".board");
    const parsed = t.bfen ? window.BBBoard.parseBfen(t.bfen) : null;
    ["A", "B"].forEach((b, i) => {
      const info = (t.boards || {})[b] || {};
      // A board the table's configuration lacks is dimmed, like on the viewer.
      boards[i].parentNode.classList.toggle("unconfigured", info.configured === false);
      boards[i].parentNode.dataset.configured = info.configured === false ? "no" : "yes";
      const pos = info.bfen ? window.BBBoard.parseBoard(info.bfen) : parsed ? parsed[b] : window.BBBoard.parseBoard("8/8/8/8/8/8/8/8 w - -");
      window.BBBoard.render(boards[i], b, pos, info.last_move, b === "B");
      names(el.querySelector('[data-names="' + b + '"]'), t, b);
    });
    el.querySelector(".last").textContent = t.result
      ? t.result.result + " (" + t.result.reason + ")"
      : t.plies ? t.plies + " moves" : "not started";
    place(entry);
    api.updates++;
    document.dispatchEvent(new CustomEvent("bugbridge:table", { detail: t }));
  }

  function section(key) {
    let sec = root.querySelector('section[data-group="' + CSS.escape(key) + '"]');
    if (sec) return sec;
    const [event, round] = JSON.parse(key);
    sec = document.createElement("section");
    sec.className = "round";
    sec.dataset.group = key;
    sec.dataset.event = event;
    sec.dataset.round = round;
    sec.innerHTML = '<h2><span></span><a download>round BPGN</a></h2><div class="matches"></div>';
    sec.querySelector("span").textContent = (event || "Tables") + (round ? " · Round " + round : "");
    const q = new URLSearchParams();
    if (event) q.set("event", event);
    if (round) q.set("round", round);
    sec.querySelector("a").href = "/api/tournament/bpgn?" + q.toString();
    const all = [...root.querySelectorAll("section.round")];
    const next = all.find((s) => s.dataset.group > key);
    root.insertBefore(sec, next || null);
    return sec;
  }

  function place(entry) {
    const list = section(groupKey(entry.state)).querySelector(".matches");
    const siblings = [...list.children].filter((c) => c !== entry.el);
    const next = siblings.find((c) => cmp(tables[c.dataset.match].state, entry.state) > 0);
    if (entry.el.parentNode !== list || entry.el.nextSibling !== (next || null)) list.insertBefore(entry.el, next || null);
    for (const sec of root.querySelectorAll("section.round")) if (!sec.querySelector(".table-card")) sec.remove();
    document.getElementById("empty").hidden = Object.keys(tables).length > 0;
  }

  setInterval(() => {
    for (const id in tables) {
      const e = tables[id];
      ["A", "B"].forEach((b) => names(e.el.querySelector('[data-names="' + b + '"]'), e.state, b));
    }
  }, 500);

  const source = new EventSource("/api/tournament/stream");
  source.addEventListener("tables", (e) => JSON.parse(e.data).forEach(render));
  source.addEventListener("table", (e) => render(JSON.parse(e.data)));
})();
