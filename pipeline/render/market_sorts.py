"""Pure: the orders the Market's table is written in, each a page of its own, so a column's
heading is a link that sorts the table without JavaScript (market.js sorts in place instead).

Each page is the whole Market again (3.3 MB and about 1.5 s of a cold build in the bundled
sources, nearly all of it mkdocs reading the table's links and writing the page), so only the
orders a reader asks first have one: output price (the Market page itself), input price,
context window and release date. Every other column sorts with JavaScript only. The copies
are left out of the search index and name the Market page as their canonical page."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Sort:
    """An order of the table: by `column`, `ascending` or not, its page at `market/<slug>/`
    (the Market page itself where `slug` is empty); `says` how, in words."""

    column: str
    slug: str
    ascending: bool
    says: str

    @property
    def source(self) -> str:
        """The page's Markdown path in the docs: `market.md`, `market/by-input.md`."""
        return f"market/{self.slug}.md" if self.slug else "market.md"

    @property
    def up(self) -> str:
        """From the page's URL to the site's root: `../` from `market/`."""
        return "../../" if self.slug else "../"

    def href(self, page: Sort) -> str:
        """Return the link to this order's page from `page`'s URL."""
        return ("../" if page.slug else "./") + (f"{self.slug}/" if self.slug else "")

    def order(self, table: pd.DataFrame) -> np.ndarray:
        """Return the positions of `table`'s rows in this order: rows without a value last,
        free models after the priced ones in a price's order (shown as free, never ranked),
        ties as the table has them (by output price)."""
        if not self.slug:
            return np.arange(len(table))
        value = table[self.column].reset_index(drop=True)
        missing = value.isna() | (value.astype(str) == "")
        free = (table["free"].astype(bool).reset_index(drop=True)
                if self.column.endswith("_usd_per_mtok") else pd.Series(False, index=value.index))
        keys = pd.DataFrame({"free": free, "missing": missing,
                             "value": value.where(~missing)})
        # Several columns: pandas sorts them with a stable lexsort, so ties keep the table's order.
        return keys.sort_values(["free", "missing", "value"], ascending=[True, True, self.ascending],
                                na_position="last").index.to_numpy()


SORTS = (Sort("output_usd_per_mtok", "", True, "output price, cheapest first"),
         Sort("input_usd_per_mtok", "by-input", True, "input price, cheapest first"),
         Sort("context_window_tokens", "by-context", False, "context window, largest first"),
         Sort("released", "by-released", False, "release date, newest first"))
"""The orders with a page, the Market page's own (the build's, tables/market.py) first."""
SORT_BY = {s.column: s for s in SORTS}
