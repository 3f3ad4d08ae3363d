// Score sheet: reload when a hand is saved, changed or deleted on any device.
(function () {
  "use strict";
  if (!window.EventSource) return;
  const source = new EventSource("/api/events");
  let first = true;
  source.addEventListener("change", function (event) {
    const data = JSON.parse(event.data);
    if (!first && data.kinds.indexOf("hands") >= 0) location.reload();
    first = false;
  });
})();
