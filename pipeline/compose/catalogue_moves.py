"""Pure: what the price catalogues contribute to an edition: every move their snapshots showed
in its window, one figure per catalogue, and the words both the figure and the Changes page
use for one move.

A catalogue move dates from the snapshot that first showed it (`at`), not from a date the
catalogue claims, so a past edition never learns of a move a later snapshot found. Models a
curated provider file prices are left out: there the curated record is the truth, and its
own moves are the editions' price figures.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection
from typing import Any

import numpy as np
import pandas as pd

from pipeline.compose.numbers import grouped, money, percent
from pipeline.compose.types import Citation, Figure
from pipeline.models.catalogues import Catalogue
from pipeline.normalize.items import md_text
from pipeline.normalize.units import METER_TITLES
from pipeline.paths import PRICE_SNAPSHOTS
from pipeline.tables.catalogue_history import snapshot_time


def tier_words(row: Any) -> str:
    """Return the price a move is of, in words: `cached input (60 min), prompts over 200,000
    tokens, batch`."""
    meter = str(row.meter)
    words = [METER_TITLES.get(meter, meter.replace("_", " "))
             + (f" ({row.ttl_minutes} min)" if row.ttl_minutes else "")]
    if row.window_utc:
        words.append(f"{row.window_utc} UTC")
    band = int(row.context_above_tokens or 0)
    if band:
        words.append(f"prompts over {grouped(band)} tokens")
    if row.mode != "realtime":
        words.append(str(row.mode))
    if row.from_date:
        words.append(f"from {row.from_date}")
    if row.to_date:
        words.append(f"until {row.to_date}")
    return ", ".join(words)


def change_share(old: float, new: float) -> float | None:
    """Return new / old - 1, or None where there is no old price, no new one, or a free one."""
    if not (np.isfinite(old) and np.isfinite(new)) or old == 0:
        return None
    return new / old - 1


def move_words(row: Any, whole: bool = False) -> str:
    """Return one move in words (USD per Mtok); `whole`: the model's every move is of its
    kind, said once for all of them."""
    tier = tier_words(row)
    old, new = float(row.old_usd_per_mtok), float(row.new_usd_per_mtok)
    kind = row.kind
    if kind == "new":
        return f"{tier} {usd_text(new)}"
    if kind == "removed":
        return f"{tier} {usd_text(old)}" + ("" if whole else " no longer listed")
    share = change_share(old, new)
    return f"{tier} {usd_text(old)} → {usd_text(new)}" + (
        f" ({percent(share, signed=True)})" if share is not None else "")


def usd_text(amount: float) -> str:
    """Return a catalogue price in words: `$2.50`, `$0.075`, or `free` for zero."""
    return "free" if amount == 0 else money(amount, "USD")


def without_models(changes: pd.DataFrame, pairs: Collection[tuple[str, str]]) -> pd.DataFrame:
    """Return `changes` without the moves of the (provider, case-folded model) `pairs`."""
    if not pairs or changes.empty:
        return changes
    # In Python: a window holds tens of moves, and the set may hold a thousand pairs.
    keep = [(p, m.casefold()) not in pairs
            for p, m in zip(changes["provider"], changes["model"], strict=True)]
    return changes[keep]


def window_moves(changes: pd.DataFrame, start: dt.datetime, end: dt.datetime) -> pd.DataFrame:
    """Return the moves of `changes` (ordered by `at`, as catalogue_changes gives them) first
    seen in (start, end]: a slice, found by bisection (a year asks it 365 times)."""
    at = changes["at"].to_numpy()
    first, last = np.searchsorted(at, [snapshot_time(start), snapshot_time(end)], side="right")
    return changes.iloc[first:last]


TIER = ("catalogue_provider", "meter", "ttl_minutes", "context_above_tokens", "mode",
        "window_utc", "from_date", "to_date")
"""What tells one of a model's prices from another in a catalogue."""


