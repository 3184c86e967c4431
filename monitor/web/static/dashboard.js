// PromptCanary dashboard: progressive enhancement only. Every page is
// complete without this script; it asks before a form changes something,
// and reloads the overview and check pages now and then while they are
// visible and untouched.
(function () {
  "use strict";
  document.addEventListener("submit", function (e) {
    var msg = e.target.getAttribute("data-confirm");
    if (msg && !window.confirm(msg)) {
      e.preventDefault();
    }
  });
  var every = parseInt(document.body.getAttribute("data-refresh") || "0", 10);
  if (every > 0) {
    var last = Date.now();
    var touched = function () { last = Date.now(); };
    ["mousemove", "keydown", "scroll", "focusin"].forEach(function (t) {
      document.addEventListener(t, touched, { passive: true });
    });
    window.setInterval(function () {
      var busy = document.activeElement && document.activeElement.form;
      if (!document.hidden && !busy && Date.now() - last >= every * 1000) {
        window.location.reload();
      }
    }, 5000);
  }
})();
