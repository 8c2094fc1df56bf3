/* Cardroom.follow(url, onEvent, options): follow a stream (live.md) with an EventSource,
   on this origin with the page's session cookie. The stream names each message by its
   event type, and an EventSource hands named messages only to listeners of that name:
   `options.types` lists the types to follow (unnamed messages always arrive).
   `onEvent(type, data, id)` gets each one, `data` parsed from JSON. The browser
   reconnects by itself and resumes after the last id it received (Last-Event-ID; the
   server sends `retry:`), so nothing is skipped. `options.onOpen` / `options.onError`
   are told of (re)connections and drops. `Cardroom.open` is true while a stream is
   connected (the browser tests wait for it). Returns the EventSource (close() it). */
(function () {
  "use strict";
  function follow(url, onEvent, options) {
    options = options || {};
    var source = new EventSource(url, { withCredentials: true });
    function deliver(message) {
      var data;
      try { data = JSON.parse(message.data); } catch (notJson) { data = message.data; }
      onEvent(message.type, data, message.lastEventId);
    }
    source.onmessage = deliver;
    (options.types || []).forEach(function (type) { source.addEventListener(type, deliver); });
    source.addEventListener("open", function () { window.Cardroom.open = true; });
    source.addEventListener("error", function () { window.Cardroom.open = false; });
    if (options.onOpen) { source.addEventListener("open", options.onOpen); }
    if (options.onError) { source.addEventListener("error", options.onError); }
    // A page left for another may stay alive in the back-forward cache with its stream
    // open; a browser holds six connections per server, so leaving closes the stream,
    // and coming back (a cached page shown again) reloads the page to follow afresh.
    window.addEventListener("pagehide", function () { source.close(); window.Cardroom.open = false; });
    window.addEventListener("pageshow", function (event) { if (event.persisted) { window.location.reload(); } });
    return source;
  }
  window.Cardroom = { follow: follow, open: false };
})();