def net_moves(rows: list[Any]) -> list[Any]:
    """Return each price's move over a window from its moves in it (in time order): from the
    price at the window's start to the one at its end, so a price gone and back is one move
    (none at the same price), and two cuts are one. Dated by the last of them."""
    by_tier: dict[tuple, list[Any]] = {}
    for r in rows:
        by_tier.setdefault(tuple(getattr(r, k) for k in TIER), []).append(r)
    out = []
    for moves in by_tier.values():
        first, last = moves[0], moves[-1]
        old = np.nan if first.kind == "new" else float(first.old_usd_per_mtok)
        new = np.nan if last.kind == "removed" else float(last.new_usd_per_mtok)
        if np.isnan(old) and np.isnan(new) or old == new:
            continue
        kind = ("new" if np.isnan(old) else "removed" if np.isnan(new)
                else "cut" if new < old else "rise")
        out.append(last._replace(kind=kind, old_usd_per_mtok=old, new_usd_per_mtok=new))
    return out


def listed_words(rows: list[Any], whole: bool) -> list[str]:
    """Return the words of one model's moves (move_words). Where the catalogue lists the model
    under several of its providers that are one company for us (LiteLLM's `gemini` and
    `vertex_ai`, `azure` and `azure_ai`: 46 chat models in its map of 2026-07-24), each move
    names the catalogue's own provider id, and a move the same under several is said once."""
    listed: dict[str, list[str]] = {}
    for r in rows:
        listed.setdefault(move_words(r, whole), []).append(str(r.catalogue_provider))
    if len({p for ids in listed.values() for p in ids}) < 2:
        return list(listed)
    return [f"{words} (as {', '.join(md_text(p) for p in sorted(set(ids)))})"
            for words, ids in listed.items()]


def catalogue_figures(moves: pd.DataFrame, catalogues: list[Catalogue],
                      window: str) -> list[Figure]:
    """Return one figure per catalogue with moves in `moves` (window_moves): the models
    repriced, biggest move first, then the models it began and stopped listing, each with the
    date a snapshot first showed it; `window`: the edition's window in words
    (numbers.since_words)."""
    figures = []
    for catalogue in catalogues:
        own = moves[moves["catalogue"] == catalogue.id]
        if own.empty:
            continue
        repriced, new, gone = [], [], []
        # Grouped in Python: a window holds tens of moves, and a pandas groupby of them cost
        # more than the rest of the figure (a year composes 365).
        groups: dict[tuple[str, str], list[Any]] = {}
        for r in own.itertuples(index=False):
            groups.setdefault((r.provider, r.model), []).append(r)
        for (provider, model), moved in sorted(groups.items()):
            rows = net_moves(moved)
            if not rows:
                continue  # gone and back at the same prices within the window
            kinds = {r.kind for r in rows}
            seen = min(r.at for r in rows)[:10]
            # Our words and numbers; only the names are the catalogue's text.
            words = listed_words(rows, whole=len(kinds) == 1)
            text = f"{md_text(provider)} {md_text(model)}: {'; '.join(words)} (first seen {seen})"
            if kinds == {"new"}:
                new.append(text)
            elif kinds == {"removed"}:
                gone.append(text)
            else:
                shares = [abs(s) for r in rows
                          if (s := change_share(r.old_usd_per_mtok, r.new_usd_per_mtok))
                          is not None]
                repriced.append((-max(shares, default=0.0), provider, model, text))
        repriced.sort()
        counts = [f"{len(repriced)} repriced" if repriced else "",
                  f"{len(new)} newly listed" if new else "",
                  f"{len(gone)} no longer listed" if gone else ""]
        parts = []
        if repriced:
            parts.append("Repriced, biggest move first: " + "; ".join(t for *_, t in repriced)
                         + ".")
        if new:
            parts.append("Newly listed: " + "; ".join(new) + ".")
        if gone:
            parts.append("No longer listed: " + "; ".join(gone) + ".")
        models = len(repriced) + len(new) + len(gone)
        figures.append(Figure(
            label=(f"{catalogue.name} {window}: {models} model"
                   f"{'s' if models != 1 else ''} moved ("
                   + ", ".join(c for c in counts if c) + ")"),
            text_md=("USD per million tokens, as the catalogue's snapshots showed them; a move "
                     "dates from the first snapshot that showed it. " + " ".join(parts)),
            citations=(Citation(catalogue.name, str(catalogue.page),
                                (PRICE_SNAPSHOTS / f"{catalogue.id}.csv").as_posix()),),
            id=f"catalogue-{catalogue.id}-moves"))
    return figures
