"""Pure: the `public/data/hardware.csv` and `hardware.json` contracts, from costed rows."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from pipeline.tables.frames import csv_bytes, json_bytes, records
from pipeline.tables.hardware import CostedRow, HardwareRow, basis_label

COLUMNS = (
    "suite", "round", "result_id", "submitter", "system", "accelerator", "accelerator_text",
    "accelerator_count", "model", "accuracy_target", "scenario", "division", "availability",
    "inferred", "official", "flags", "metric", "value", "units", "value_per_accelerator",
    "power_w", "tokens_per_joule", "ttft_bound_ms", "tpot_bound_ms", "interactivity_tok_s_user",
    "isl", "osl", "concurrency", "precision", "published", "source_file", "row_ref",
    "citation_id", "details_url", "cost_basis", "cost_basis_label", "cost_placeholder",
    "usd_per_accelerator_hour", "fx_rate_date", "cost_source", "cost_source_url",
    "tokens_per_usd", "usd_per_mtok",
)


ROW_COLUMNS = COLUMNS[:COLUMNS.index("source_file")]
"""The columns a benchmark row gives (the rest come from its file and its cost basis)."""
INTEGERS = ("accelerator_count", "isl", "osl", "concurrency")
"""Whole numbers that may be missing: written without a decimal point."""


def hardware_table(costed: Sequence[CostedRow]) -> pd.DataFrame:
    """Return one row per costed row, COLUMNS in order: the table behind `hardware.csv` and
    `hardware.json`. Each benchmark row's fields are read once, not once per cost basis."""
    rows: dict[int, int] = {}
    firsts: list[HardwareRow] = []
    position = []
    for c in costed:
        i = rows.get(id(c.row))
        if i is None:
            i = rows[id(c.row)] = len(firsts)
            firsts.append(c.row)
        position.append(i)
    per_row = pd.DataFrame({
        **{k: [getattr(r, k) for r in firsts] for k in ROW_COLUMNS
           if k not in ("flags", "published")},
        "flags": ["; ".join(r.flags) for r in firsts],
        "published": [r.published.isoformat() if r.published else None for r in firsts],
        "source_file": [r.source_file for r in firsts],
        "row_ref": [r.row_ref for r in firsts],
        "citation_id": [r.citation_id for r in firsts],
        "details_url": [r.details_url for r in firsts],
    }).astype({k: "Int64" for k in INTEGERS})
    table = per_row.iloc[position].reset_index(drop=True)
    costs = [c.cost for c in costed]
    table["cost_basis"] = [c.cost_basis for c in costed]
    table["cost_basis_label"] = [basis_label(x.basis, x.scenario) if x else "" for x in costs]
    table["cost_placeholder"] = [bool(x and x.placeholder) for x in costs]
    table["usd_per_accelerator_hour"] = pd.array(
        [c.usd_per_accelerator_hour for c in costed], dtype="Float64")
    table["fx_rate_date"] = [c.fx_rate_date.isoformat() if c.fx_rate_date else None
                             for c in costed]
    table["cost_source"] = [x.source if x else "" for x in costs]
    table["cost_source_url"] = [str(x.source_url) if x else "" for x in costs]
    table["tokens_per_usd"] = pd.array([_round(c.tokens_per_usd) for c in costed], dtype="Float64")
    table["usd_per_mtok"] = pd.array([_round(c.usd_per_mtok) for c in costed], dtype="Float64")
    return table[list(COLUMNS)]


def _round(x: float | None) -> float | None:
    # Six significant figures: more than any input carries, and stable across platforms.
    return float(f"{x:.6g}") if x is not None else None


def hardware_csv(table: pd.DataFrame) -> bytes:
    """Return `hardware.csv` of `hardware_table`: a header of COLUMNS, then one line per row and
    cost basis."""
    return csv_bytes(table, COLUMNS)


def hardware_json(table: pd.DataFrame) -> bytes:
    """Return `hardware.json` of `hardware_table`: {"columns": [...], "rows": [{...}, ...]},
    keys in COLUMNS order."""
    return json_bytes({"columns": list(COLUMNS), "rows": records(table, COLUMNS)})
