// Forms with data-confirm ask first (an inline onsubmit would break the Content-Security-Policy).
document.addEventListener("submit", function (event) {
  const question = event.target.dataset && event.target.dataset.confirm;
  if (question && !window.confirm(question)) event.preventDefault();
});
