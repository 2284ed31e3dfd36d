"""Pure: what the hardware lane contributes to an edition: Context & numbers figures that cite
result ids, and On the radar items for results whose publication date is still ahead; and what
the Hardware page shows (`hardware_shown`).

A result is cited only in editions on or after its publication date, and only in the edition whose
window (previous, date] first contains that date; costs are those in force on the edition date.
"""

from __future__ import annotations

import datetime as dt
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from pipeline.compose.numbers import three_figures
from pipeline.compose.types import Citation, Figure, RadarItem
from pipeline.models.hardware_results import Hardware, HardwareRow
from pipeline.models.sources import Sources
from pipeline.paths import BENCHMARKS, HARDWARE_COSTS
from pipeline.tables.hardware import (
    UsdPerUnit,
    can_be_fresh,
    is_public,
    target_text,
    usd_at_ecb_rates,
    usd_identity,
)
from pipeline.tables.hardware_costs import bases_of, best_per_accelerator, costed_table, rows_table

PREFERRED_BASIS = "owner_tco/hyperscaler"
"""The basis figures quote first: the one InferenceX itself defaults to."""


def _result_citation(row) -> Citation:
    return Citation(f"{row.suite} {row.round} ({row.citation_id})", row.details_url,
                    row.source_file, row.citation_id)


def _cost_citation(c) -> Citation:
    return Citation(c.cost_source, c.cost_source_url, str(HARDWARE_COSTS),
                    f"{c.cost_accelerator} {c.cost_basis}")


@dataclass(frozen=True)
class FigureIndex:
    """The table as hardware figures read it, indexed once for all the editions of a build.

    An edition finds its newly published groups by bisection and costs only the rows of those
    groups (figures compare rows within one group only)."""

    fresh_dates: tuple[dt.date, ...]
    """Publication dates, ascending, of the rows that can make a group fresh (can_be_fresh)."""
    fresh_groups: tuple[int, ...]
    """The group number (in `table`) of each of those rows, in the same order."""
    table: pd.DataFrame
    """Every row with a publication date (tables/hardware_costs.rows_table), in table order:
    best_per_accelerator keeps the first of tied rows, so the order must be the table's."""


def figure_index(rows: Sequence[HardwareRow]) -> FigureIndex:
    """Return the index hardware_figures reads `rows` through."""
    dated = [r for r in rows if r.published is not None]
    table = rows_table(dated)
    fresh = sorted(((r.published, int(g)) for r, g in zip(dated, table["group"])
                    if can_be_fresh(r)), key=lambda p: p[0])
    return FigureIndex(tuple(day for day, _ in fresh), tuple(group for _, group in fresh), table)


