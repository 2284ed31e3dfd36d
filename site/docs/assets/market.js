// The Market page's table: sort by any column, filter by provider and text. Without JavaScript
// the table is whole and sorted by output price; the filters stay hidden.
(function () {
  "use strict";
  function setUp() {
    var table = document.getElementById("market-table");
    if (!table || table.tagName !== "TABLE" || table.dataset.ready) { return; }
    table.dataset.ready = "1";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var filters = document.querySelector(".market-filters");
    var provider = document.getElementById("market-provider");
    var search = document.getElementById("market-search");
    var count = document.getElementById("market-count");
    var headers = table.tHead.rows[0].cells;

    function key(row, column, kind) {
      var cell = row.cells[column];
      if (kind === "number") {
        var value = cell.getAttribute("data-value");
        return value === "" ? null : parseFloat(value);
      }
      return cell.textContent.toLowerCase();
    }

    function sortBy(column) {
      var th = headers[column];
      var kind = th.getAttribute("data-kind");
      var ascending = th.getAttribute("aria-sort") !== "ascending";
      for (var i = 0; i < headers.length; i++) { headers[i].removeAttribute("aria-sort"); }
      th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      rows.sort(function (a, b) {
        var x = key(a, column, kind), y = key(b, column, kind);
        if (x === y) { return 0; }
        if (x === null) { return 1; }   // no price: last either way
        if (y === null) { return -1; }
        return (x < y ? -1 : 1) * (ascending ? 1 : -1);
      });
      rows.forEach(function (row) { body.appendChild(row); });
    }

    function filter() {
      var who = provider.value, text = search.value.trim().toLowerCase(), shown = 0;
      rows.forEach(function (row) {
        var hit = (!who || row.getAttribute("data-provider") === who) &&
          (!text || row.textContent.toLowerCase().indexOf(text) !== -1);
        row.hidden = !hit;
        if (hit) { shown++; }
      });
      count.textContent = shown + " of " + rows.length + " models";
    }

    Array.prototype.forEach.call(headers, function (th, column) {
      th.querySelector("button").addEventListener("click", function () { sortBy(column); });
    });
    provider.addEventListener("change", filter);
    search.addEventListener("input", filter);
    filters.hidden = false;
    filter();
  }
  // Material's instant navigation swaps pages without a load event.
  if (window.document$ && window.document$.subscribe) { window.document$.subscribe(setUp); }
  else { document.addEventListener("DOMContentLoaded", setUp); }
})();
