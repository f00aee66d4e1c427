// The arbiter console: every table's alerts in one feed, newest first, filter by table,
// acknowledge/unacknowledge (shared by every relay through the broker), links to each
// table's arbiter view, and the confirmations of operator actions applied at the tables.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const fromQuery = new URLSearchParams(location.search).get("token");
  const fromCookie = (document.cookie.split("; ").find((c) => c.startsWith("bugbridge_arbiter=")) || "").split("=")[1];
  const token = fromQuery || fromCookie || sessionStorage.getItem("bugbridge.token") || "";
  if (token) sessionStorage.setItem("bugbridge.token", token);
  if (fromQuery) {
    const url = new URL(location.href);
    url.searchParams.delete("token");
    history.replaceState(null, "", url);
  }
  const api = { alerts: [], applied: [] };
  window.bugbridge = api;
  const key = (a) => a.match + "#" + a.seq;

  function fmtTime(ms) {
    const s = Math.floor((ms || 0) / 1000);
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }
  function moveOf(a) {
    if (!a.number) return "";
    const letter = a.board === "B" ? (a.side === "black" ? "b" : "B") : (a.side === "black" ? "a" : "A");
    return a.number + letter + ". " + (a.san || "");
  }

  function row(a) {
    const li = document.createElement("li");
    li.className = "alert " + (a.code || "");
    li.dataset.match = a.match;
    li.dataset.seq = a.seq;
    li.dataset.code = a.code || "";
    li.innerHTML = '<span class="where"><a></a></span><span class="code"></span><span class="reason"></span><button type="button"></button>';
    const link = li.querySelector(".where a");
    link.href = "/arbiter/" + encodeURIComponent(a.match);
    link.textContent = a.match;
    li.querySelector(".code").textContent = (a.code || "alert") + " " + fmtTime(a.t);
    li.querySelector(".reason").textContent = [a.board ? "board " + a.board : "", moveOf(a), a.reason, a.detail].filter(Boolean).join(" · ");
    li.querySelector("button").addEventListener("click", () => toggle(a));
    return li;
  }

  function show() {
    const filter = $("table-filter").value;
    const hide = $("hide-acked").checked;
    const ul = $("alerts");
    ul.innerHTML = "";
    let shown = 0;
    for (const a of api.alerts) {
      if (filter && a.match !== filter) continue;
      if (hide && a.acked) continue;
      const li = row(a);
      li.dataset.acked = String(!!a.acked);
      li.querySelector("button").textContent = a.acked ? "unacknowledge" : "acknowledge";
      ul.appendChild(li);
      shown++;
    }
    const open = api.alerts.filter((a) => !a.acked).length;
    $("count").textContent = shown + " shown · " + open + " unacknowledged";
    const tables = [...new Set(api.alerts.map((a) => a.match))].sort();
    const sel = $("table-filter");
    for (const t of tables) {
      if (![...sel.options].some((o) => o.value === t)) {
        const o = document.createElement("option");
        o.value = t;
        o.textContent = t;
        sel.appendChild(o);
      }
    }
  }

  async function toggle(a) {
    const verb = a.acked ? "unack" : "ack";
    const r = await fetch("/api/tournament/alerts/" + encodeURIComponent(a.match) + "/" + a.seq + "/" + verb, {
      method: "POST",
      headers: { Authorization: "Bearer " + token },
    });
    if (r.ok) {
      const j = await r.json();
      setAcks(a.match, j.acked);
    }
  }

  function setAcks(match, list) {
    const set = new Set(list);
    for (const a of api.alerts) if (a.match === match) a.acked = set.has(a.seq);
    show();
  }

  async function load() {
    const r = await fetch("/api/tournament/alerts", { headers: { Authorization: "Bearer " + token } });
    if (!r.ok) return;
    api.alerts = await r.json();
    show();
  }

  function connect() {
    const src = new EventSource("/api/tournament/alerts/stream?token=" + encodeURIComponent(token));
    src.addEventListener("open", () => { $("conn").dataset.state = "live"; $("conn").textContent = "live"; load(); });
    src.addEventListener("alert", (e) => {
      const a = JSON.parse(e.data);
      if (api.alerts.some((x) => key(x) === key(a))) return;
      api.alerts.unshift(a);
      show();
    });
    src.addEventListener("acks", (e) => { const j = JSON.parse(e.data); setAcks(j.match, j.acked); });
    src.addEventListener("action", (e) => {
      const j = JSON.parse(e.data);
      api.applied.unshift(j);
      const li = document.createElement("li");
      li.dataset.action = j.action || "";
      li.textContent = j.match + ": " + (j.code || "action") + " applied (" + (j.action || "") + ")";
      $("applied").prepend(li);
      document.dispatchEvent(new CustomEvent("bugbridge:applied", { detail: j }));
    });
    src.addEventListener("resync", load);
    src.addEventListener("error", () => { $("conn").dataset.state = "reconnecting"; $("conn").textContent = "reconnecting"; });
  }
  $("table-filter").addEventListener("change", show);
  $("hide-acked").addEventListener("change", show);
  connect();
})();
