"""Pure: one page's worth per model across its providers, from the Market table as of the
newest edition: every provider that lists the model, whatever its spelling (grouped by identity
key, normalize/model_identity.py, each listing with its variant: `fp8`, `turbo`, …), cheapest
first, with when each listing was first seen in the catalogues' histories, the path of each
listing's output price (a chart wherever the page has two dated prices or more) and the moves.

"Cheapest" is the first workload profile's blended price (the calculator's first preset, as on
the Market page), then the output price; free listings come last, never ranked.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pipeline.compose.model_pages import slug
from pipeline.compose.prices_page import PriceHistory
from pipeline.normalize.model_identity import identity_key, model_identity
from pipeline.normalize.model_ids import canonical_model
from pipeline.normalize.units import METER_TITLES
from pipeline.tables.catalogue_history import base_prices, seen_per_listing

HISTORY_METERS = ("input", "cached_input", "output")
PATH_METER = "output"
"""The meter each listing's path charts: one line a listing, so a page of 60 stays legible."""
MIN_DATED_PRICES = 2
"""A page charts its listings' paths when they hold at least this many dated prices."""


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
    variant: str = ""
    """How the listing serves the model (`fp8, fast`), empty for the weights as published."""
    first_seen: str = ""
    """The date of the listing's first dated price in its catalogue's history (empty: none)."""


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
    paths: PriceHistory | None = None
    """Each listing's output price from its first dated price to the end, one line a listing;
    None when its listings hold fewer than MIN_DATED_PRICES dated prices."""


PRICE_COLUMNS = ("input_usd_per_mtok", "cached_input_usd_per_mtok", "cache_write_usd_per_mtok",
                 "output_usd_per_mtok", "batch_input_usd_per_mtok", "batch_output_usd_per_mtok")


def group_slug(key: str) -> str:
    """Return the stem of a model's page: its identity key's slug (an id of nothing but
    punctuation still names a page)."""
    return slug(key) or "model"


def page_slug(model: str) -> str:
    """Return the stem of the page of the model a listing's id serves."""
    return group_slug(identity_key(model))


