"""Pure: the Discrepancies page of its value (compose/discrepancies.py): where a catalogue
disagrees with our curated price, or with another catalogue, by more than 5 % for more than 7
days (tables/discrepancies.py), with both figures and their sources, and the catalogue prices
held back as implausible; each section one folded group per canonical model, the largest gap
first (render/model_groups.py).

Catalogue text is third-party: every cell is escaped here.
"""

from __future__ import annotations

import html

import numpy as np
import pandas as pd

from pipeline.compose.discrepancies import Discrepancies
from pipeline.compose.numbers import count, fixed, grouped, money, percent
from pipeline.compose.provider_pages import provider_path
from pipeline.models.links import is_allowed_link
from pipeline.normalize.model_ids import canonical_model
from pipeline.normalize.units import METER_TITLES
from pipeline.render.escape import md_cell
from pipeline.render.model_groups import folded_md, group_ids, group_md
from pipeline.tables.discrepancies import MIN_DAYS, THRESHOLD
from pipeline.tables.plausibility import FACTOR, LISTING, round_times

MAX_ROWS = 1_000
"""Rows per section on the page, the models with the largest gaps first."""
SHOWN_GROUPS = 40
"""Models per section shown as their own group; the rest are folded into one more box: with the
catalogues' full histories the page held 267 groups, 16,578 px closed at 1280 px."""


def held_md(held: pd.DataFrame | None, names: dict[str, tuple[str, str]]) -> list[str]:
    """Return the section on the catalogue prices held back as implausible
    (tables/plausibility.py), one folded group per model, the one farthest off first; `names`:
    each catalogue id's name and page."""
    held = held if held is not None else pd.DataFrame()
    lines = [f"## Held back as implausible ({grouped(len(held))})", "",
             (f"A catalogue price more than {fixed(FACTOR, 0)}× above or below the median of the other "
              "providers' prices of the same model (input and output; each provider counted "
              "once, at least two of them), or above its mode's ceiling in "
              "sources/catalogues.yaml, is held back: it is on no other page, in no ranking and "
              "in no data file, and when a listing's newest prices are held its whole listing "
              "is. An editor who checks one at its source lists it under "
              "`confirmed_listings`. One group per model, the one held farthest off first."), ""]
    if held.empty:
        return [*lines, "No catalogue price is held back."]
    held = _by_model(_with_gaps(held), "identity")
    groups = held.head(MAX_ROWS).groupby("identity", sort=False)
    blocks = []
    for (model, rows), anchor in zip(groups, group_ids("held", (m for m, _ in groups)),
                                     strict=True):
        far = rows.iloc[0]
        said = (f"{count(len(rows.drop_duplicates(LISTING)), 'listing')}, "
                f"{count(len(rows), 'price')} held back; the farthest ×{round_times(far.gap)} "
                f"{far.gap_from}")
        blocks.append(group_md(anchor, model, said, _held_table(rows, names)))
    lines += folded_md(blocks, SHOWN_GROUPS,
                       f"{count(len(blocks) - SHOWN_GROUPS, 'more model')}, less far off")
    if len(held) > MAX_ROWS:
        lines += [f"The first {grouped(MAX_ROWS)} of {grouped(len(held))} are shown.", ""]
    return lines


def _provider(provider: str) -> str:
    """A provider's cell: its id, linked to its page (compose/provider_pages.py)."""
    return f"[{md_cell(provider)}](../{provider_path(provider)})"


def _with_gaps(held: pd.DataFrame) -> pd.DataFrame:
    """Return `held` with how many times off each price is (`gap`) and from what (`gap_from`):
    from the median where that is what held it, else over its mode's ceiling."""
    factor = held["factor"].astype(float)
    off = np.maximum(factor, 1 / factor)
    # The test that held it (tables/plausibility.py), not `off > FACTOR`: a price at 1/20 of
    # the median (0.01 / 0.20 = 0.04999…) is below 1/FACTOR, yet 1 / 0.04999… is 20.0, not above
    # FACTOR; it was then read as over a ceiling it never broke, and shown as ×nan.
    by_median = (factor > FACTOR) | (factor < 1 / FACTOR)
    return held.assign(
        gap=off.where(by_median, held["usd_per_mtok"] / held["ceiling_usd_per_mtok"]),
        gap_from=np.where(by_median, np.where(factor > 1, "above the median",
                                              "below the median"), "above the ceiling"))


