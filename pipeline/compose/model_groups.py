"""Pure: one page's worth per model across its providers, from the Market table as of the
newest edition: every provider that lists the model (grouped by canonical id,
normalize/model_ids.py), cheapest first, with each listing's price history where a catalogue
shows it moving.

"Cheapest" is the first workload profile's blended price (the calculator's first preset, as on
the Market page), then the output price; free listings come last, never ranked.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pipeline.compose.model_pages import slug
from pipeline.compose.prices_page import PriceHistory
from pipeline.normalize.model_ids import canonical_model
from pipeline.normalize.units import METER_TITLES
from pipeline.tables.catalogue_history import base_prices

HISTORY_METERS = ("input", "cached_input", "output")


@dataclass(frozen=True)
class Listing:
    """One row of the Market: a provider's listing of the model."""

    provider: str
    model: str
    anchor: str
    """The id of its row on the Market page."""
    usd_per_mtok: tuple[float | None, ...]
    """Input, cached input, cache write, output, batch input, batch output (None: not given)."""
    context_tokens: int | None
    blends: tuple[float | None, ...]
    """USD per Mtok of each calculator profile's workload (None: not priced)."""
    free: bool
    currency: str
    source: str
    source_url: str
    since: str
    tracked: str | None = None
    """The slug of the provider's own page of this model, where it has one."""


@dataclass(frozen=True)
class ModelGroup:
    canonical: str
    slug: str
    title: str
    family: str
    listings: tuple[Listing, ...]
    spellings: tuple[str, ...]
    """The ids the providers list it under, as written."""
    history: PriceHistory | None
    """The moves of each listing a catalogue shows moving; None when no price moved."""
    flat_since: str
    """The first snapshot of the catalogues' histories of its listings, for a flat history."""
    held: tuple[tuple[str, str], ...] = ()
    """(provider, model id) of each listing held back as implausible (tables/plausibility.py):
    named on the page, never priced."""


PRICE_COLUMNS = ("input_usd_per_mtok", "cached_input_usd_per_mtok", "cache_write_usd_per_mtok",
                 "output_usd_per_mtok", "batch_input_usd_per_mtok", "batch_output_usd_per_mtok")


def group_slug(canonical: str) -> str:
    """Return the stem of a model's page: its canonical id's slug (an id of nothing but
    punctuation still names a page)."""
    return slug(canonical) or "model"


def row_anchors(table: pd.DataFrame) -> list[str]:
    """Return the id of each Market row, in the table's order: `m-` and its provider and model
    as a slug, numbered from the second where two rows would share one."""
    seen: Counter[str] = Counter()
    out = []
    for provider, model in zip(table["provider"], table["model"], strict=True):
        base = f"m-{slug(f'{provider}-{model}')}"
        seen[base] += 1
        out.append(base if seen[base] == 1 else f"{base}-{seen[base]}")
    return out


def family(canonical: str) -> str:
    """Return a model's family, the letters its canonical id starts with: `gpt-oss-120b` →
    `gpt`, `qwen3-coder` → `qwen`, `claude-sonnet-4-5` → `claude`."""
    match = re.match(r"[a-z]+", canonical)
    return match.group(0) if match else canonical[:1] or "other"


def display_title(canonical: str, spellings: Sequence[str]) -> str:
    """Return a model's readable name: the most common way its providers write its last path
    part with capitals (`DeepSeek-R1-0528` for `deepseek-ai/DeepSeek-R1-0528`), else its
    canonical id."""
    cased = Counter(s.rsplit("/", 1)[-1] for s in spellings
                    if s.rsplit("/", 1)[-1] != s.rsplit("/", 1)[-1].lower()
                    and slug(canonical_model(s)) == slug(canonical))
    return cased.most_common(1)[0][0] if cased else canonical


def shown_by(histories: Mapping[str, pd.DataFrame], held: pd.DataFrame | None,
             end: str) -> tuple[dict[str, pd.DataFrame], pd.DataFrame | None]:
    """Return what model_groups reads of the catalogues as of `end`, the last snapshot time
    shown (snapshot_time): each history's periods first seen by then, and the listings held back
    as the newest snapshot by then shows them (HELD_COLUMNS: one row a price). A new edition
    with no newer snapshot shows the same, so its groups are the last build's."""
    shown = {name: h[h["first_seen"] <= end] for name, h in histories.items()}
    if held is None or held.empty:
        return shown, held
    return shown, held[(held["first_seen"] <= end)
                       & ((held["gone_seen"] == "") | (held["gone_seen"] > end))]


