// Capture page: listen for changes from any device, open the card picker, send corrections with the
// photo's version (a change made on a stale page is refused by the server), swap in the fresh panel.
// The page stays on the photo being worked on; a newer photo is offered, not jumped to.
(function () {
  "use strict";
  const view = document.getElementById("capture-view");
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const pollMs = parseInt(view.dataset.pollMs, 10) || 2000;
  let picking = null; // {mode: "replace"|"add", index}
  let stale = false; // a change arrived while the picker was open: refresh once it closes
  let busy = false;

  const panel = () => document.getElementById("capture-panel");
  const captureId = () => panel().dataset.captureId;
  const key = () => (crypto.randomUUID ? crypto.randomUUID() : String(Date.now()) + Math.random()).replace(/[^A-Za-z0-9-]/g, "");

  function say(message) {
    let line = document.getElementById("capture-status");
    if (!line) {
      line = document.createElement("p");
      line.id = "capture-status";
      line.className = "error";
      line.setAttribute("role", "alert");
      view.prepend(line);
    }
    line.textContent = message;
  }

  async function refresh() {
    const dialog = document.getElementById("picker");
    if (dialog && dialog.open) { stale = true; return; }
    const id = captureId();
    const response = await fetch("/capture/panel" + (id ? "?id=" + encodeURIComponent(id) : ""));
    const open = document.getElementById("picker");
    if (open && open.open) { stale = true; return; } // the player opened the picker meanwhile
    if (response.ok) {
      const status = document.getElementById("capture-status");
      const behind = document.getElementById("instead-questions"); // the taps behind a better photo, if opened
      const wasOpen = behind && behind.open;
      view.innerHTML = await response.text();
      if (status) view.prepend(status);
      const again = document.getElementById("instead-questions");
      if (wasOpen && again) again.open = true;
    }
  }

  async function api(method, url, body, idempotent) {
    const headers = {"Content-Type": "application/json", "X-CSRF-Token": csrf};
    if (idempotent) headers["Idempotency-Key"] = key();
    const response = await fetch(url, {
      method: method,
      headers: headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.status === 401) {
      location.href = "/login?next=" + encodeURIComponent(location.pathname + location.search);
      return null;
    }
    const data = await response.json().catch(() => ({error: response.statusText}));
    if (!response.ok) {
      say(data.error || "That did not work; try again.");
      if (response.status === 409) await refresh();
      return null;
    }
    const status = document.getElementById("capture-status");
    if (status) status.remove();
    return data;
  }

  function openPicker(mode, index) {
    const dialog = document.getElementById("picker");
    picking = {mode: mode, index: index};
    const button = mode === "replace" && view.querySelector('.card-btn[data-index="' + index + '"]');
    const removed = button && button.dataset.removed === "1";
    document.getElementById("picker-title").textContent = mode === "add" ? "Which card did it miss?"
      : "Read as " + button.querySelector(".card-name").textContent + ". Which card is it?";
    document.getElementById("picker-remove").hidden = mode === "add" || removed;
    document.getElementById("picker-restore").hidden = !removed;
    document.getElementById("picker-right").hidden = !(button && button.dataset.flagged === "1" && !removed);
    dialog.showModal();
  }

  async function pick(card) {
    if (busy) return;
    busy = true;
    const dialog = document.getElementById("picker");
    dialog.querySelectorAll("button").forEach((b) => { b.disabled = true; });
    const id = captureId();
    const version = panel().dataset.version;
    const base = "/api/captures/" + id + "/cards";
    try {
      if (card === "remove") {
        await api("DELETE", base + "/" + picking.index + "?version=" + encodeURIComponent(version));
      } else if (card === "restore") {
        await api("POST", base + "/" + picking.index + "/restore", {version: version});
      } else if (card === "right") {
        await api("POST", base + "/" + picking.index + "/confirm", {version: version});
      } else if (picking.mode === "add") {
        await api("POST", base, {card: card, version: version}, true);
      } else {
        await api("PUT", base + "/" + picking.index, {card: card, version: version});
      }
    } finally {
      busy = false;
      picking = null;
      dialog.close();
      await refresh();
    }
  }

  view.addEventListener("click", function (event) {
    const target = event.target.closest(
      "[data-index], #add-card, .pick, #picker-remove, #picker-restore, #picker-right, [data-assign-side]");
    if (!target || target.disabled) return;
    if (target.dataset.assignSide) return setSide(target.closest("[data-capture-id]").dataset.captureId, target.dataset.assignSide, null);
    if (target.classList.contains("pick")) return pick(target.dataset.card);
    if (target.id === "picker-remove") return pick("remove");
    if (target.id === "picker-restore") return pick("restore");
    if (target.id === "picker-right") return pick("right");
    if (target.id === "add-card") return openPicker("add", null);
    openPicker("replace", parseInt(target.dataset.index, 10));
  });

  view.addEventListener("close", function () {
    if (stale) { stale = false; refresh(); }
  }, true);

  async function setSide(id, side, version) {
    const body = {side: side || null};
    if (version) body.version = version;
    if (await api("PUT", "/api/captures/" + id + "/side", body)) await refresh();
  }

  view.addEventListener("change", function (event) {
    if (event.target.id === "capture-side-set") setSide(captureId(), event.target.value, panel().dataset.version);
    // the Talon cards said: one choice, no second tap on "Say"
    if (event.target.id === "talon-select") {
      const value = event.target.value;
      const said = value.indexOf("contract:") === 0 ? {contract: value.slice(9)}
        : {talon: value === "" ? null : parseInt(value, 10)};
      api("PUT", "/api/hand-state", said).then(function (ok) { if (ok) refresh(); });
    }
  });

  // Changes from every device: server-sent events, or polling where a browser has no EventSource.
  let lastN = null;
  if (window.EventSource) {
    const source = new EventSource("/api/events");
    source.addEventListener("change", function (event) {
      const data = JSON.parse(event.data);
      const newest = String(data.latest_capture || "");
      if ((lastN !== null && data.n !== lastN) || newest !== panel().dataset.latestId) refresh();
      lastN = data.n;
      view.dataset.live = "1"; // the page is listening (the browser test waits for this)
    });
  } else {
    setInterval(async function () {
      const latest = await (await fetch("/api/captures/latest")).json().catch(() => ({}));
      if (String(latest.id || "") !== panel().dataset.latestId) refresh();
    }, pollMs);
  }
})();