def group_page_slugs(slugs: Iterable[str], tracked: Iterable[str]) -> dict[str, str]:
    """Return the page stem of each model group's slug: itself, or, where a tracked model's page
    (`models/<provider>-<model>/`) has it, the slug and `-model`, numbered from 2 where that is
    taken too. Group slugs are the catalogues' spellings, which no check of ours may refuse: a
    page of theirs moves aside rather than overwriting another (issue 50)."""
    slugs = sorted(slugs)
    own = set(tracked)
    taken = own | set(slugs)
    out = {}
    for s in slugs:
        name = s if s not in own else next(
            n for n in itertools.chain([f"{s}-model"], (f"{s}-model-{i}" for i in
                                                      itertools.count(2))) if n not in taken)
        taken.add(name)
        out[s] = name
    return out


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
    part with capitals (`DeepSeek-R1-0528` for `deepseek-ai/DeepSeek-R1-0528`), among the
    spellings of no variant and no prefix where there are any, else its canonical id."""
    def cased(spelling: str) -> bool:
        last = spelling.rsplit("/", 1)[-1]
        return last != last.lower() and ":" not in last

    plain = [s for s in spellings if cased(s) and not model_identity(s).variant
             and canonical_model(s).startswith(identity_key(s).split("-", 1)[0])]
    names = Counter(s.rsplit("/", 1)[-1] for s in (plain or [s for s in spellings if cased(s)]))
    return names.most_common(1)[0][0] if names else canonical


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
                 held: pd.DataFrame | None = None, end: str = "") -> list[ModelGroup]:
    """Return a group per model (identity key) of the Market `table`, listings cheapest first,
    in the order of their slugs. `blends`: the calculator profiles' USD per Mtok, one column
    each, row for row with `table`; `anchors`: each row's id on the Market page; `histories`:
    each published catalogue's periods shown (shown_by), by its name (the Market's `source`);
    `tracked`: the slug of each (provider, model) with a page of its own; `held`: the listings
    held back as implausible then (shown_by of Sources.held_prices); `end`: the last snapshot
    time shown (snapshot_time), where each path ends (else its last dated price)."""
    moves, first_seen, periods = _moves(histories)
    held_by: dict[str, set[tuple[str, str]]] = {}
    if held is not None and not held.empty:
        for provider, model in zip(held["provider"], held["model"], strict=True):
            held_by.setdefault(page_slug(str(model)), set()).add((str(provider), str(model)))
    first = (blends.iloc[:, 0].to_numpy() if blends.shape[1]
             else np.full(len(table), np.nan))
    # One sort of the whole table, then a walk over it: per group, pandas took 20 s for the
    # bundled sources' 1,600 models.
    canonical = table["model"].map(canonical_model)
    # Grouped by the identity key's slug: `llama-3.3-70b-versatile` and
    # `meta.llama3-3-70b-instruct` are one model, and one page's path.
    order = pd.DataFrame({"key": table["model"].map(page_slug).to_numpy(),
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
    stop = _instant(end) if end else None
    groups = []
    # The frame's index is each row's position in `table`.
    for key, members in itertools.groupby(zip(order["key"], order["canonical"], order.index),
                                          key=lambda member: member[0]):
        members = list(members)
        listings = tuple(_listing(rows[p], blend_rows[p], anchors[p], tracked, first_seen)
                         for _, _, p in members)
        spellings = tuple(sorted({item.model for item in listings}))
        # The id most of its listings of no variant are listed under (the first in order on a
        # tie), else of all of them.
        plain = [c for (_, c, _), item in zip(members, listings, strict=True)
                 if not item.variant] or [c for _, c, _ in members]
        name = str(Counter(plain).most_common(1)[0][0])
        title = display_title(name, spellings)
        lines = tuple(line for item in listings for line in moves.get(
            (item.source, item.provider, item.model), ()))
        history = None
        if lines:
            last = max(point[0] for _, points in lines for point in points)
            history = PriceHistory(f"{name}: base prices that moved, USD per Mtok", last,
                                   tuple(sorted(lines)))
        seen = [item.first_seen for item in listings if item.first_seen]
        groups.append(ModelGroup(name, str(key), title, family(str(key)), listings, spellings,
                                 history, min(seen) if seen else "",
                                 tuple(sorted(held_by.get(str(key), ()))),
                                 _paths(title, listings, periods, stop)))
    return sorted(groups, key=lambda g: g.slug)


def _instant(at: str) -> dt.datetime:
    return dt.datetime.fromisoformat(at.replace("Z", "+00:00"))


def _paths(title: str, listings: Sequence[Listing],
           periods: Mapping[tuple[str, str, str], tuple[tuple[str, str, float], ...]],
           stop: dt.datetime | None) -> PriceHistory | None:
    """Return the chart of each listing's PATH_METER price as steps from its first dated price:
    a price holds from the snapshot that first showed it until the next price or until it went
    (NaN from then); None when the lines hold fewer than MIN_DATED_PRICES prices."""
    labels = Counter(_label(item) for item in listings)
    # One provider listing one variant under two ids: told apart by the id's last part, or
    # the whole id where those are the same too.
    parts = Counter(f"{_label(item)}, {item.model.rsplit('/', 1)[-1]}" for item in listings)
    lines = []
    for item in listings:
        shown = periods.get((item.source, item.provider, item.model), ())
        points: list[tuple[dt.datetime, float]] = []
        for i, (start, gone, usd) in enumerate(shown):
            points.append((_instant(start), usd))
            later = shown[i + 1][0] if i + 1 < len(shown) else ""
            if gone and (stop is None or _instant(gone) <= stop) and later != gone:
                points.append((_instant(gone), float("nan")))
        if points:
            label = _label(item)
            if labels[label] > 1:
                part = f"{label}, {item.model.rsplit('/', 1)[-1]}"
                label = part if parts[part] == 1 else f"{label}, {item.model}"
            lines.append((label, tuple(points)))
    if sum(1 for _, points in lines for _, usd in points if usd == usd) < MIN_DATED_PRICES:
        return None
    last = max(at for _, points in lines for at, _ in points)
    return PriceHistory(f"{title}: output price of each listing", max(last, stop or last),
                        tuple(sorted(lines)))


def _label(item: Listing) -> str:
    return f"{item.provider} ({item.variant})" if item.variant else item.provider


def _number(value: object) -> float | None:
    return None if value is None or pd.isna(value) else float(value)


def _listing(row: tuple, blends: Sequence[float], anchor: str,
             tracked: Mapping[tuple[str, str], str],
             first_seen: Mapping[tuple[str, str, str], str]) -> Listing:
    provider, model, *prices, context, free, currency, source, url, since = row
    return Listing(str(provider), str(model), anchor, tuple(_number(v) for v in prices),
                   None if pd.isna(context) or context <= 0 else int(context),
                   tuple(_number(v) for v in blends), bool(free), str(currency), str(source),
                   str(url), str(since), tracked.get((str(provider), str(model))),
                   ", ".join(model_identity(str(model)).variant),
                   first_seen.get((str(source), str(provider), str(model)), "")[:10])


def _moves(histories: Mapping[str, pd.DataFrame]) -> tuple[
        dict[tuple[str, str, str], list], dict[tuple[str, str, str], str],
        dict[tuple[str, str, str], tuple[tuple[str, str, float], ...]]]:
    """Return, by (catalogue name, provider, model): the moves table's lines of each listing
    whose base price moved in its catalogue's history (one per meter, labelled by provider and
    meter), the first snapshot that showed each listing, and the (first seen, gone seen or
    empty, USD per Mtok) of each period of its PATH_METER price, oldest first."""
    lines: dict[tuple[str, str, str], list] = {}
    first: dict[tuple[str, str, str], str] = {}
    periods: dict[tuple[str, str, str], tuple[tuple[str, str, float], ...]] = {}
    for name, history in histories.items():
        h = base_prices(history, HISTORY_METERS)
        if h.empty:
            continue
        seen = seen_per_listing(h, ["provider", "model"])
        first.update({(name, str(p), str(m)): str(at) for (p, m), at in seen.items()})
        path = h[h["meter"] == PATH_METER].sort_values(["provider", "model", "first_seen"],
                                                       kind="stable")
        rows = zip(path["provider"].tolist(), path["model"].tolist(),
                   path["first_seen"].tolist(), path["gone_seen"].tolist(),
                   path["usd_per_mtok"].tolist(), strict=True)
        for (provider, model), group in itertools.groupby(rows, key=lambda r: r[:2]):
            periods[(name, str(provider), str(model))] = tuple(
                (str(at), str(gone), float(usd)) for _, _, at, gone, usd in group)
        prices = h.groupby(["provider", "model", "meter"], sort=False)["usd_per_mtok"]
        moved = h[prices.transform("nunique") > 1].sort_values(
            ["provider", "model", "meter", "first_seen"], kind="stable")
        # One walk over plain columns: pandas' own group iteration took 3.6 s a build over the
        # year's 3,000 moved meters. A snapshot time is parsed once, however many rows show it.
        times = {at: dt.datetime.fromisoformat(at.replace("Z", "+00:00"))
                 for at in moved["first_seen"].unique()}
        rows = zip(moved["provider"].tolist(), moved["model"].tolist(), moved["meter"].tolist(),
                   moved["first_seen"].tolist(), moved["usd_per_mtok"].tolist(), strict=True)
        for (provider, model, meter), shown in itertools.groupby(rows, key=lambda r: r[:3]):
            points = tuple((times[at], float(usd)) for *_, at, usd in shown)
            lines.setdefault((name, str(provider), str(model)), []).append(
                (f"{provider}, {METER_TITLES[str(meter)]}", points))
    return lines, first, periods