def _held_table(rows: pd.DataFrame, names: dict[str, tuple[str, str]]) -> list[str]:
    lines = ["| Catalogue | Provider | Model | Price | Listed | Other providers | Since | Why |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows.itertuples(index=False):
        name, page = names.get(r.catalogue, (r.catalogue, ""))
        median = ("" if pd.isna(r.median_usd_per_mtok) else
                  f"{money(r.median_usd_per_mtok, 'USD')} (median of {fixed(r.providers, 0)})")
        until = "" if r.gone_seen == "" else f" (until {r.gone_seen[:10]})"
        lines.append(f"| {_source_name(name, page)} | {_provider(r.provider)} | {md_cell(r.model)} | "
                     f"{METER_TITLES[r.meter]} | {money(r.usd_per_mtok, 'USD')} | {median} | "
                     f"{r.first_seen[:10]}{until} | {md_cell(r.cause)} |")
    return lines


def _by_model(rows: pd.DataFrame, by: str) -> pd.DataFrame:
    """Return `rows` (with a `gap`, how far apart, as a factor) ordered as the page groups them
    by the model in column `by`: the model with the largest gap first, within it the largest
    gap first."""
    rows = rows.assign(group_gap=rows.groupby(by)["gap"].transform("max"))
    return rows.sort_values(["group_gap", by, "gap"], ascending=[False, True, False],
                            kind="stable", ignore_index=True)


def _source_name(name: str, url: str) -> str:
    return f"[{md_cell(name)}]({html.escape(url)})" if is_allowed_link(url) else md_cell(name)


def _source(name: str, url: str, price: float) -> str:
    text = f"{money(price, 'USD')} ({md_cell(name)})"
    return f"[{text}]({html.escape(url)})" if is_allowed_link(url) else text


def _disagreements_md(found: pd.DataFrame, prefix: str, where: str, first: str,
                      second: str) -> list[str]:
    """Return the disagreements of `found` as one folded group per canonical model, the largest
    gap first; `where` says in each group's summary what disagrees."""
    # The gap as a ratio, so that 10× under (-90 %) weighs as much as 10× over (+900 %).
    rows = found.assign(canonical=found["model"].map(canonical_model),
                        gap=np.exp(np.log1p(found["difference"].astype(float)).abs()))
    rows = _by_model(rows, "canonical")
    shown = rows.head(MAX_ROWS)
    groups = shown.groupby("canonical", sort=False)
    blocks = []
    for (model, group), anchor in zip(groups, group_ids(prefix, (m for m, _ in groups)),
                                      strict=True):
        listings = len(group.drop_duplicates(["provider", "model"]))
        said = (f"{count(listings, 'listing')} {where}; the largest gap "
                f"{percent(group['difference'].iloc[0], 1, signed=True)}")
        blocks.append(group_md(anchor, model, said, _table(group, first, second)))
    lines = folded_md(blocks, SHOWN_GROUPS,
                      f"{count(len(blocks) - SHOWN_GROUPS, 'more model')}, the smaller gaps")
    if len(rows) > MAX_ROWS:
        lines += [f"The first {grouped(MAX_ROWS)} of {grouped(len(rows))} are shown, the largest gaps first.",
                  ""]
    return lines


def _table(rows: pd.DataFrame, first: str, second: str) -> list[str]:
    # The days beside the date, not a column of their own: the table sits in a group's box,
    # narrower than the page's column, where Since and Days were the columns cut off (issue 39).
    lines = [f"| Provider | Model | Price | {first} | {second} | Difference | Since |",
             "|---|---|---|---|---|---|---|"]
    for r in rows.itertuples(index=False):
        until = "still" if r.ongoing else f"until {r.until.date().isoformat()}"
        lines.append(
            f"| {_provider(r.provider)} | {md_cell(r.model)} | {METER_TITLES[r.meter]} | "
            f"{_source(r.source_a, r.url_a, r.usd_per_mtok_a)} | "
            f"{_source(r.source_b, r.url_b, r.usd_per_mtok_b)} | {percent(r.difference, 1, signed=True)} | "
            f"{r.since.date().isoformat()} ({until}; {count(round(r.days), 'day')}) |")
    return lines


def discrepancies_page_md(value: Discrepancies) -> str:
    """Return the Discrepancies page of `value` (compose/discrepancies.py)."""
    as_of, against, between = value.as_of, value.against, value.between
    lines = [
        "# Discrepancies: where the price lists disagree", "",
        (f"Where a public catalogue's price differs from our curated price of the same model, "
         f"or from another catalogue's, by more than {percent(THRESHOLD)} for more than {MIN_DAYS} "
         f"days, up to {as_of.isoformat()}: the catalogue lag a reader meets when a provider "
         "moves its prices and the maps follow late, or never. US dollars per million tokens, "
         "the base price of each (realtime, no time window, no long-context band); a "
         "catalogue's price holds from the first snapshot that showed it; models are matched "
         "by provider and exact model id; a zero price is free and never compared; curated "
         "prices in another currency are left out, an exchange rate not being a "
         "disagreement. Each figure links to its source; the difference is the second figure "
         "against the first, at the latest prices of the stretch. Each section has one folded "
         "group per model (its listings across providers under one id), the model with the "
         "largest gap first; open a group for its rows. Past a section's first "
         f"{SHOWN_GROUPS} models the rest are folded into one more box at its end."), "",
        *held_md(value.held, value.names), "",
        f"## Catalogues against our curated prices ({grouped(len(against))})", ""]
    lines += (_disagreements_md(against, "curated", "against our curated price", "Curated",
                                "Catalogue") if len(against)
              else ["No catalogue disagrees with a curated price.", ""])
    lines += [f"## Between catalogues ({grouped(len(between))})", ""]
    lines += (_disagreements_md(between, "between", "the catalogues disagree on",
                                "One catalogue", "The other") if len(between)
              else ["No two catalogues disagree.", ""])
    return "\n".join([*lines, ""])
