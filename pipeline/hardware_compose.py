"""Pure: what the hardware lane contributes to an edition: Context & numbers figures that cite
result ids, and On the radar items for results whose publication date is still ahead.

A result is cited only in editions on or after its publication date, and only in the edition whose
window (previous, date] first contains that date; costs are those in force on the edition date.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from pipeline.compose import Citation, Figure, RadarItem, in_window
from pipeline.hardware import (
    BENCHMARKS,
    COSTS,
    CostedRow,
    Hardware,
    HardwareRow,
    UsdPerUnit,
    basis_label,
    best_per_accelerator,
    costed_rows,
    usd_identity,
)

PREFERRED_BASIS = "owner_tco/hyperscaler"
"""The basis figures quote first: the one InferenceX itself defaults to."""


def _result_citation(row: HardwareRow) -> Citation:
    return Citation(f"{row.suite} {row.round} ({row.citation_id})", row.details_url,
                    row.source_file, row.citation_id)


def _cost_citation(c: CostedRow) -> Citation:
    assert c.cost is not None
    return Citation(c.cost.source, str(c.cost.source_url), COSTS,
                    f"{c.cost.accelerator} {c.cost_basis}")


def hardware_figures(hw: Hardware, rows: Sequence[HardwareRow], date: dt.date,
                     previous: dt.date | None, usd_per_unit: UsdPerUnit = usd_identity,
                     max_figures: int = 3) -> list[Figure]:
    """Return tokens-per-dollar figures for the comparison groups with results newly published in
    the edition window, each citing its result ids and cost sources."""
    public = [r for r in rows if r.published is not None and r.published <= date]
    # InferenceX sweeps need an interactivity target to name one tokens-per-dollar figure.
    fresh = sorted({r.group_key for r in public if r.is_headline and r.units == "Tokens/s"
                    and r.suite != "InferenceX"
                    and in_window(r.published, previous, date)})
    costed = costed_rows(public, hw.costs, date, usd_per_unit)
    figures: list[Figure] = []
    for group in fresh:
        bases = sorted({c.cost_basis for c in costed if c.row.group_key == group and c.cost})
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
