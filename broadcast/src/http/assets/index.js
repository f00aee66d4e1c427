// The match list: one live card per match (mini boards, last move, result).
(function () {
  "use strict";
  const root = document.getElementById("matches");
  const cards = {};
  window.bugbridge = { matches: cards };

  function token(m) {
    const letter = m.board === "A" ? (m.side === "white" ? "A" : "a") : (m.side === "white" ? "B" : "b");
    return m.number + letter + ". " + m.san;
  }

  function card(id) {
    const a = document.createElement("a");
    a.className = "match-card";
    a.href = "/match/" + encodeURIComponent(id);
    a.id = "match-" + id;
    a.dataset.match = id;
    a.innerHTML = '<h2></h2><div class="mini"><div class="board"></div><div class="board"></div></div><div class="last"></div>';
    a.querySelector("h2").textContent = id;
    root.appendChild(a);
    const entry = { el: a, state: null };
    const src = new EventSource("/api/matches/" + encodeURIComponent(id) + "/stream");
    src.addEventListener("state", (e) => render(entry, JSON.parse(e.data)));
    return entry;
  }

  function render(entry, st) {
    entry.state = st;
    const boards = entry.el.querySelectorAll(".board");
    const parsed = window.BBBoard.parseBfen(st.bfen);
    ["A", "B"].forEach((b, i) => {
      const info = (st.boards && st.boards[b]) || {};
      window.BBBoard.render(boards[i], b, info.bfen ? window.BBBoard.parseBoard(info.bfen) : parsed[b], info.last_move, b === "B");
    });
    const t = st.tags || {};
    entry.el.querySelector("h2").textContent = (t.Event ? t.Event + " · " : "") + st.id;
    const last = (st.moves || []).slice(-1)[0];
    entry.el.querySelector(".last").textContent =
      (st.result ? st.result.result + " (" + st.result.reason + ") · " : "") + (last ? "last: " + token(last) : "not started");
  }

  async function refresh() {
    try {
      const list = await (await fetch("/api/matches")).json();
      for (const m of list) if (!cards[m.id]) cards[m.id] = card(m.id);
      document.getElementById("empty").hidden = list.length > 0;
    } catch (e) { /* retried below */ }
  }
  // The recorded games: one row each, linking to the step-through page and the BPGN.
  async function refreshGames() {
    try {
      const games = await (await fetch("/api/games")).json();
      const body = document.getElementById("games-list");
      body.innerHTML = "";
      const pair = (p) => (p && (p.white || p.black)) ? (p.white || "?") + " – " + (p.black || "?") : "";
      for (const g of games) {
        const tr = document.createElement("tr");
        tr.dataset.game = g.match + "-" + g.number;
        const cells = [["Match", g.match], ["Game", g.number], ["Board A", pair(g.players.A)],
          ["Board B", pair(g.players.B)], ["Result", g.result], ["Plies", g.plies]];
        for (const [label, text] of cells) {
          const td = document.createElement("td");
          // The column's name, shown beside the value where the rows are stacked (a phone).
          td.dataset.label = label;
          td.textContent = text;
          tr.appendChild(td);
        }
        const links = document.createElement("td");
        links.innerHTML = '<a class="open">open</a> · <a class="bpgn" download>BPGN</a>';
        links.querySelector(".open").href = g.viewer;
        links.querySelector(".bpgn").href = g.bpgn;
        tr.appendChild(links);
        body.appendChild(tr);
      }
      document.getElementById("games").hidden = games.length === 0;
    } catch (e) { /* retried below */ }
  }

  refresh();
  refreshGames();
  setInterval(refresh, 10000);
  setInterval(refreshGames, 30000);
})();
