// A month's page of the Changes (render/changes_page.py): filter its moves by catalogue,
// provider, meter and kind. Each commit is a <tbody> (its catalogue in data-catalogue), its
// first row the commit's heading, then one row per move (data-provider, data-meter,
// data-kind); a commit with no move left is hidden whole. Without JavaScript every move shows
// and the form stays hidden.
(function () {
  "use strict";
  function setUp() {
    var table = document.getElementById("changes-table");
    var form = document.querySelector(".changes-filters");
    if (!table || !form || table.dataset.ready) { return; }
    table.dataset.ready = "1";
    var groups = Array.prototype.slice.call(table.tBodies);
    var count = form.querySelector("output");
    var total = 0;
    groups.forEach(function (g) { total += g.rows.length - 1; });

    function filter() {
      var catalogue = form.elements.catalogue.value;
      var provider = form.elements.provider.value;
      var meter = form.elements.meter.value;
      var kinds = {};
      Array.prototype.forEach.call(form.querySelectorAll("input[name=kind]"), function (box) {
        if (box.checked) { kinds[box.value] = true; }
      });
      var shown = 0;
      groups.forEach(function (g) {
        var inGroup = 0;
        var ours = !catalogue || g.getAttribute("data-catalogue") === catalogue;
        for (var i = 1; i < g.rows.length; i++) {
          var row = g.rows[i];
          var hit = ours && kinds[row.getAttribute("data-kind")] === true &&
            (!provider || row.getAttribute("data-provider") === provider) &&
            (!meter || row.getAttribute("data-meter") === meter);
          row.hidden = !hit;
          if (hit) { inGroup++; }
        }
        g.hidden = inGroup === 0;
        shown += inGroup;
      });
      count.textContent = shown + " of " + total + " moves shown";
    }

    form.addEventListener("change", filter);
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    form.hidden = false;
    filter();
  }
  // Material's instant navigation swaps pages without a load event.
  if (window.document$ && window.document$.subscribe) { window.document$.subscribe(setUp); }
  else { document.addEventListener("DOMContentLoaded", setUp); }
})();
