// Arbiter view: the viewer plus the live alert feed and operator actions.
// The token comes from ?token= (the server then sets the bugbridge_arbiter cookie) or that
// cookie; actions are POSTed with Authorization: Bearer.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const api = window.bugbridge;
  const id = api.match;
  const fromQuery = new URLSearchParams(location.search).get("token");
  const fromCookie = (document.cookie.split("; ").find((c) => c.startsWith("bugbridge_arbiter=")) || "").split("=")[1];
  const token = fromQuery || fromCookie || sessionStorage.getItem("bugbridge.token") || "";
  if (token) sessionStorage.setItem("bugbridge.token", token);
  if (fromQuery) {
    // Keep the token out of the address bar (and screenshots).
    const url = new URL(location.href);
    url.searchParams.delete("token");
    history.replaceState(null, "", url);
  }
  api.alerts = [];
  api.actionResults = [];

  function fmtTime(ms) {
    const s = Math.floor(ms / 1000);
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }
  // The wall-clock time of day of an alert (`wall`, ms since the epoch), else its match time.
  function fmtWall(a) {
    if (!a.wall) return fmtTime(a.t || 0);
    const d = new Date(a.wall);
    return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, "0")).join(":");
  }

  // BPGN team convention (docs/bpgn.md): 1-0 = the team of White on A and Black on B.
  function teams(st) {
    const name = (b, c) => (st && st.boards[b] && st.boards[b][c]) || (c === "white" ? "White " : "Black ") + b;
    return {
      "1-0": name("A", "white") + " & " + name("B", "black"),
      "0-1": name("A", "black") + " & " + name("B", "white"),
    };
  }
  // The result that a flag fall of `side` on `board` gives: that player's team loses.
  function flagResult(board, side) {
    const teamOne = (board === "A") === (side === "white");
    return teamOne ? "0-1" : "1-0";
  }

  // The result form follows the state: team names, the ruleset's end reasons (the flag
  // claim is the flag-fall alert's button), and "correct" once the game has ended.
  let reasonsKey = "";
  function syncResultForm(st) {
    const t = teams(st);
    $("team-1-0").textContent = "1-0 " + t["1-0"] + " win";
    $("team-0-1").textContent = "0-1 " + t["0-1"] + " win";
    const reasons = (st.end_reasons || []).filter((r) => r !== "flag-claim");
    const key = reasons.join(",");
    if (reasons.length && key !== reasonsKey) {
      reasonsKey = key;
      const select = document.querySelector("#act-result select[name=reason]");
      const keep = select.value;
      select.textContent = "";
      for (const r of reasons) {
        const o = document.createElement("option");
        o.value = r;
        o.textContent = r;
        select.append(o);
      }
      if (reasons.includes(keep)) select.value = keep;
    }
    const ended = !!st.result;
    $("correct-label").hidden = !ended;
    if (!ended) document.querySelector("#act-result input[name=correct]").checked = false;
    for (const li of document.querySelectorAll("#alerts li .claim")) li.hidden = ended;
  }
  document.addEventListener("bugbridge:state", (e) => syncResultForm(e.detail));
  if (api.state) syncResultForm(api.state);

  // The alternatives a `gap-ambiguous` alert lists: the recorded order (`san`) and the
  // bracketed SAN lists after "also possible" in `detail`.
  function gapChoices(a) {
    const out = [];
    if (a.san) out.push(a.san.split(" ").filter(Boolean));
    const also = (a.detail || "").split("also possible")[1] || "";
    for (const m of also.matchAll(/\[([^\]]*)\]/g)) {
      const moves = m[1].split(" ").filter(Boolean);
      if (moves.length) out.push(moves);
    }
    return out;
  }

  function button(text, onClick) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = text;
    b.addEventListener("click", onClick);
    return b;
  }

  function addAlert(a) {
    if (api.alerts.some((x) => x.seq === a.seq)) return;
    api.alerts.push(a);
    const li = document.createElement("li");
    li.className = "alert " + (a.code || "");
    li.dataset.seq = a.seq;
    li.dataset.code = a.code || "";
    const move = a.number ? a.number + (a.board === "A" ? (a.side === "black" ? "a" : "A") : (a.side === "black" ? "b" : "B")) + ". " + (a.san || "") : "";
    li.innerHTML = '<span class="when"></span><span class="game"></span> <span class="code"></span> <span class="where"></span><div class="reason"></div><div class="choices"></div>';
    li.querySelector(".when").textContent = fmtWall(a);
    li.querySelector(".when").title = "match time " + fmtTime(a.t || 0);
    li.querySelector(".game").textContent = a.game ? "game " + a.game : "";
    li.querySelector(".code").textContent = a.code || "alert";
    li.querySelector(".where").textContent = (a.board ? "board " + a.board + " " : "") + move;
    li.querySelector(".reason").textContent = [a.reason, a.detail].filter(Boolean).join(": ");
    const choices = li.querySelector(".choices");
    if (a.code === "flag-fall" && a.board && a.side && /confirm the claim/.test(a.detail || "")) {
      const result = flagResult(a.board, a.side);
      const b = button("Confirm flag: " + result + " " + teams(api.state)[result] + " win", () =>
        send({ action: "result", result, reason: "flag-fall" }, false));
      b.className = "claim";
      b.hidden = !!(api.state && api.state.result);
      choices.append(b);
    }
    // The answers the daemon offers (the kinds an occupancy-only board's drop or
    // promotion may be): each button posts its action as it stands.
    for (const c of a.choices || []) {
      const b = button(c.label, () => send(c.post, false));
      b.className = "choice";
      b.title = "Record " + c.label;
      choices.append(b);
    }
    if (a.code === "gap-ambiguous" && a.board) {
      for (const moves of gapChoices(a)) {
        const b = button("Fill " + moves.join(" "), () => send({ action: "fill", board: a.board, moves }, false));
        b.className = "fill-choice";
        choices.append(b);
      }
    }
    $("alerts").prepend(li);
    $("alert-count").textContent = "(" + api.alerts.length + ")";
    document.dispatchEvent(new CustomEvent("bugbridge:alert", { detail: a }));
  }

  async function send(body, ask = true) {
    if (body.action === "result" && ask && !confirm("Record " + body.result + " (" + body.reason + ")" + (body.correct ? ", correcting the result" : "") + "?")) return;
    const out = $("action-out");
    out.textContent = "sending…";
    try {
      const r = await fetch("/api/matches/" + encodeURIComponent(id) + "/arbiter/actions", {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: "Bearer " + token },
        body: JSON.stringify(body),
      });
      const j = await r.json().catch(() => ({}));
      api.actionResults.push({ status: r.status, body: j, sent: body });
      out.textContent = r.status === 202 ? "accepted: " + body.action : "refused (" + r.status + "): " + (j.error || "");
    } catch (err) {
      out.textContent = "network error: " + err;
    }
  }
  api.sendAction = send;
  api.showAlert = addAlert;

  let source = null;
  function connect() {
    if (source) source.close();
    source = new EventSource("/api/matches/" + encodeURIComponent(id) + "/alerts/stream?token=" + encodeURIComponent(token));
    source.addEventListener("alert", (e) => addAlert(JSON.parse(e.data)));
    source.addEventListener("error", () => {
      if (source.readyState === EventSource.CLOSED) setTimeout(connect, 3000);
    });
  }
  connect();

  for (const form of document.querySelectorAll(".actions form")) {
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const body = { action: form.dataset.action };
      for (const [k, v] of new FormData(form)) {
        if (k === "number") body[k] = Number(v);
        else if (k === "correct") body[k] = v === "on";
        else if (k === "moves") body[k] = v.split(/[\s,]+/).filter(Boolean);
        else body[k] = v;
      }
      send(body);
    });
  }
})();
