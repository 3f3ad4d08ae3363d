// Capture page: poll for new photos, open the card picker, send corrections, swap in the fresh panel.
(function () {
  "use strict";
  const view = document.getElementById("capture-view");
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const pollMs = parseInt(view.dataset.pollMs, 10) || 2000;
  let picking = null; // {mode: "replace"|"add", index}
  // The newest capture when the page was drawn: a later one replaces whatever photo is shown.
  let seen = view.dataset.latestId || "";

  const panel = () => document.getElementById("capture-panel");
  const captureId = () => panel().dataset.captureId;

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

  async function refresh(id) {
    const rest = panel().dataset.rest ? "&rest=1" : "";
    const response = await fetch("/capture/panel?id=" + encodeURIComponent(id) + rest);
    if (response.ok) {
      view.innerHTML = await response.text();
    }
  }

  async function api(method, url, body) {
    const response = await fetch(url, {
      method: method,
      headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf},
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.status === 401) {
      location.href = "/login?next=" + encodeURIComponent(location.pathname + location.search);
      return null;
    }
    const data = await response.json().catch(() => ({error: response.statusText}));
    if (!response.ok) {
      say(data.error || "request failed");
      return null;
    }
    return data;
  }

  function openPicker(mode, index) {
    const dialog = document.getElementById("picker");
    picking = {mode: mode, index: index};
    const removed = mode === "replace" &&
      view.querySelector('.card-btn[data-index="' + index + '"]').dataset.removed === "1";
    document.getElementById("picker-title").textContent =
      mode === "add" ? "Which card was missed?" : "Which card is it?";
    document.getElementById("picker-remove").hidden = mode === "add" || removed;
    document.getElementById("picker-restore").hidden = !removed;
    dialog.showModal();
  }

  async function pick(card) {
    const id = captureId();
    const base = "/api/captures/" + id + "/cards";
    let done = null;
    if (card === null) {
      done = await api("DELETE", base + "/" + picking.index);
    } else if (card === "restore") {
      done = await api("POST", base + "/" + picking.index + "/restore");
    } else if (picking.mode === "add") {
      done = await api("POST", base, {card: card});
    } else {
      done = await api("PUT", base + "/" + picking.index, {card: card});
    }
    document.getElementById("picker").close();
    picking = null;
    if (done) await refresh(id);
  }

  view.addEventListener("click", function (event) {
    const target = event.target.closest("[data-index], #add-card, .pick, #picker-remove, #picker-restore");
    if (!target) return;
    if (target.classList.contains("pick")) return pick(target.dataset.card);
    if (target.id === "picker-remove") return pick(null);
    if (target.id === "picker-restore") return pick("restore");
    if (target.id === "add-card") return openPicker("add", null);
    openPicker("replace", parseInt(target.dataset.index, 10));
  });

  view.addEventListener("change", async function (event) {
    if (event.target.id !== "capture-side-set") return;
    const id = captureId();
    if (await api("PUT", "/api/captures/" + id + "/side", {side: event.target.value || null})) await refresh(id);
  });

  async function poll() {
    try {
      const dialog = document.getElementById("picker");
      if (!(dialog && dialog.open)) {
        const response = await fetch("/api/captures/latest");
        const latest = await response.json();
        if (latest.id !== null && String(latest.id) !== seen) {
          seen = String(latest.id);
          await refresh(latest.id);
        }
      }
    } catch (error) {
      // The Pi may be restarting; keep polling quietly.
    }
    setTimeout(poll, pollMs);
  }
  setTimeout(poll, pollMs);
})();
