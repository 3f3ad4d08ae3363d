// Every page: forms with data-confirm ask first, and buttons with data-confirm ask before their form is
// sent (an inline onsubmit would break the Content-Security-Policy). A form being sent greys its buttons,
// so a second tap cannot send it twice; the server's idempotency key catches what gets through anyway.
document.addEventListener("click", function (event) {
  const button = event.target.closest("button[data-confirm]");
  if (button && !window.confirm(button.dataset.confirm)) event.preventDefault();
});
document.addEventListener("submit", function (event) {
  const form = event.target;
  const question = form.dataset && form.dataset.confirm;
  if (question && !window.confirm(question)) {
    event.preventDefault();
    return;
  }
  if (form.method === "dialog") return;
  // After this turn: the form's data (with the pressed button's value) is already taken.
  setTimeout(function () {
    form.querySelectorAll("button, input[type=submit]").forEach(function (b) {
      b.disabled = true;
      b.setAttribute("aria-busy", "true");
    });
  }, 0);
});
// Back to a page kept in the browser's cache: its buttons work again.
window.addEventListener("pageshow", function (event) {
  if (!event.persisted) return;
  document.querySelectorAll("button[aria-busy]").forEach(function (b) {
    b.disabled = false;
    b.removeAttribute("aria-busy");
  });
});
