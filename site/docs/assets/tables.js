// A table wider than its column scrolls in a box of its own, not the page (issue 52): Material's
// .md-typeset__scrollwrap, which its bundle puts around each table:not([class]) as the page
// loads, or our .brief-scroll around the tables written as HTML (a model's page, a month of
// the Changes). A box that scrolls must be reachable by keyboard and named (axe:
// scrollable-region-focusable): it gets tabindex=0, role=region and its table's name (its
// caption, else the heading above it). A box that fits takes no tab stop; a resize or an opened
// <details> looks again. Without JavaScript Material's table scrolls itself.
(function () {
  "use strict";
  var MARK = "data-brief-scroll";

  function heading(box) {
    var table = box.querySelector("table");
    if (table && table.caption) { return table.caption.textContent.trim(); }
    var found = document.evaluate("preceding::*[self::h1 or self::h2 or self::h3 or self::h4][1]",
      box, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
    // Material's permalink "¶" is part of the heading's text.
    return found ? found.textContent.replace(/¶\s*$/, "").trim() : "";
  }

  function mark() {
    var names = {};  // a name given twice is numbered (axe: landmark-unique)
    document.querySelectorAll("[" + MARK + "]").forEach(function (box) {
      var name = box.getAttribute("aria-label").replace(/ \(\d+\)$/, "");
      names[name] = (names[name] || 0) + 1;
    });
    document.querySelectorAll(".md-typeset__scrollwrap, .brief-scroll").forEach(function (box) {
      // Material's wrapper inside a .brief-scroll of ours is told not to scroll (market.css).
      var x = getComputedStyle(box).overflowX;
      var scrolls = (x === "auto" || x === "scroll") && box.scrollWidth > box.clientWidth + 1;
      if (scrolls && !box.hasAttribute("tabindex")) {
        var name = "Table: " + (heading(box) || "wide table") + ", scrolls sideways";
        names[name] = (names[name] || 0) + 1;
        box.setAttribute("tabindex", "0");
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", names[name] > 1 ? name + " (" + names[name] + ")" : name);
        box.setAttribute(MARK, "");
      } else if (!scrolls && box.hasAttribute(MARK)) {
        ["tabindex", "role", "aria-label", MARK].forEach(function (a) { box.removeAttribute(a); });
      }
    });
  }

  // Material's documented hook for extra scripts: after its own components, the table's
  // wrapper among them, are mounted.
  if (typeof document$ !== "undefined") { document$.subscribe(mark); }
  window.addEventListener("resize", mark);
  document.addEventListener("toggle", mark, true);
})();
