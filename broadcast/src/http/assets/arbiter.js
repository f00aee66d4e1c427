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

  function addAlert(a) {
    if (api.alerts.some((x) => x.seq === a.seq)) return;
    api.alerts.push(a);
    const li = document.createElement("li");
    li.className = "alert " + (a.code || "");
    li.dataset.seq = a.seq;
    li.dataset.code = a.code || "";
    const move = a.number ? a.number + (a.board === "A" ? (a.side === "black" ? "a" : "A") : (a.side === "black" ? "b" : "B")) + ". " + (a.san || "") : "";
    li.innerHTML = '<span class="when"></span><span class="code"></span> <span class="where"></span><div class="reason"></div>';
    li.querySelector(".when").textContent = fmtTime(a.t || 0);
    li.querySelector(".code").textContent = a.code || "alert";
    li.querySelector(".where").textContent = (a.board ? "board " + a.board + " " : "") + move;
    li.querySelector(".reason").textContent = [a.reason, a.detail].filter(Boolean).join(": ");
    $("alerts").prepend(li);
    $("alert-count").textContent = "(" + api.alerts.length + ")";
    document.dispatchEvent(new CustomEvent("bugbridge:alert", { detail: a }));
  }

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
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const body = { action: form.dataset.action };
      for (const [k, v] of new FormData(form)) body[k] = k === "number" ? Number(v) : v;
      if (body.action === "result" && !confirm("Record " + body.result + " (" + body.reason + ")?")) return;
      const out = $("action-out");
      out.textContent = "sending…";
      try {
        const r = await fetch("/api/matches/" + encodeURIComponent(id) + "/arbiter/actions", {
          method: "POST",
          headers: { "Content-Type": "application/json", Authorization: "Bearer " + token },
          body: JSON.stringify(body),
        });
        const j = await r.json().catch(() => ({}));
        api.actionResults.push({ status: r.status, body: j });
        out.textContent = r.status === 202 ? "accepted: " + body.action : "refused (" + r.status + "): " + (j.error || "");
      } catch (err) {
        out.textContent = "network error: " + err;
      }
    });
  }
})();
