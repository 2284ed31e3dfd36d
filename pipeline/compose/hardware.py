"""Pure: what the hardware lane contributes to an edition: Context & numbers figures that cite
result ids, and On the radar items for results whose publication date is still ahead.

A result is cited only in editions on or after its publication date, and only in the edition whose
window (previous, date] first contains that date; costs are those in force on the edition date.
"""

from __future__ import annotations

import datetime as dt
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pipeline.compose.types import Citation, Figure, RadarItem
from pipeline.tables.hardware import (
    BENCHMARKS,
    COSTS,
    CostedRow,
    Hardware,
    HardwareRow,
    UsdPerUnit,
    basis_label,
    best_per_accelerator,
    can_be_fresh,
    costed_rows,
    usd_identity,
)

Group = tuple[str, str, str, str]
"""(suite, model, scenario, division), as HardwareRow.group_key."""

PREFERRED_BASIS = "owner_tco/hyperscaler"
"""The basis figures quote first: the one InferenceX itself defaults to."""


def _result_citation(row: HardwareRow) -> Citation:
    return Citation(f"{row.suite} {row.round} ({row.citation_id})", row.details_url,
                    row.source_file, row.citation_id)


def _cost_citation(c: CostedRow) -> Citation:
    assert c.cost is not None
    return Citation(c.cost.source, str(c.cost.source_url), COSTS,
                    f"{c.cost.accelerator} {c.cost_basis}")


@dataclass(frozen=True)
class FigureIndex:
    """The table as hardware figures read it, indexed once for all the editions of a build.

    Costing the whole public table for every edition made a year of daily editions take minutes;
    with this index an edition finds its newly published groups by bisection and costs only the
    rows of those groups (figures compare rows within one group only)."""

    fresh_dates: tuple[dt.date, ...]
    """Publication dates, ascending, of the rows that can make a group fresh (can_be_fresh)."""
    fresh_groups: tuple[Group, ...]
    """The group of each of those rows, in the same order."""
    groups: Mapping[Group, tuple[HardwareRow, ...]]
    """Every row with a publication date, by group, in table order: best_per_accelerator keeps the
    first of tied rows, so the order must be the table's."""


def figure_index(rows: Sequence[HardwareRow]) -> FigureIndex:
    """Return the index hardware_figures reads `rows` through."""
    fresh = sorted(((r.published, r.group_key) for r in rows if can_be_fresh(r)),
                   key=lambda p: p[0])
    groups: dict[Group, list[HardwareRow]] = {}
    for r in rows:
        if r.published is not None:
            groups.setdefault(r.group_key, []).append(r)
    return FigureIndex(tuple(day for day, _ in fresh), tuple(group for _, group in fresh),
                       {group: tuple(rs) for group, rs in groups.items()})


def hardware_figures(hw: Hardware, rows: Sequence[HardwareRow] | FigureIndex, date: dt.date,
                     previous: dt.date | None, usd_per_unit: UsdPerUnit = usd_identity,
                     max_figures: int = 3) -> list[Figure]:
    """Return tokens-per-dollar figures for the comparison groups with results newly published in
    the edition window, each citing its result ids and cost sources.

    `rows` is the table, or its figure_index when composing many editions from one table."""
    index = rows if isinstance(rows, FigureIndex) else figure_index(rows)
    fresh = sorted(set(index.fresh_groups[slice(*window_slice(index.fresh_dates, date,
                                                              previous))]))
    figures: list[Figure] = []
    for group in fresh:
        public = [r for r in index.groups[group] if r.published <= date]
        costed = costed_rows(public, hw.costs, date, usd_per_unit)
        bases = sorted({c.cost_basis for c in costed if c.cost})
        if not bases:
            continue  # no cost in force on this date: no figure rather than a $0 one
        basis = PREFERRED_BASIS if PREFERRED_BASIS in bases else bases[0]
        best = best_per_accelerator(costed, group, basis)
        if not best:
            continue
        suite, model, scenario, division = group
        cost = best[0].cost
        assert cost is not None
        parts = [f"{c.row.accelerator} {c.tokens_per_usd / 1e6:.1f} M"
                 f"{' (placeholder cost)' if c.cost and c.cost.placeholder else ''}"
                 f" ({c.row.citation_id})" for c in best]
        text = (f"Tokens per US dollar on {model} {scenario} ({suite}, {division} division), "
                f"at {basis_label(cost.basis, cost.scenario)} hourly costs: "
                + "; ".join(parts) + ".")
        cites = tuple(_result_citation(c.row) for c in best) + tuple(
            dict.fromkeys(_cost_citation(c) for c in best))
        figures.append(Figure(label=f"Tokens per dollar: {model} {scenario}", text_md=text,
                              citations=cites, id=f"hardware-{model}-{scenario}".lower()))
    return figures[:max_figures]


def window_slice(dates: Sequence[dt.date], date: dt.date,
                 previous: dt.date | None) -> tuple[int, int]:
    """Return where the edition window (previous, date] lies in ascending `dates`, as
    compose.in_window: the first edition takes all before it."""
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
