// The MQTT broker's state in the header (viewer and arbiter view): /healthz every 5 s.
// Hidden when the daemon publishes no MQTT. window.bugbridge.broker keeps the last report.
(function () {
  "use strict";
  const el = document.getElementById("broker");
  if (!el) return;
  function show(report) {
    if (window.bugbridge) window.bugbridge.broker = report.mqtt || null;
    const m = report.mqtt;
    if (!m) {
      el.hidden = true;
      return;
    }
    el.hidden = false;
    if (m.connected) {
      el.dataset.state = "live";
      el.textContent = "MQTT up";
      el.title = "MQTT broker " + m.broker + ": connected";
    } else {
      el.dataset.state = "reconnecting";
      el.textContent = "MQTT down" + (m.problem ? " (" + m.problem + ")" : "");
      el.title = "MQTT broker " + m.broker + ": " + (m.reason || "not connected");
    }
  }
  function poll() {
    fetch("/healthz", { cache: "no-store" })
      .then((r) => r.json())
      .then(show)
      .catch(() => {});
  }
  poll();
  setInterval(poll, 5000);
})();
