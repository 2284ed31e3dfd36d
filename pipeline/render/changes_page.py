"""Pure: the Changes page: every price move the published catalogues' snapshots showed up to
the newest edition, in the words the editions use: one folded group per canonical model, the
model that moved last first, its moves newest first (render/model_groups.py).

Catalogue text (providers, models) is third-party: every cell is escaped here.
"""

from __future__ import annotations

import datetime as dt
import html
import itertools
from collections.abc import Collection

import pandas as pd

from pipeline.compose.catalogue_moves import change_share, tier_words, usd_text
from pipeline.models.catalogues import Catalogue
from pipeline.normalize.model_ids import canonical_model
from pipeline.render.escape import md_cell
from pipeline.render.model_groups import count, group_ids, group_md
from pipeline.tables.catalogue_history import day_changes, snapshot_time
from pipeline.tables.cost import day_end

MAX_ROWS = 2_000
"""Rows on the page; every move is in data/changes.csv."""
HEAD = ["| First seen | Catalogue | Provider | Model | Price | Was | Now | Change |",
        "|---|---|---|---|---|---|---|---|"]


def _price(value: float) -> str:
    return "" if pd.isna(value) else usd_text(float(value))


def changes_page_md(changes: pd.DataFrame, catalogues: list[Catalogue],
                    curated: Collection[tuple[str, str]], as_of: dt.date) -> str:
    """Return the Changes page: the moves of `changes` (tables/catalogue_history
    `catalogue_changes`) first seen by the end of `as_of`, one group per model, the one that
    moved last first, each newest first; `curated`: the (provider, case-folded model) pairs
    our files price, marked."""
    names = {c.id: c for c in catalogues}
    # A price withdrawn and listed again (or the reverse) within a day is said once.
    shown = day_changes(changes[changes["at"] <= snapshot_time(day_end(as_of))])
    shown = shown.iloc[::-1]
    models = shown[["catalogue", "provider", "model"]].drop_duplicates()
    lines = [
        "# Price changes in the catalogues", "",
        # No date, and links to built URLs rather than .md files: the page then keeps its
        # HTML between builds until a move is added (cache/page_cache.py).
        (f"{len(shown):,} price moves of {len(models):,} models, as the snapshots of the public "
         "catalogues showed them up to the newest edition: a move dates from the first "
         "snapshot that showed it, not from a date the catalogue claims. One folded group per "
         "model (its listings across providers and catalogues under one id), the model that "
         "moved last first, its moves newest first. US dollars per million tokens. Where one "
         "of our curated provider files prices the model (marked *curated*), the curated price "
         "is the site's and its own changes are in the editions and on the "
         "[Prices](../prices/) page."
         + (" Every move is in [changes.csv](data/changes.csv)." if catalogues else "")), ""]
    if shown.empty:
        said = ("No catalogue price has moved since its first snapshot." if catalogues
                else "This repository follows no price catalogue (sources/catalogues.yaml).")
        return "\n".join([*lines, said, ""])
    if len(shown) > MAX_ROWS:
        lines += [f"The newest {MAX_ROWS:,} are below.", ""]
    kept = shown.head(MAX_ROWS)
    kept = kept.assign(canonical=kept["model"].map(canonical_model))
    # Newest first already: a stable sort by each model's newest move keeps its moves so.
    kept = kept.assign(newest=kept.groupby("canonical")["at"].transform("max")).sort_values(
        ["newest", "canonical"], ascending=[False, True], kind="stable")
    # One pass over the whole table: per group, pandas' drop_duplicates and itertuples took
    # 20 s of a year's build for its 600 groups.
    listings = kept.drop_duplicates(["canonical", "catalogue", "catalogue_provider", "model"])
    listings_by = listings.groupby("canonical", sort=False).size()
    rows = itertools.groupby(zip(kept["canonical"], kept.itertuples(index=False), strict=True),
                             key=lambda pair: pair[0])
    models = list(dict.fromkeys(kept["canonical"]))
    for (model, members), anchor in zip(rows, group_ids("model", models), strict=True):
        moves = [row for _, row in members]
        said = (f"{count(len(moves), 'move')} of {count(int(listings_by[model]), 'listing')}, "
                f"the newest first seen {moves[0].at[:10]}")
        lines += group_md(anchor, model, said,
                          [*HEAD, *(_row(r, names, curated) for r in moves)])
    return "\n".join(lines)


def _row(row, names: dict[str, Catalogue], curated: Collection[tuple[str, str]]) -> str:
    catalogue = names.get(row.catalogue)
    source = (f"[{md_cell(catalogue.name)}]({html.escape(str(catalogue.page))})"
              if catalogue else md_cell(row.catalogue))
    share = change_share(row.old_usd_per_mtok, row.new_usd_per_mtok)
    what = {"new": "new", "removed": "no longer listed",
            "relisted": "no longer listed, then listed again the same day",
            "withdrawn": "listed, then no longer listed the same day"}.get(
        row.kind, "" if share is None else f"{share:+.1%}")
    mark = " *curated*" if (row.provider, row.model.casefold()) in curated else ""
    model = md_cell(row.model) + mark
    # The catalogue's own id beside ours: two of its providers can be one company for us
    # (gemini and vertex_ai are google), each with its own price.
    provider = md_cell(row.provider) + ("" if row.catalogue_provider == row.provider
                                        else f" ({md_cell(row.catalogue_provider)})")
    return (f"| {row.at[:10]} | {source} | {provider} | {model} | "
            f"{md_cell(tier_words(row))} | {_price(row.old_usd_per_mtok)} | "
            f"{_price(row.new_usd_per_mtok)} | {what} |")
