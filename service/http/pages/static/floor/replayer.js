/* The floor's hand replayer: steps through the hand embedded in the page as JSON
   (#replay-data, built by service.application.replay). Buttons and the arrow keys (Home
   and End too) move a step; #step=N in the address opens a step. Everything is written
   with textContent: names and PHH metadata stay text. */
(function () {
  "use strict";
  var replay = JSON.parse(document.getElementById("replay-data").textContent);
  var steps = replay.steps;
  var names = replay.names || {};
  var current = 0;

  function byId(id) { return document.getElementById(id); }
  /* A name people typed, isolated (U+2068 ... U+2069): a right-to-left name cannot
     reorder the words around it. */
  function named(player) { return "\u2068" + (names[player] || player) + "\u2069"; }
  function chips(amount) {
    return typeof amount === "number" ? amount.toLocaleString("en-US") : String(amount);
  }
  function cell(row, text, className) {
    var td = document.createElement("td");
    td.textContent = text;
    if (className) { td.className = className; }
    row.appendChild(td);
    return td;
  }

  function legalWords(legal, raiseClosedReason) {
    if (!legal) { return "nothing (nobody to act)"; }
    var words = [];
    if (legal.bring_in) { words.push("bring it in for " + chips(legal.bring_in.to)); }
    if (legal.fold) { words.push("fold"); }
    if (legal.check) { words.push("check"); }
    if (legal.call) { words.push("call " + chips(legal.call.adds) + " (to " + chips(legal.call.to) + ")"); }
    if (legal.bet) {
      words.push("bet " + chips(legal.bet.min_to) + " to " + chips(legal.bet.max_to)
        + (legal.bet.open_pair_to ? " (or " + chips(legal.bet.open_pair_to) + ": an open pair)" : ""));
    }
    if (legal.raise) { words.push("raise to " + chips(legal.raise.min_to) + " – " + chips(legal.raise.max_to)); }
    if (raiseClosedReason) { words.push("no raise (" + raiseClosedReason.replace(/_/g, " ") + ")"); }
    return words.join(" · ");
  }

  function showTable(table) {
    byId("board").textContent = table.board || "—";
    byId("pot").textContent = chips(table.pot_total || 0);
    byId("pots").textContent = (table.pots || []).length > 1
      ? "(" + table.pots.map(function (pot, i) {
          return (i === 0 ? "main " : "side ") + chips(pot.amount);
        }).join(", ") + ")"
      : "";
    /* Chips nobody can call are not a pot: they go back to the player who bet them. */
    byId("uncalled").textContent = table.uncalled
      ? "uncalled " + chips(table.uncalled.amount) + ", goes back to " + named(table.uncalled.player)
      : "";
    byId("round").textContent = table.round || "—";
    var body = byId("seats");
    body.textContent = "";
    (table.seats || []).forEach(function (seat) {
      var row = document.createElement("tr");
      if (seat.player === table.to_act) { row.className = "to-act"; }
      cell(row, String(seat.seat + 1) + (seat.seat === table.button ? " (button)" : ""));  // seats from 1, as the desk and screens
      cell(row, named(seat.player) + (seat.player === table.to_act ? " ← to act" : ""));
      cell(row, chips(seat.stack), "num");
      cell(row, seat.bet ? chips(seat.bet) : "", "num");
      cell(row, (seat.status || "").replace(/_/g, " "));
      cell(row, seat.cards || "hidden", seat.cards ? "cards" : "muted");
      body.appendChild(row);
    });
  }

  function showDecision(decision) {
    var box = byId("decision");
    box.hidden = !decision;
    if (!decision) { return; }
    var sized = ["bet", "raise", "bring_in", "complete"].indexOf(decision.action) >= 0;
    var made = decision.action.replace(/_/g, " ") + (sized ? " to " + chips(decision.to) : "")
      + (decision.action === "call" ? " " + chips(decision.adds) : "") + (decision.all_in ? ", all in" : "");
    byId("decision-who").textContent = named(decision.player) + ": " + made;
    byId("decision-legal").textContent = legalWords(decision.legal, decision.raise_closed_reason);
    var closed = byId("decision-closed");
    closed.hidden = !decision.raise_closed;
    if (decision.raise_closed) {
      closed.textContent = "No raise: " + decision.raise_closed.detail
        + (decision.raise_closed.rule ? " (" + decision.raise_closed.rule + ")" : "");
    }
    var verdict = decision.verdict || {};
    byId("decision-verdict").textContent = (verdict.legal ? "legal" : "not legal")
      + (verdict.detail ? ": " + verdict.detail : "");
    var rule = verdict.rule || (decision.raise_closed && decision.raise_closed.rule);
    /* Only a numbered rule is a badge; an action no rule decides says so in plain words. */
    byId("decision-rule").hidden = !rule;
    byId("decision-rule").textContent = rule || "";
    byId("decision-no-rule").hidden = Boolean(rule);
    byId("decision-no-rule").textContent = rule ? "" : "no numbered rule decides a " + decision.action.replace(/_/g, " ");
  }

  function showEventRule(rule) {
    byId("event-rule").hidden = !rule;
    if (!rule) { return; }
    byId("event-rule-text").textContent = rule.rule || "";
    byId("event-rule-detail").textContent = rule.detail || "";
  }

  /* The rulings recorded at this step (service.application.floor_rulings.at_steps), and
     the step the ruling form records at. */
  function showRulings(index) {
    var here = (replay.rulings || []).filter(function (ruling) { return ruling.step === index; });
    byId("step-rulings").hidden = !here.length;
    var list = byId("step-rulings-list");
    list.textContent = "";
    here.forEach(function (ruling) {
      var item = document.createElement("li");
      item.textContent = ruling.question + " — " + ruling.decision
        + (ruling.rule ? " (" + ruling.rule + ")" : "")
        + (ruling.cards && ruling.cards.length ? " · cards " + ruling.cards.join(" ") : "")
        + " · " + ruling.role + " " + ruling.ruled_by + ", " + ruling.recorded_at;
      list.appendChild(item);
    });
    if (byId("ruling-step")) {
      byId("ruling-step").value = String(index);
      byId("ruling-version").value = String(steps[index].version);
    }
  }

  function show(index) {
    if (!steps.length) { return; }
    current = Math.max(0, Math.min(steps.length - 1, index));
    var step = steps[current];
    byId("step-number").textContent = String(current + 1);
    byId("step-caption").textContent = step.caption + (step.automatic ? " (played by the computer)" : "");
    showTable(step.table);
    showDecision(step.decision);
    showEventRule(step.rule);
    showRulings(current);
    var links = byId("events").querySelectorAll("a[data-step]");
    links.forEach(function (link) {
      link.parentNode.classList.toggle("current", Number(link.dataset.step) === current);
    });
    document.querySelector("[data-go=back]").disabled = current === 0;
    document.querySelector("[data-go=forward]").disabled = current === steps.length - 1;
    if (history.replaceState) { history.replaceState(null, "", "#step=" + (current + 1)); }
  }

  var moves = {
    first: function () { show(0); },
    back: function () { show(current - 1); },
    forward: function () { show(current + 1); },
    last: function () { show(steps.length - 1); }
  };
  document.querySelectorAll("[data-go]").forEach(function (button) {
    button.addEventListener("click", function () { moves[button.dataset.go](); });
  });
  ["events", "rulings-list"].forEach(function (id) {
    var list = byId(id);
    if (!list) { return; }
    list.addEventListener("click", function (event) {
      var link = event.target.closest("a[data-step]");
      if (link) { event.preventDefault(); show(Number(link.dataset.step)); }
    });
  });
  document.addEventListener("keydown", function (event) {
    if (event.target.closest("input, textarea, select")) { return; }
    var keys = { ArrowLeft: "back", ArrowRight: "forward", Home: "first", End: "last" };
    if (keys[event.key]) { event.preventDefault(); moves[keys[event.key]](); }
  });
  var asked = /step=(\d+)/.exec(location.hash);
  show(asked ? Number(asked[1]) - 1 : 0);
})();
