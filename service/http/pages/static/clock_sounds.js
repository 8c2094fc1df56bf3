/* The clock's sounds, made with Web Audio (no file to fetch): a minute's warning, the end
   of a level and the end of a break. A browser plays nothing before a person has touched
   the page, so the clock shows "Click to enable sound" ([data-sound-switch]); a click
   starts the AudioContext, another mutes it. screens.js tells of the main countdown on
   every redraw ("cardroom:countdown": period, kind, seconds left); a sound plays when the
   time left runs down across a minute or zero within one period (not when the desk sets it
   there: a jump of a second or more), or when the period moves on to the
   next one with the last second gone (the server's answer may arrive before our zero). Each
   sound played is told as a "cardroom:sound" event (detail: its name), for the tests. */
(function () {
  "use strict";
  var AudioContextType = window.AudioContext || window.webkitAudioContext;
  var context = null, enabled = false, last = null;
  var WARNING_S = 60, LAST_SECOND_S = 1.5, JUMP_S = 1;
  // Each sound: [frequency in Hz, seconds from now, length in seconds] tones.
  var SOUNDS = {
    "minute-warning": [[880, 0, 0.18], [880, 0.3, 0.18]],
    "level-end": [[660, 0, 0.25], [880, 0.3, 0.25], [1100, 0.6, 0.5]],
    "break-end": [[523, 0, 0.3], [659, 0.35, 0.3], [784, 0.7, 0.3], [1046, 1.05, 0.6]]
  };

  function play(name) {
    if (!enabled || !context) { return; }
    var start = context.currentTime + 0.02;
    SOUNDS[name].forEach(function (tone) {
      var oscillator = context.createOscillator(), gain = context.createGain();
      oscillator.type = "sine";
      oscillator.frequency.value = tone[0];
      // A short fade in and out: no click at the tone's edges.
      gain.gain.setValueAtTime(0.0001, start + tone[1]);
      gain.gain.exponentialRampToValueAtTime(0.5, start + tone[1] + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + tone[1] + tone[2]);
      oscillator.connect(gain).connect(context.destination);
      oscillator.start(start + tone[1]);
      oscillator.stop(start + tone[1] + tone[2] + 0.05);
    });
    document.dispatchEvent(new CustomEvent("cardroom:sound", { detail: { sound: name } }));
  }

  function endOf(kind) { return kind === "break" ? "break-end" : "level-end"; }

  document.addEventListener("cardroom:countdown", function (event) {
    var now = event.detail;
    if (last && now.running) {
      // The time running down, not the desk setting it (a jump of more than a second).
      if (now.period === last.period && last.left - now.left < JUMP_S) {
        if (last.left > WARNING_S && now.left <= WARNING_S && now.left > 0) { play("minute-warning"); }
        if (last.left > 0 && now.left <= 0) { play(endOf(now.kind)); }
      } else if (Number(now.period) === Number(last.period) + 1 && last.left > 0 && last.left < LAST_SECOND_S) {
        play(endOf(last.kind));
      }
    }
    last = now;
  });

  function label() {
    var text = enabled ? "Sound on" : "Click to enable sound";
    document.querySelectorAll("[data-sound-switch]").forEach(function (button) {
      if (button.textContent !== text) { button.textContent = text; }
      button.setAttribute("aria-pressed", enabled ? "true" : "false");
    });
  }

  document.addEventListener("click", function (event) {
    if (!event.target.closest || !event.target.closest("[data-sound-switch]")) { return; }
    if (!AudioContextType) { return; }
    if (!context) { context = new AudioContextType(); }
    enabled = !enabled;
    if (enabled) { context.resume(); } else { context.suspend(); }
    label();
  });
  // The clock's screen is swapped in afresh on every change: its switch says what it is.
  document.addEventListener("cardroom:swapped", label);
  label();
})();
