// The Market page's table: sort by any column, filter by mode, provider and text, and price a
// workload (the calculator: two columns, Cost and Tokens per $). Mode batch keeps the rows with
// batch prices (data-batch) and prices the workload at them. "Prices on" swaps in the table as
// it stood on a past date (data/market-on/<date>.json, render/market_past.py), rows made as the
// build makes the page's. Without JavaScript the table is whole and sorted by output price, and
// a few headings link to pages with the table sorted by their column; the filters and the
// calculator stay hidden.
(function () {
  "use strict";
  function setUp() {
    var table = document.getElementById("market-table");
    if (!table || table.tagName !== "TABLE" || table.dataset.ready) { return; }
    table.dataset.ready = "1";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var filters = document.querySelector(".market-filters");
    var mode = document.getElementById("market-mode");
    var provider = document.getElementById("market-provider");
    var search = document.getElementById("market-search");
    var count = document.getElementById("market-count");
    var headers = table.tHead.rows[0].cells;
    // The build's columns, before the calculator adds its two: a past date's rows are made in
    // this order.
    var columns = Array.prototype.map.call(headers, function (th) {
      return th.getAttribute("data-column");
    });
    var numeric = Array.prototype.map.call(headers, function (th) {
      return th.getAttribute("data-kind") === "number";
    });
    var today = rows, addCells = null, reprice = null;
    // [column, ascending] of the last sort, or the build's (aria-sort): kept as the workload
    // changes and for a past date's rows.
    var sorted = null;
    var form = document.getElementById("market-calculator");
    if (form) { setUpCalculator(); }

    // The blend of tables/market.py (workload_usd_per_mtok), which the build's figures of each
    // preset come from (data-build-<profile> on each row, data-build-batch-<profile> at batch
    // prices; tests/test_browser.py compares them):
    // USD per million tokens, `share` of them input, `hits` of those from the cache.
    // No cached-input price and some cache hits: no cost (the build's rule, tables/cost.py).
    function blend(p, share, hits) {  // p: [input, cached input or null, output]
      if (hits > 0 && p[1] === null) { return null; }
      return share * ((1 - hits) * p[0] + hits * (hits > 0 ? p[1] : p[0])) + (1 - share) * p[2];
    }

    function isBatch() { return mode.value === "batch"; }

    function usdPerMtok(r, share, hits, offpeak) {
      if (isBatch()) {  // one price all week; no cached-input batch price exists
        return r.batch === null ? null : blend([r.batch[0], null, r.batch[1]], share, hits);
      }
      if (r.week === null) {  // one price all week
        var p = r.listed;
        return p[0] === null || p[2] === null ? null : blend(p, share, hits);
      }
      // Hours of one kind only: all the traffic at their prices. Empty field: the week's hours.
      var off = r.off || r.peak, on = r.peak || r.off;
      var s = offpeak === null ? r.week : offpeak;
      var a = blend(off, share, hits), b = blend(on, share, hits);
      return a === null || b === null ? null : s * a + (1 - s) * b;
    }

    function setUpCalculator() {
      var at = {};
      Array.prototype.forEach.call(headers, function (th, i) {
        at[th.getAttribute("data-column")] = i;
      });
      function price(row, column) {
        var value = row.cells[at[column]].getAttribute("data-value");
        return value ? parseFloat(value) : null;
      }
      function pricesOf(row, name) {
        var text = row.getAttribute(name);
        return text ? text.split(" ").map(function (v) { return v === "" ? null : parseFloat(v); })
          : null;
      }
      // Read once, before the two columns shift the cells; its own array, which sorting leaves
      // as it is (it reorders `rows`).
      function readRow(row) {
        var input = price(row, "input_usd_per_mtok");
        var cached = price(row, "cached_input_usd_per_mtok");
        var week = row.getAttribute("data-offpeak-week");
        return {row: row, free: row.hasAttribute("data-free"),
                listed: [input, cached, price(row, "output_usd_per_mtok")],
                off: pricesOf(row, "data-offpeak"), peak: pricesOf(row, "data-peak"),
                batch: pricesOf(row, "data-batch"),
                week: week ? parseFloat(week) : null};
      }
      // A row's prices, read before its cells shift (a past date's rows are read as made).
      var readings = new WeakMap();
      function reading(row) {
        if (!readings.has(row)) { readings.set(row, readRow(row)); }
        return readings.get(row);
      }
      var priced = rows.map(reading);
      var cost = at.model + 1, perUsd = at.model + 2;
      [["workload_usd", "Cost, $"], ["tokens_per_usd", "Tokens per $"]].forEach(function (c, k) {
        var th = document.createElement("th"), button = document.createElement("button");
        th.scope = "col";
        th.setAttribute("data-kind", "number");
        th.setAttribute("data-column", c[0]);
        button.type = "button";
        button.textContent = c[1];
        th.appendChild(button);
        headers[0].parentNode.insertBefore(th, headers[cost + k]);
      });
      addCells = function (row) {  // the two columns' cells, empty until recomputed
        reading(row);
        for (var k = 0; k < 2; k++) {
          var td = document.createElement("td");
          td.setAttribute("data-value", "");
          row.insertBefore(td, row.cells[cost + k]);
        }
      };
      rows.forEach(addCells);
      // The columns are two more: market.css hides other positions on a phone.
      table.setAttribute("data-calculated", "");

      var inputTokens = document.getElementById("market-input-tokens");
      var outputTokens = document.getElementById("market-output-tokens");
      var cacheHit = document.getElementById("market-cache-hit");
      var offpeak = document.getElementById("market-offpeak");
      var summary = document.getElementById("market-workload");
      var preset = document.getElementById("market-preset");
      var fields = [[inputTokens, "data-input-tokens"], [outputTokens, "data-output-tokens"],
                    [cacheHit, "data-cache-hit"], [offpeak, "data-offpeak"]];

      function read(input, fallback, most) {  // a blank or unreadable field: its default
        var value = parseFloat(input.value);
        return isNaN(value) ? fallback : Math.min(Math.max(value, 0), most);
      }
      // Made once: toLocaleString with options builds a formatter on every call, and a
      // keystroke formats two figures for each of thousands of rows.
      var cents = new Intl.NumberFormat("en-US", {minimumFractionDigits: 2,
                                                  maximumFractionDigits: 2});
      var whole = new Intl.NumberFormat("en-US", {maximumFractionDigits: 0});
      function money(v) {  // as the build writes prices (render/market_page.py, _price)
        return v < 0.1 ? String(Number(v.toPrecision(4))) : cents.format(v);
      }
      function recompute() {
        var tokensIn = read(inputTokens, 0, Infinity), tokensOut = read(outputTokens, 0, Infinity);
        var hits = read(cacheHit, 0, 100) / 100, share = read(offpeak, null, 100);
        var total = tokensIn + tokensOut, mtok = total / 1e6;
        share = share === null ? null : share / 100;
        priced.forEach(function (r) {
          var a = r.row.cells[cost], b = r.row.cells[perUsd];
          var per = r.free || total === 0 ? null : usdPerMtok(r, tokensIn / total, hits, share);
          var usd = per === null ? null : per * mtok;
          var tokens = usd === null || !(usd > 0) ? null : total / usd;
          // Free: shown as free, never ranked (no value to sort by), no tokens per dollar.
          a.textContent = r.free ? "free" : usd === null ? "" : money(usd);
          a.setAttribute("data-value", usd === null ? "" : String(usd));
          b.textContent = tokens === null ? "" : whole.format(Math.round(tokens));
          b.setAttribute("data-value", tokens === null ? "" : String(tokens));
        });
        var workload = tokensIn.toLocaleString("en-US") + " input tokens (" +
          (hits * 100).toLocaleString("en-US") + " % cache hits) and " +
          tokensOut.toLocaleString("en-US") + " output tokens";
        summary.textContent = total === 0 ? "Set some input or output tokens to price a workload."
          : (isBatch() ? "Priced at batch prices, one price all week: " + workload +
             (hits > 0 ? "; no model has a cached-input batch price, so none has a cost" : "")
            : "Priced: " + workload + ", off-peak share " +
              (share === null ? "by the week's hours"
                : (share * 100).toLocaleString("en-US") + " %")) +
            ": Cost and Tokens per $ are the columns after Model.";
        if (preset) {  // the preset these fields are, else "your own"
          var same = Array.prototype.filter.call(preset.options, function (o) {
            return o.value && fields.every(function (f) { return f[0].value === o.getAttribute(f[1]); });
          });
          preset.value = same.length ? same[0].value : "";
        }
        if (sorted && (sorted[0] === cost || sorted[0] === perUsd)) { sortBy(sorted[0], sorted[1]); }
      }

      if (preset) {
        preset.addEventListener("change", function () {
          var chosen = preset.options[preset.selectedIndex];
          if (chosen.value) {
            fields.forEach(function (f) { f[0].value = chosen.getAttribute(f[1]); });
          }
          recompute();
        });
      }
      // The select's own change is handled above; the fields' input events here.
      form.addEventListener("input", function (event) {
        if (event.target !== preset) { recompute(); }
      });
      form.addEventListener("submit", function (event) { event.preventDefault(); });
      // The mode is a filter's select: it reprices as well as filters.
      mode.addEventListener("change", recompute);
      reprice = function () { priced = rows.map(reading); recompute(); };
      var on = document.getElementById("market-on");
      if (on) { setUpDates(on); }
      form.hidden = false;
      recompute();
    }

    // A past date's table: fetched once, its rows made as render/market_page.py makes the
    // page's (the same cells and data attributes), so sorting, filters and the calculator read
    // them alike. Every text goes in as text; the links are the build's, checked there.
    function setUpDates(on) {
      var status = document.getElementById("market-on-status");
      var loaded = {};
      var cents = new Intl.NumberFormat("en-US", {minimumFractionDigits: 2,
                                                  maximumFractionDigits: 2});
      function priceText(v) {  // render/market_page.py, _price
        return v === 0 ? "free" : v < 0.1 ? String(Number(v.toPrecision(4))) : cents.format(v);
      }
      function tokensText(v) {  // render/market_page.py, tokens_text
        return v >= 1e6 ? Number((v / 1e6).toPrecision(3)) + "M"
          : v >= 1e3 ? Number((v / 1e3).toPrecision(4)) + "K" : String(Math.round(v));
      }
      function cell(row, text, value) {
        var td = row.insertCell(-1);
        if (value !== undefined) { td.setAttribute("data-value", value); }
        td.textContent = text;
        return td;
      }
      // A link is the build's to a page elsewhere (http or https only), or one of this site's
      // model pages by its name, as today's rows link them (render/market_page.py).
      function link(td, href) {
        var text = td.textContent, a = document.createElement("a");
        if (!/^https?:\/\//.test(href) && !/^\.\.\/models\/[a-z0-9][a-z0-9._-]*\/$/.test(href)) {
          return;
        }
        a.href = href;
        a.textContent = text;
        td.textContent = "";
        td.appendChild(a);
      }
      function made(doc) {
        var at = {};
        doc.columns.forEach(function (c, i) { at[c] = i; });
        return doc.rows.map(function (r) {
          var row = document.createElement("tr");
          row.setAttribute("data-provider", r[at.provider]);
          if (r[at.free]) { row.setAttribute("data-free", ""); }
          var tiers = r[at.tiers];
          if (tiers) {
            [["offpeak", 0], ["peak", 3]].forEach(function (kind) {
              var p = tiers.slice(kind[1], kind[1] + 3);
              if (p[0] !== null && p[2] !== null) {
                row.setAttribute("data-" + kind[0], p.map(function (v) {
                  return v === null ? "" : String(v);
                }).join(" "));
              }
            });
            row.setAttribute("data-offpeak-week", String(tiers[6]));
          }
          var batch = [r[at.batch_input_usd_per_mtok], r[at.batch_output_usd_per_mtok]];
          if (batch[0] !== null && batch[1] !== null) {
            row.setAttribute("data-batch", batch.join(" "));
          }
          columns.forEach(function (c, i) {
            var v = r[at[c]];
            if (c === "context_window_tokens") {
              cell(row, v > 0 ? tokensText(v) : "", v > 0 ? String(Math.floor(v)) : "");
            } else if (c === "source") {  // the snapshot the price comes from
              link(cell(row, v + ", " + r[at.snapshot]), doc.links[r[at.link]]);
            } else if (c === "model") {
              var td = cell(row, v);
              if (r[at.page]) { link(td, "../models/" + r[at.page] + "/"); }
            } else if (numeric[i]) {
              cell(row, v === null ? "" : priceText(v), v === null ? "" : String(v));
            } else {
              cell(row, v === null || v === undefined ? "" : String(v));
            }
          });
          addCells(row);
          return row;
        });
      }
      function show(day, list, doc) {
        rows = list;
        var who = provider.value;
        var names = {};
        rows.forEach(function (row) { names[row.getAttribute("data-provider")] = 1; });
        while (provider.options.length > 1) { provider.remove(1); }
        Object.keys(names).sort().forEach(function (name) {
          provider.add(new Option(name, name));
        });
        provider.value = names[who] ? who : "";
        if (sorted) { sortBy(sorted[0], sorted[1]); } else { refill(); }
        reprice();
        filter();
        status.textContent = day ? (rows.length.toLocaleString("en-US") + " models from " +
          doc.providers +
          " providers as they stood at the end of " + day +
          "; each Source names the snapshot its price comes from.") : "";
      }
      on.addEventListener("change", function () {
        var day = on.value;
        if (!day) { show("", today, null); return; }
        if (loaded[day]) { show(day, loaded[day][0], loaded[day][1]); return; }
        status.textContent = "Loading the prices of " + day + "…";
        fetch(on.getAttribute("data-base") + day + ".json").then(function (response) {
          if (!response.ok) { throw new Error(response.status + " " + response.statusText); }
          return response.json();
        }).then(function (doc) {
          loaded[day] = [made(doc), doc];
          if (on.value === day) { show(day, loaded[day][0], doc); }
        }).catch(function (error) {
          status.textContent = "The prices of " + day + " did not load (" + error.message +
            "); the table still shows " + (rows === today ? "today's" : "the last date's") + ".";
        });
      });
    }

    // A row's place in a column's order: [rank, value]. Rows without a value rank after those
    // with one either way, and in a price's order free models after the priced ones (shown as
    // free, never ranked), as the build orders its pages (tables/market.py, market_sorts.py).
    function key(row, column, kind, price) {
      var cell = row.cells[column], value;
      if (kind === "number") {
        value = cell.getAttribute("data-value");
        value = value === "" ? null : parseFloat(value);
      } else {
        value = cell.textContent.toLowerCase() || null;
      }
      return [(price && row.hasAttribute("data-free") ? 2 : 0) + (value === null ? 1 : 0), value];
    }

    function sortBy(column, ascending) {
      var th = headers[column];
      var kind = th.getAttribute("data-kind");
      var price = /_usd_per_mtok$/.test(th.getAttribute("data-column"));
      sorted = [column, ascending];
      for (var i = 0; i < headers.length; i++) { headers[i].removeAttribute("aria-sort"); }
      th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      // Each row's key read once, not at each of the sort's comparisons; ties keep their order.
      var keyed = rows.map(function (row) { return [key(row, column, kind, price), row]; });
      keyed.sort(function (a, b) {
        var x = a[0], y = b[0];
        if (x[0] !== y[0]) { return x[0] - y[0]; }
        if (x[1] === y[1] || x[1] === null) { return 0; }
        return (x[1] < y[1] ? -1 : 1) * (ascending ? 1 : -1);
      });
      // In place: `today` and a loaded date's list are this same array.
      keyed.forEach(function (k, i) { rows[i] = k[1]; });
      refill();
    }

    function refill() {
      // Emptied at once, then refilled from one fragment: moving each of 6,500 rows within the
      // table took Chromium 10 to 15 s a sort (a click, or a keystroke sorted by Cost).
      body.textContent = "";
      var fragment = document.createDocumentFragment();
      rows.forEach(function (row) { fragment.appendChild(row); });
      body.appendChild(fragment);
    }

    function filter() {
      var who = provider.value, text = search.value.trim().toLowerCase(), shown = 0;
      var batch = isBatch();
      rows.forEach(function (row) {
        var hit = (!batch || row.hasAttribute("data-batch")) &&
          (!who || row.getAttribute("data-provider") === who) &&
          (!text || row.textContent.toLowerCase().indexOf(text) !== -1);
        row.hidden = !hit;
        if (hit) { shown++; }
      });
      count.textContent = shown + " of " + rows.length + " models";
    }

    // A heading that links to the table sorted by its column (a page of its own, for a reader
    // without JavaScript: render/market_sorts.py) sorts in place instead; a heading without
    // one becomes a button. A second click reverses the order, as from the page's own.
    Array.prototype.forEach.call(headers, function (th, column) {
      var control = th.querySelector("a, button");
      if (!control) {
        control = document.createElement("button");
        control.type = "button";
        control.textContent = th.textContent;
        th.textContent = "";
        th.appendChild(control);
      }
      if (th.hasAttribute("aria-sort")) {  // the build's order: a past date's rows sort alike
        sorted = [column, th.getAttribute("aria-sort") === "ascending"];
      }
      control.addEventListener("click", function (event) {
        // A new tab or window: the link's page, as without JavaScript.
        if (event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) { return; }
        event.preventDefault();
        sortBy(column, th.getAttribute("aria-sort") !== "ascending");
      });
    });
    mode.addEventListener("change", filter);
    provider.addEventListener("change", filter);
    search.addEventListener("input", filter);
    filters.hidden = false;
    filter();
  }
  // Material's instant navigation swaps pages without a load event.
  if (window.document$ && window.document$.subscribe) { window.document$.subscribe(setUp); }
  else { document.addEventListener("DOMContentLoaded", setUp); }
})();
