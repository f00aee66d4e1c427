// Board drawing shared by the viewer, the match list and the arbiter view.
// Reads BFEN placement and holdings for display only: no chess rules here.
(function () {
  "use strict";
  const FILES = "abcdefgh";

  // One board's BFEN part: "placement[/holdings] side castling ep wtime btime".
  // Returns { squares: {e4: {piece: "P", promoted: bool}}, holdings: "Pn", side }.
  function parseBoard(part) {
    const out = { squares: {}, holdings: "", side: "w" };
    if (!part) return out;
    const fields = part.trim().split(/\s+/);
    let placement = fields[0] || "";
    const bracket = placement.match(/^(.*)\[(.*)\]$/);
    if (bracket) { placement = bracket[1]; out.holdings = bracket[2]; }
    const ranks = placement.split("/");
    if (ranks.length > 8) { out.holdings = ranks.slice(8).join(""); }
    for (let r = 0; r < 8 && r < ranks.length; r++) {
      let file = 0;
      const row = ranks[r];
      for (let i = 0; i < row.length; i++) {
        const c = row[i];
        if (c >= "1" && c <= "8") { file += c.charCodeAt(0) - 48; continue; }
        if (c === "~") continue;
        if (/[pnbrqkPNBRQK]/.test(c) && file < 8) {
          const sq = FILES[file] + (8 - r);
          out.squares[sq] = { piece: c, promoted: row[i + 1] === "~" };
          file++;
        }
      }
    }
    if (fields[1] === "w" || fields[1] === "b") out.side = fields[1];
    else if (fields[2] === "w" || fields[2] === "b") out.side = fields[2];
    return out;
  }

  function parseBfen(bfen) {
    const parts = (bfen || "").split("|");
    return { A: parseBoard(parts[0]), B: parseBoard(parts[1]) };
  }

  // Builds the 64 squares once; later renders only touch classes and pieces.
  function build(el, board) {
    el.innerHTML = "";
    el.classList.add("board");
    el.dataset.boardId = board;
    for (let r = 8; r >= 1; r--) {
      for (let f = 0; f < 8; f++) {
        const sq = document.createElement("div");
        const name = FILES[f] + r;
        sq.className = "sq " + ((f + r) % 2 === 0 ? "dark" : "light");
        sq.dataset.board = board;
        sq.dataset.square = name;
        sq.setAttribute("role", "gridcell");
        if (f === 0) { const c = document.createElement("span"); c.className = "coord rank"; c.textContent = r; sq.appendChild(c); }
        if (r === 1) { const c = document.createElement("span"); c.className = "coord file"; c.textContent = FILES[f]; sq.appendChild(c); }
        el.appendChild(sq);
      }
    }
    el.setAttribute("role", "grid");
    el.setAttribute("aria-label", "Board " + board);
  }

  function pieceEl(letter, promoted) {
    const p = document.createElement("div");
    p.className = "pc" + (promoted ? " promoted" : "");
    p.dataset.piece = letter;
    p.title = window.BBPieces.name(letter) + (promoted ? " (promoted)" : "");
    p.setAttribute("aria-label", p.title);
    p.innerHTML = window.BBPieces.svg(letter);
    return p;
  }

  // Draws `parsed` (from parseBoard) into `el`; lastMove {from,to,drop} highlighted.
  function render(el, board, parsed, lastMove, flipped) {
    if (!el.firstChild || el.dataset.boardId !== board) build(el, board);
    el.classList.toggle("flipped", !!flipped);
    for (const sq of el.children) {
      const name = sq.dataset.square;
      const want = parsed.squares[name];
      const have = sq.querySelector(".pc");
      const key = want ? want.piece + (want.promoted ? "~" : "") : "";
      const haveKey = have ? have.dataset.piece + (have.classList.contains("promoted") ? "~" : "") : "";
      if (key !== haveKey) {
        if (have) have.remove();
        if (want) sq.appendChild(pieceEl(want.piece, want.promoted));
      }
      sq.classList.toggle("from", !!(lastMove && lastMove.from === name));
      sq.classList.toggle("to", !!(lastMove && lastMove.to === name && !lastMove.drop));
      sq.classList.toggle("drop", !!(lastMove && lastMove.to === name && lastMove.drop));
    }
  }

  // Holdings of one colour: pieces with counts, in K Q R B N P order. A king in hand
  // (Koedem: taken on the other board) must be dropped as the next move: said so.
  function renderHoldings(el, board, holdings, color) {
    const order = color === "white" ? "KQRBNP" : "kqrbnp";
    const counts = {};
    for (const c of holdings || "") counts[c] = (counts[c] || 0) + 1;
    el.innerHTML = "";
    el.dataset.board = board;
    el.dataset.color = color;
    for (const letter of order) {
      const n = counts[letter] || 0;
      if (!n) continue;
      const item = pieceEl(letter, false);
      item.classList.add("held");
      item.dataset.count = n;
      if (n > 1) { const b = document.createElement("span"); b.className = "count"; b.textContent = n; item.appendChild(b); }
      el.appendChild(item);
    }
    const king = counts[color === "white" ? "K" : "k"] || 0;
    el.classList.toggle("must-drop-king", king > 0);
    if (king > 0) {
      const note = document.createElement("span");
      note.className = "must-drop";
      note.textContent = "must drop the king";
      el.appendChild(note);
    }
  }

  window.BBBoard = { parseBoard, parseBfen, render, renderHoldings, build };
})();
