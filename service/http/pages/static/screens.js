/* The live part of a page (the public screens, the desk's status): #screen names its
   stream (data-stream) and where to fetch it again (data-part). Follow the stream
   and, on any event, fetch this page's screen again and swap it in; count down every
   [data-countdown] element to the second in between. A countdown that reaches zero asks
   the server (the level moves on by itself), and so does a minute without news.
   Every screen of an event shows the same second: the server sends the time left to the
   millisecond, counted from when its answer arrived (for the page itself, the navigation's
   first byte) less the time the server took to send it (its Server-Timing "screen-age"),
   and a countdown is redrawn on the millisecond its second ends.
   The main countdown ([data-main-countdown]) is told to whoever listens (clock_sounds.js)
   as a "cardroom:countdown" event; [data-time-of-day] shows the time, [data-starts-at] a
   far start in the screen's own time zone; [data-fit] texts shrink to fit their box. */
(function () {
  "use strict";
  var holder = document.getElementById("screen");
  if (!holder) { return; }
  var partUrl = holder.getAttribute("data-part");
  var fetching = false, again = false, lastFetch = Date.now();
  var SCREEN_AGE = "screen-age";
  var navigation = performance.getEntriesByType ? performance.getEntriesByType("navigation")[0] : null;
  var receivedAt = navigation && navigation.responseStart > 0
    ? navigation.responseStart - pageAge(navigation.serverTiming || []) : performance.now();
  var TICK_MS = 50, FIT_FLOOR_VH = 4, atTheSecond = null;

  // The server tells how old a screen's seconds were as it sent them (Server-Timing).
  function pageAge(timings) {
    var found = timings.filter(function (timing) { return timing.name === SCREEN_AGE; })[0];
    return found ? found.duration : 0;
  }

  function headerAge(header) {
    var match = new RegExp(SCREEN_AGE + ";\\s*dur=([0-9.]+)").exec(header || "");
    return match ? Number(match[1]) : 0;
  }

  function clockTime(seconds) {
    var whole = Math.max(0, Math.floor(seconds));
    var h = Math.floor(whole / 3600), m = Math.floor((whole % 3600) / 60), s = whole % 60;
    var mm = h ? String(m).padStart(2, "0") : String(m);
    return (h ? h + ":" : "") + mm + ":" + String(s).padStart(2, "0");
  }

  function tick() {
    var elapsed = (performance.now() - receivedAt) / 1000;
    var expired = false, nextChangeMs = TICK_MS;
    holder.querySelectorAll("[data-countdown]").forEach(function (el) {
      var start = Number(el.getAttribute("data-countdown"));
      var running = el.getAttribute("data-ticks") === "true";
      var left = running ? start - elapsed : start;
      // Show the second being counted (ceil): 0:00 only once the time is up.
      var text = clockTime(Math.ceil(left - 1e-6));
      if (el.textContent !== text) { el.textContent = text; }
      if (running && left <= 0 && start > 0) { expired = true; }
      if (running && left > 0) { nextChangeMs = Math.min(nextChangeMs, (left - Math.floor(left)) * 1000); }
      // An hour or more (1:00:00) takes smaller digits to stay in its column (pages.css).
      if (el.classList.contains("countdown")) { el.toggleAttribute("data-long", text.length > 5); }
      if (el.hasAttribute("data-main-countdown")) {
        el.dispatchEvent(new CustomEvent("cardroom:countdown", { bubbles: true, detail: {
          period: el.getAttribute("data-period"), kind: el.getAttribute("data-kind"), left: left, running: running } }));
      }
    });
    showTimeOfDay();
    // Redraw on the millisecond a second ends, not at the next tick of our own.
    if (!atTheSecond && nextChangeMs < TICK_MS) {
      atTheSecond = setTimeout(function () { atTheSecond = null; tick(); }, nextChangeMs + 1);
    }
    if (expired || Date.now() - lastFetch > 60000) { refresh(); }
  }

  function showTimeOfDay() {
    var now = new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    holder.querySelectorAll("[data-time-of-day]").forEach(function (el) {
      if (el.textContent !== now) { el.textContent = now; }
    });
  }

  function showLocally() {
    holder.querySelectorAll("[data-starts-at]").forEach(function (el) {
      var moment = new Date(Number(el.getAttribute("data-starts-at")) * 1000);
      el.textContent = el.getAttribute("data-show") === "day"
        ? moment.toLocaleDateString([], { weekday: "short", day: "numeric", month: "short" })
        : moment.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    });
  }

  // A text wider than its box (a long name, big blinds) shrinks until it fits, down to
  // FIT_FLOOR_VH of the screen's height (what a room reads), then ends in an ellipsis.
  function fit() {
    var floor = window.innerHeight * FIT_FLOOR_VH / 100;
    holder.querySelectorAll("[data-fit]").forEach(function (el) {
      el.style.fontSize = "";
      var size = parseFloat(getComputedStyle(el).fontSize);
      while (el.scrollWidth > el.clientWidth + 1 && size > floor) {
        size = Math.max(floor, size * 0.92);
        el.style.fontSize = size + "px";
      }
    });
  }

  function arrived() {
    showLocally();
    tick();
    fit();
  }

  function refresh() {
    if (fetching) { again = true; return; }
    fetching = true;
    lastFetch = Date.now();
    var answeredAt = null;
    fetch(partUrl, { credentials: "same-origin", cache: "no-store" })
      .then(function (response) {
        answeredAt = performance.now() - headerAge(response.headers.get("Server-Timing"));
        return response.ok ? response.text() : null;
      })
      .then(function (html) {
        if (html !== null) {
          holder.innerHTML = html;  // the server's template, escaped there
          receivedAt = answeredAt;
          arrived();
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
  setInterval(tick, TICK_MS);
  window.addEventListener("resize", fit);
  arrived();
})();
