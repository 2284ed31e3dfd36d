"""One snapshot of a catalogue taken into its history: the checks a fetch and a replayed commit
both pass (numbers, size, partial exports, a map in another unit, jumps held back), then the
update. Pure: a read snapshot and a history in, the next history or the reason it stays out."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import pandas as pd

from pipeline.formats.numbers import usd_per_mtok_problem
from pipeline.formats.price_map import ImportResult, Unreadable
from pipeline.limits import MAX_CATALOGUE_LISTINGS
from pipeline.models.catalogues import Catalogue, CataloguesFile, HeldPrice
from pipeline.tables.catalogue_history import (
    prices_in_force,
    snapshot_table,
    update_history,
)
from pipeline.tables.plausibility import plausible_histories
from pipeline.tables.snapshot_checks import (
    LOST_SHARE,
    WHOLE_MAP_MIN_PRICES,
    lost_listings_problem,
    whole_map_problem,
    with_last_good,
)

TRUNCATED_SHARE = 0.5
"""A snapshot with fewer prices than this share of those in force looks truncated."""
TRUNCATION_FLOOR = 20
"""…once the history holds at least this many prices (a small catalogue may halve for real)."""


@dataclass(frozen=True)
class Taken:
    """A snapshot taken into a history: the history after it, its moves, what is held back."""

    history: pd.DataFrame
    changes: pd.DataFrame
    held: list[HeldPrice]
    problems: list[str]
    prices: int
    """Prices the snapshot held (after the last good ones kept for unreadable listings)."""
    models: int
    checked: dt.date
    invalid: list[Unreadable] = field(default_factory=list)


def take_snapshot(catalogues: CataloguesFile, catalogue: Catalogue, result: ImportResult,
                  history: pd.DataFrame, held: Iterable[HeldPrice], at: dt.datetime, *,
                  digest: str, checked: dt.date, commit: str = "") -> Taken | str:
    """Return the history after the snapshot `result` read at `at`, or why the snapshot stays
    out (the history kept): no prices, most fields unreadable, too many listings, truncated,
    a partial export or a whole map in another unit. `checked`: the catalogue's date when its
    file gives none; `commit`: the repository commit the snapshot is a version of."""
    # A number that breaks its rule (formats/numbers.py) is the catalogue's error: left out
    # (and said), never in the history, which refuses to load one; the listing keeps its last
    # good prices rather than reading as delisted. The readers record each with its field; a
    # price none recorded (a reader's slip) is held to the same rule here.
    invalid = result.invalid + [
        Unreadable(p.provider, p.model, p.meter, f"{p.usd_per_mtok:g}", why)
        for p in result.prices if (why := usd_per_mtok_problem(p.usd_per_mtok))]
    prices = [p for p in result.prices if usd_per_mtok_problem(p.usd_per_mtok) is None]
    if not prices:
        return (f"no token prices read as {catalogue.format} (has the format changed?); the "
                "history is kept")
    unreadable = {(u.provider, u.model) for u in invalid}
    if result.models >= WHOLE_MAP_MIN_PRICES and len(unreadable) > LOST_SHARE * result.models:
        return (f"the prices of {len(invalid):,} fields do not read as numbers (first: "
                f"{invalid[0][0]} {invalid[0][1]} {invalid[0][2]} {invalid[0][3]!r}); the "
                "history is kept")
    listed = len({(p.provider, p.model) for p in prices})
    if listed > MAX_CATALOGUE_LISTINGS:
        return (f"{listed:,} listings, more than the {MAX_CATALOGUE_LISTINGS:,} one catalogue "
                "may hold (pipeline/limits.py); the history is kept")
    checked = result.dated or checked
    snapshot = snapshot_table(prices, catalogues.providers, checked)
    before = prices_in_force(history)
    if before >= TRUNCATION_FLOOR and len(snapshot) < TRUNCATED_SHARE * before:
        return (f"looks truncated: {len(snapshot)} prices where the last good snapshot had "
                f"{before}; the history is kept")
    snapshot = with_last_good(snapshot, history, unreadable)
    whole = whole_map_problem(history, snapshot, catalogues) or lost_listings_problem(
        history, snapshot, at)
    if whole:
        return f"{whole}; the history is kept"
    confirmed = [(c.provider, c.model, c.meter, c.usd_per_mtok) for c in catalogues.confirmed
                 if c.catalogue == catalogue.id]
    update = update_history(history, snapshot, at, held, confirmed, digest, commit)
    problems = update.problems + [
        f"{u.provider} {u.model} {u.field}: {u.value} {u.why}; its last good prices stay"
        for u in invalid] + [
        f"{refused}; left out" for refused in result.refused_ids] + [
        f"{path}: the key is given more than once in one object; the last one is read"
        for path in result.repeated_keys]
    return Taken(update.history, update.changes, update.held, problems, len(snapshot),
                 result.models, checked, invalid)


def held_now(catalogues: CataloguesFile, histories: Mapping[str, pd.DataFrame],
             catalogue_id: str, history: pd.DataFrame) -> pd.DataFrame:
    """Return the catalogue's prices in force that the market holds back as implausible once
    `history` is its history (tables/plausibility.py; the others' histories judge it)."""
    held = plausible_histories({**histories, catalogue_id: history}, catalogues).held
    return held[(held["catalogue"] == catalogue_id) & (held["gone_seen"] == "")]