def hardware_figures(hw: Hardware, rows: Sequence[HardwareRow] | FigureIndex, date: dt.date,
                     previous: dt.date | None, usd_per_unit: UsdPerUnit = usd_identity,
                     max_figures: int = 3) -> list[Figure]:
    """Return tokens-per-dollar figures for the comparison groups with results newly published in
    the edition window, each citing its result ids and cost sources.

    `rows` is the table, or its figure_index when composing many editions from one table."""
    index = rows if isinstance(rows, FigureIndex) else figure_index(rows)
    fresh = sorted(set(index.fresh_groups[slice(*window_slice(index.fresh_dates, date,
                                                              previous))]))
    table = index.table
    figures: list[tuple[int, tuple[str, ...], Figure]] = []
    for group in fresh:
        public = table[(table["group"] == group) & (table["published_day"] <= pd.Timestamp(date))]
        costed = costed_table(public, hw.costs, date, usd_per_unit)
        bases = bases_of(costed, group)
        if not bases:
            continue  # no cost in force on this date: no figure rather than a $0 one
        basis = PREFERRED_BASIS if PREFERRED_BASIS in bases else bases[0]
        best = list(best_per_accelerator(costed, group, basis).itertuples(index=False))
        if not best:
            continue
        first = best[0]
        target = target_text(first.accuracy_target)
        parts = [f"{c.accelerator} {three_figures(c.tokens_per_usd)}"
                 f"{' (placeholder cost)' if c.cost_placeholder else ''}"
                 f" ({c.citation_id})" for c in best]
        text = (f"Tokens per US dollar on {first.model} ({target}) {first.scenario} "
                f"({first.suite} {first.round}, {first.division} division), at "
                f"{first.cost_basis_label} hourly costs: " + "; ".join(parts) + ".")
        cites = tuple(_result_citation(c) for c in best) + tuple(
            dict.fromkeys(_cost_citation(c) for c in best))
        name = f"{first.round} {first.model} {first.accuracy_target} {first.scenario}"
        figure = Figure(label=f"Tokens per dollar: {first.model} {first.scenario}, {target}",
                        text_md=text, citations=cites,
                        id="hardware-" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-"))
        figures.append((len(best), (first.suite, first.round, first.model, first.scenario),
                        figure))
    # The comparisons of the most accelerators first (a round brings dozens of groups; the sort
    # is stable, so ties keep the groups' order), one per model and scenario: the 99.9 % table
    # of a model mostly repeats its 99 % one.
    figures.sort(key=lambda p: -p[0])
    chosen: dict[tuple, Figure] = {}
    for _, benchmark, figure in figures:
        chosen.setdefault(benchmark, figure)
    return list(chosen.values())[:max_figures]


def window_slice(dates: Sequence[dt.date], date: dt.date,
                 previous: dt.date | None) -> tuple[int, int]:
    """Return where the edition window (previous, date] lies in ascending `dates`, as
    compose/types.in_window: the first edition takes all before it."""
    start = 0 if previous is None else bisect_right(dates, previous)
    return start, bisect_right(dates, date)


def hardware_radar(hw: Hardware, date: dt.date) -> list[RadarItem]:
    """Return radar items for benchmark files whose results are due after the edition date."""
    items = []
    for f in hw.files:
        if f.published is None or f.published <= date:
            continue
        suite = "MLPerf Inference" if f.suite == "mlperf-inference" else "InferenceX"
        items.append(RadarItem(
            label=f"{suite} {f.round} results",
            text_md=f"{suite} {f.round} results are due on {f.published.isoformat()}.",
            citations=(Citation(f"{suite} {f.round}", str(f.source_url),
                                f"{BENCHMARKS}/{f.path}", f.round),),
            due=f.published, id=f"hardware-{f.suite}-{f.round}".lower()))
    return sorted(items, key=lambda i: (i.due, i.id))


@dataclass(frozen=True, eq=False)
class HardwareShown:
    """What the Hardware page shows as of the newest edition: `costed`, the cost per token of
    the results of rounds published by then (tables.hardware.is_public) and those `rows`;
    `skipped`, (file, rows in file, reason, rows left out); `unreadable`, (file, why);
    `waiting`, (round, file, source, results) of each round not yet published."""

    costed: pd.DataFrame
    rows: list[HardwareRow]
    skipped: list[tuple[str, int, str, int]]
    unreadable: Sequence[tuple[str, str]]
    waiting: list[tuple[str, str, str, int]]


def hardware_shown(sources: Sources, as_of: dt.date) -> HardwareShown | None:
    """Return what the Hardware page shows as of `as_of` (None without hardware sources)."""
    if sources.hardware is None:
        return None
    hw = sources.hardware
    public = [r for r in sources.hardware_rows if is_public(r, as_of)]
    costed = costed_table(rows_table(public), hw.costs, as_of, usd_at_ecb_rates(sources.rates))
    results = Counter(r.source_file for r in sources.hardware_rows)
    waiting = [(f"{'MLPerf Inference' if f.suite == 'mlperf-inference' else 'InferenceX'} "
                f"{f.round}", f"{BENCHMARKS}/{f.path}", str(f.source_url),
                results[f"{BENCHMARKS}/{f.path}"]) for f in hw.files if f.published is None]
    skipped = [(report.path, report.total_rows, reason, n)
               for report in hw.reports for reason, n in report.skipped]
    return HardwareShown(costed, public, skipped, hw.unreadable, waiting)