def model_groups(table: pd.DataFrame, blends: pd.DataFrame, anchors: Sequence[str],
                 histories: Mapping[str, pd.DataFrame],
                 tracked: Mapping[tuple[str, str], str],
                 held: pd.DataFrame | None = None) -> list[ModelGroup]:
    """Return a group per canonical model of the Market `table`, listings cheapest first, in
    the order of their slugs. `blends`: the calculator profiles' USD per Mtok, one column each,
    row for row with `table`; `anchors`: each row's id on the Market page; `histories`: each
    published catalogue's periods shown (shown_by), by its name (the Market's `source`);
    `tracked`: the slug of each (provider, model) with a page of its own; `held`: the listings
    held back as implausible then (shown_by of Sources.held_prices)."""
    moves, first_seen = _moves(histories)
    held_by: dict[str, set[tuple[str, str]]] = {}
    if held is not None and not held.empty:
        for c, provider, model in zip(held["canonical"], held["provider"], held["model"],
                                      strict=True):
            held_by.setdefault(str(c), set()).add((str(provider), str(model)))
    first = (blends.iloc[:, 0].to_numpy() if blends.shape[1]
             else np.full(len(table), np.nan))
    # One sort of the whole table, then a walk over it: per group, pandas took 20 s for the
    # bundled sources' 1,600 models.
    canonical = table["model"].map(canonical_model)
    # Grouped by the canonical id's slug: `jamba-1.5-large` and `jamba-1-5-large` are one
    # model, and would be one page's path.
    order = pd.DataFrame({"key": canonical.map(group_slug).to_numpy(),
                          "canonical": canonical.to_numpy(),
                          "free": table["free"].to_numpy(), "blend": first,
                          "output": table["output_usd_per_mtok"].to_numpy(),
                          "provider": table["provider"].to_numpy()})
    order = order.sort_values(["key", "free", "blend", "output", "provider"],
                              na_position="last", kind="stable")
    columns = ["provider", "model", *PRICE_COLUMNS, "context_window_tokens", "free",
               "currency", "source", "source_url", "last_change"]
    rows = list(table[columns].itertuples(index=False, name=None))
    blend_rows = blends.to_numpy().tolist()
    groups = []
    # The frame's index is each row's position in `table`.
    for key, members in itertools.groupby(zip(order["key"], order["canonical"], order.index),
                                          key=lambda member: member[0]):
        members = list(members)
        # The id most of its listings are grouped by (the first in order on a tie).
        name = Counter(c for _, c, _ in members).most_common(1)[0][0]
        listings = tuple(_listing(rows[p], blend_rows[p], anchors[p], tracked)
                         for _, _, p in members)
        lines = tuple(line for item in listings for line in moves.get(
            (item.source, item.provider, item.model), ()))
        history = None
        if lines:
            last = max(point[0] for _, points in lines for point in points)
            history = PriceHistory(f"{name}: base prices that moved, USD per Mtok", last,
                                   tuple(sorted(lines)))
        seen = [first_seen[k] for item in listings
                if (k := (item.source, item.provider, item.model)) in first_seen]
        spellings = tuple(sorted({item.model for item in listings}))
        groups.append(ModelGroup(str(name), str(key), display_title(str(name), spellings),
                                 family(str(name)), listings, spellings, history,
                                 min(seen)[:10] if seen else "",
                                 tuple(sorted(set().union(*(held_by.get(str(c), ())
                                                            for c in {c for _, c, _ in members}))))))
    return sorted(groups, key=lambda g: g.slug)


def _number(value: object) -> float | None:
    return None if value is None or pd.isna(value) else float(value)


def _listing(row: tuple, blends: Sequence[float], anchor: str,
             tracked: Mapping[tuple[str, str], str]) -> Listing:
    provider, model, *prices, context, free, currency, source, url, since = row
    return Listing(str(provider), str(model), anchor, tuple(_number(v) for v in prices),
                   None if pd.isna(context) or context <= 0 else int(context),
                   tuple(_number(v) for v in blends), bool(free), str(currency), str(source),
                   str(url), str(since), tracked.get((str(provider), str(model))))


def _moves(histories: Mapping[str, pd.DataFrame]) -> tuple[
        dict[tuple[str, str, str], list], dict[tuple[str, str, str], str]]:
    """Return, by (catalogue name, provider, model): the chart lines of each listing whose base
    price moved in its catalogue's history (one per meter, labelled by provider and meter), and
    the first snapshot that showed each listing."""
    lines: dict[tuple[str, str, str], list] = {}
    first: dict[tuple[str, str, str], str] = {}
    for name, history in histories.items():
        h = base_prices(history, HISTORY_METERS)
        if h.empty:
            continue
        seen = h.groupby(["provider", "model"], sort=False)["first_seen"].min()
        first.update({(name, str(p), str(m)): str(at) for (p, m), at in seen.items()})
        prices = h.groupby(["provider", "model", "meter"], sort=False)["usd_per_mtok"]
        moved = h[prices.transform("nunique") > 1].sort_values(
            ["provider", "model", "meter", "first_seen"], kind="stable")
        # One walk over plain columns: pandas' own group iteration took 3.6 s a build over the
        # year's 3,000 moved meters. A snapshot time is parsed once, however many rows show it.
        times = {at: dt.datetime.fromisoformat(at.replace("Z", "+00:00"))
                 for at in moved["first_seen"].unique()}
        rows = zip(moved["provider"].tolist(), moved["model"].tolist(), moved["meter"].tolist(),
                   moved["first_seen"].tolist(), moved["usd_per_mtok"].tolist(), strict=True)
        for (provider, model, meter), periods in itertools.groupby(rows, key=lambda r: r[:3]):
            points = tuple((times[at], float(usd)) for *_, at, usd in periods)
            lines.setdefault((name, str(provider), str(model)), []).append(
                (f"{provider}, {METER_TITLES[str(meter)]}", points))
    return lines, first
