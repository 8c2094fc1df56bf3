/* The live part of a page (the public screens, the desk's status): #screen names its
   stream (data-stream) and where to fetch it again (data-part). Follow the stream
   and, on any event, fetch this page's screen again and swap it in; count down every
   [data-countdown] element to the second in between. A countdown that reaches zero asks
   the server (the level moves on by itself), and so does a minute without news. */
(function () {
  "use strict";
  var holder = document.getElementById("screen");
  if (!holder) { return; }
  var partUrl = holder.getAttribute("data-part");
  var fetching = false, again = false, receivedAt = performance.now(), lastFetch = Date.now();

  function clockTime(seconds) {
    var whole = Math.max(0, Math.floor(seconds));
    var h = Math.floor(whole / 3600), m = Math.floor((whole % 3600) / 60), s = whole % 60;
    var mm = h ? String(m).padStart(2, "0") : String(m);
    return (h ? h + ":" : "") + mm + ":" + String(s).padStart(2, "0");
  }

  function tick() {
    var elapsed = (performance.now() - receivedAt) / 1000;
    var expired = false;
    holder.querySelectorAll("[data-countdown]").forEach(function (el) {
      var start = Number(el.getAttribute("data-countdown"));
      var running = el.getAttribute("data-ticks") === "true";
      var left = running ? start - elapsed : start;
      // Show the second being counted (ceil): 0:00 only once the time is up.
      var text = clockTime(Math.ceil(left - 1e-6));
      if (el.textContent !== text) { el.textContent = text; }
      if (running && left <= 0 && start > 0) { expired = true; }
    });
    if (expired || Date.now() - lastFetch > 60000) { refresh(); }
  }

  function refresh() {
    if (fetching) { again = true; return; }
    fetching = true;
    lastFetch = Date.now();
    fetch(partUrl, { credentials: "same-origin", cache: "no-store" })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) {
        if (html !== null) {
          holder.innerHTML = html;  // the server's template, escaped there
          receivedAt = performance.now();
          tick();
          // Whoever filters or finds in the screen (find.js) looks again.
          holder.dispatchEvent(new CustomEvent("cardroom:swapped", { bubbles: true }));
        }
      })
      .catch(function () { /* the next event or tick tries again */ })
      .finally(function () {
        fetching = false;
        if (again) { again = false; refresh(); }
      });
  }

  function currentVersion() {
    var shown = holder.querySelector("[data-version]");
    return shown ? shown.getAttribute("data-version") : "0";
  }

  var types = (holder.getAttribute("data-types") || "").split(" ").filter(Boolean);
  var stream = new URL(holder.getAttribute("data-stream"), window.location.href);
  stream.searchParams.set("after", currentVersion());
  window.Cardroom.follow(stream.toString(), refresh, {
    types: types,
    // After a drop the browser resumes the stream; what happened meanwhile is fetched.
    onOpen: function () { if (performance.now() - receivedAt > 2000) { refresh(); } }
  });
  setInterval(tick, 200);
  tick();
})();
