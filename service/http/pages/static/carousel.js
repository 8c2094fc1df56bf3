/* The seating as a carousel, for a TV (`?layout=carousel`): a row of tables at a time, in
   big type, the next row every PAGE_S seconds, round and round; the moves stay on top.
   A row is as many tables as the grid has columns (pages.css). When the seating changes
   (screens.js swaps it in: "cardroom:swapped") the carousel stays on its page. */
(function () {
  "use strict";
  var PAGE_S = 8, page = 0;

  function show() {
    var grid = document.querySelector(".seating-tables");
    if (!grid) { return; }
    var tables = Array.from(grid.children).filter(function (el) { return el.hasAttribute("data-table"); });
    var perPage = Math.max(1, getComputedStyle(grid).gridTemplateColumns.split(" ").length);
    var pages = Math.max(1, Math.ceil(tables.length / perPage));
    page = page % pages;
    tables.forEach(function (table, index) { table.hidden = Math.floor(index / perPage) !== page; });
    var told = document.querySelector("[data-carousel-page]");
    if (told) { told.textContent = pages > 1 ? " · page " + (page + 1) + " of " + pages : ""; }
  }

  setInterval(function () { page += 1; show(); }, PAGE_S * 1000);
  document.addEventListener("cardroom:swapped", show);
  window.addEventListener("resize", show);
  show();
})();
