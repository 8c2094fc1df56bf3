/* The floor's live table: follows the table's stream (Cardroom.follow, the session
   cookie) and, after each event, swaps in the fragment the server renders for this caller
   (#live's data-fragment), at most one fetch at a time. The action clock counts down here. */
(function () {
  "use strict";
  var live = document.getElementById("live");
  var status = document.getElementById("live-status");
  var fetching = false;
  var again = false;

  function refresh() {
    if (fetching) { again = true; return; }
    fetching = true;
    fetch(live.dataset.fragment, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (response) {
        if (!response.ok) { throw new Error("HTTP " + response.status); }
        return response.text();
      })
      .then(function (html) { live.innerHTML = html; tick(); })
      .catch(function (error) { status.textContent = "could not refresh the table: " + error.message; })
      .then(function () {
        fetching = false;
        if (again) { again = false; refresh(); }
      });
  }

  function tick() {
    live.querySelectorAll("[data-deadline-ms]").forEach(function (node) {
      var left = Math.max(0, Math.round((Number(node.dataset.deadlineMs) - Date.now()) / 1000));
      node.textContent = left + " s left";
    });
  }
  setInterval(tick, 1000);
  tick();

  var types = (live.dataset.types || "").split(" ").filter(Boolean).concat(["turn"]);
  window.Cardroom.follow(live.dataset.stream, function () { refresh(); }, {
    types: types,
    onOpen: function () { status.textContent = "live: following the table's stream"; },
    onError: function () { status.textContent = "stream interrupted: reconnecting…"; }
  });
})();
