"""Pure: the `public/data/hardware.csv` and `hardware.json` contracts, from costed rows."""

from __future__ import annotations

import datetime as dt

import pandas as pd

from pipeline.tables.frames import csv_bytes, json_bytes, records

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


INTEGERS = ("accelerator_count", "isl", "osl", "concurrency")
"""Whole numbers that may be missing: written without a decimal point."""


def hardware_table(costed: pd.DataFrame) -> pd.DataFrame:
    """Return the table behind `hardware.csv` and `hardware.json`: one row per costed row
    (tables/hardware_costs.costed_table), COLUMNS in order, dates as ISO text and the
    figures rounded as published."""
    table = costed.reindex(columns=list(COLUMNS)).astype({k: "Int64" for k in INTEGERS})
    for k in ("published", "fx_rate_date"):
        table[k] = [d.isoformat() if isinstance(d, dt.date) else None for d in costed[k]]
    for k in ("tokens_per_usd", "usd_per_mtok"):
        # An uncosted row's NaN rounds to NaN: an empty cell, a JSON null.
        table[k] = [_round(x) for x in costed[k].tolist()]
    return table.reset_index(drop=True)


def _round(x: float) -> float:
    # Six significant figures: more than any input carries, and stable across platforms.
    return float(f"{x:.6g}")


def hardware_csv(table: pd.DataFrame) -> bytes:
    """Return `hardware.csv` of `hardware_table`: a header of COLUMNS, then one line per row and
    cost basis."""
    return csv_bytes(table, COLUMNS)


def hardware_json(table: pd.DataFrame) -> bytes:
    """Return `hardware.json` of `hardware_table`: {"columns": [...], "rows": [{...}, ...]},
    keys in COLUMNS order."""
    return json_bytes({"columns": list(COLUMNS), "rows": records(table, COLUMNS)})
