/* Finding people by name, as they type (no dropdown: nothing is chosen for them).
   - The desk: an input[data-filter] names the rows it filters (each with data-name);
     rows that do not match are hidden, and [data-filter-none] says when none does.
   - The seating screen: input#find-seat lists, in #found, each seat whose data-name
     matches ("Ann Duke: table 3, seat 4") and the move waiting for them, if any.
   Names match in any case and without accents ("dara o" finds "Dara Ó Briain"). What
   is shown is set as text, never as markup. Both run again when a live page swaps its
   screen in (screens.js tells of it with a "cardroom:swapped" event). */
(function () {
  "use strict";
  function fold(text) {
    return (text || "").normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase().trim();
  }

  function filterRows(input) {
    var wanted = fold(input.value);
    var rows = document.querySelectorAll(input.getAttribute("data-filter"));
    var shown = 0;
    rows.forEach(function (row) {
      var match = !wanted || fold(row.getAttribute("data-name")).indexOf(wanted) !== -1;
      row.hidden = !match;
      if (match) { shown += 1; }
    });
    document.querySelectorAll("[data-filter-none]").forEach(function (note) { note.hidden = shown > 0; });
  }

  function findSeat(input) {
    var found = document.getElementById("found");
    if (!found) { return; }
    var wanted = fold(input.value);
    found.textContent = "";
    if (wanted.length < 2) { return; }
    var moves = {};
    document.querySelectorAll("#screen [data-move][data-name]").forEach(function (move) {
      moves[move.getAttribute("data-name")] = "moving to table " + move.getAttribute("data-to-table") +
        ", seat " + move.getAttribute("data-to-seat");
    });
    var count = 0;
    document.querySelectorAll("#screen tr[data-seat][data-name]").forEach(function (row) {
      var name = row.getAttribute("data-name");
      if (fold(name).indexOf(wanted) === -1 || count >= 20) { return; }
      count += 1;
      var item = document.createElement("li");
      var who = document.createElement("strong");
      who.textContent = name;
      item.appendChild(who);
      item.appendChild(document.createTextNode(": table " + row.getAttribute("data-table") +
        ", seat " + row.getAttribute("data-seat")));
      if (moves[name]) {
        var where = document.createElement("span");
        where.className = "where";
        where.textContent = " → " + moves[name];
        item.appendChild(where);
      }
      found.appendChild(item);
    });
    if (!count) {
      var none = document.createElement("li");
      none.className = "muted";
      none.textContent = "Nobody by that name is seated.";
      found.appendChild(none);
    }
  }

  function run() {
    document.querySelectorAll("input[data-filter]").forEach(filterRows);
    var seat = document.getElementById("find-seat");
    if (seat) { findSeat(seat); }
  }

  document.addEventListener("input", function (event) {
    var target = event.target;
    if (target.matches && target.matches("input[data-filter]")) { filterRows(target); }
    if (target.id === "find-seat") { findSeat(target); }
  });
  // The search forms also work without this script (the server filters); with it, Enter
  // keeps the page and what is typed.
  document.querySelectorAll("form.search").forEach(function (form) {
    form.addEventListener("submit", function (event) { event.preventDefault(); run(); });
  });
  document.querySelectorAll("[data-print]").forEach(function (button) {
    button.hidden = false;
    button.addEventListener("click", function () { window.print(); });
  });
  document.addEventListener("cardroom:swapped", run);
  run();
})();
