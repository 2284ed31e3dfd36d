"""Pure: benchmark rows × the hourly costs in force → one costed table (pandas).

One row per benchmark row and cost basis that applies on a date: tokens per second per
accelerator, USD per accelerator-hour, tokens per US dollar, USD per million tokens, and the
comparability group as a column. The Hardware page, the editions' hardware figures, `brief
hardware` and `public/data/hardware.*` all select from it. No files, no clock: `as_of` and the
currency conversion are arguments.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import fields

import numpy as np
import pandas as pd

from pipeline.models.hardware import HourlyCost
from pipeline.models.hardware_results import HardwareRow
from pipeline.tables.hardware import (
    SECONDS_PER_HOUR,
    TOKEN_UNITS,
    UsdPerUnit,
    basis_label,
    check_hourly,
    usd_identity,
)

Group = tuple[str, str, str, str, str, str]
"""(suite, round, model, accuracy target, scenario, division): figures are compared only within
one group, so never across rounds or accuracy targets."""
GROUP_KEYS = ["suite", "round", "model", "accuracy_target", "scenario", "division"]

ROW_FIELDS = [f.name for f in fields(HardwareRow)]
COST_COLUMNS = ["cost_basis", "cost_basis_label", "cost_placeholder", "usd_per_accelerator_hour",
                "fx_rate_date", "cost_source", "cost_source_url", "cost_accelerator"]


def rows_table(rows: Sequence[HardwareRow]) -> pd.DataFrame:
    """Return the benchmark rows as a table, in their order: every HardwareRow field, `flags`
    as text, `headline`, `published_day` (a datetime, NaT when unset) and `group`, the
    comparability group's number in sorted order of GROUP_KEYS."""
    table = pd.DataFrame({k: [getattr(r, k) for r in rows] for k in ROW_FIELDS})
    table["flags"] = ["; ".join(r.flags) for r in rows]
    table["headline"] = table["flags"] == ""
    table["published_day"] = pd.to_datetime(table["published"])
    table["group"] = table.groupby(GROUP_KEYS, sort=True, dropna=False).ngroup()
    return table


def costs_in_force(costs: Sequence[HourlyCost], as_of: dt.date,
                   usd_per_unit: UsdPerUnit = usd_identity,
                   accelerators: Sequence[str] | None = None) -> pd.DataFrame:
    """Return the newest cost on or before `as_of` of each (accelerator, basis, scenario), in
    that order, in USD: two costs of one key on one date, the later in the list wins.

    Only the costs of `accelerators` (all when None) are converted, in the order given, so the
    first error raised is the one the first row needing a cost would meet."""
    kept = [c for c in costs if c.date <= as_of]
    newest: dict[tuple[str, str, str], HourlyCost] = {}
    for c in kept:  # the costs are a few dozen records: a dict is the as-of join here
        key = (c.accelerator, c.basis, c.scenario)
        if key not in newest or c.date >= newest[key].date:
            newest[key] = c
    order = (None if accelerators is None
             else {a: i for i, a in enumerate(dict.fromkeys(accelerators))})
    chosen = sorted((k for k in newest if order is None or k[0] in order),
                    key=lambda k: (order[k[0]], k) if order is not None else k)
    converted = []
    for key in chosen:
        c = newest[key]
        rate, rate_date = usd_per_unit(c.currency, c.date)
        usd_hour = c.amount_per_hour * rate
        check_hourly(usd_hour)
        converted.append((c, usd_hour, rate_date))
    converted.sort(key=lambda x: (x[0].accelerator, x[0].basis, x[0].scenario))
    return pd.DataFrame({
        "cost_accelerator": [c.accelerator for c, _, _ in converted],
        "cost_basis": [f"{c.basis}/{c.scenario}" if c.scenario else c.basis
                       for c, _, _ in converted],
        "cost_basis_label": [basis_label(c.basis, c.scenario) for c, _, _ in converted],
        "cost_placeholder": [c.placeholder for c, _, _ in converted],
        "usd_per_accelerator_hour": [usd for _, usd, _ in converted],
        "fx_rate_date": [day for _, _, day in converted],
        "cost_source": [c.source for c, _, _ in converted],
        "cost_source_url": [str(c.source_url) for c, _, _ in converted],
    }, columns=COST_COLUMNS)


def costed_table(rows: pd.DataFrame, costs: Sequence[HourlyCost], as_of: dt.date,
                 usd_per_unit: UsdPerUnit = usd_identity) -> pd.DataFrame:
    """Return `rows` (a rows_table) once per cost basis that applies on `as_of` (token
    throughput only), the costs of a row in (basis, scenario) order; rows in other units, or
    with no cost, appear once with empty cost fields. Adds COST_COLUMNS, `tokens_per_usd` and
    `usd_per_mtok`; `row` is the position in `rows`."""
    tokens = rows["units"] == TOKEN_UNITS
    needing = rows.loc[tokens, "accelerator"].drop_duplicates().tolist()
    in_force = costs_in_force(costs, as_of, usd_per_unit, needing)
    left = rows.assign(row=np.arange(len(rows)),
                       cost_accelerator=rows["accelerator"].where(tokens, None))
    # A left merge keeps the left order, and each row's costs in the right's order (pandas
    # documents both); every reader of the table relies on that order.
    table = left.merge(in_force, on="cost_accelerator", how="left", sort=False)
    usd_hour = table["usd_per_accelerator_hour"]
    table["tokens_per_usd"] = table["value_per_accelerator"] * SECONDS_PER_HOUR / usd_hour
    table["usd_per_mtok"] = 1_000_000 / table["tokens_per_usd"]
    costed = usd_hour.notna()
    table["cost_basis"] = table["cost_basis"].where(costed, "")
    table["cost_basis_label"] = table["cost_basis_label"].where(costed, "")
    table["cost_source"] = table["cost_source"].where(costed, "")
    table["cost_source_url"] = table["cost_source_url"].where(costed, "")
    table["cost_placeholder"] = table["cost_placeholder"].where(costed, False).astype(bool)
    table["fx_rate_date"] = table["fx_rate_date"].where(costed, None)
    return table


def best_per_accelerator(costed: pd.DataFrame, group: int, basis: str) -> pd.DataFrame:
    """Return, for one comparison group (its `group` number) and cost basis, each accelerator's
    best headline result by tokens per dollar, best first (ties to the lower result id, then
    the earlier row, so the order is stable)."""
    return best_per_group(costed).get((group, basis), costed.iloc[:0])


def best_per_group(costed: pd.DataFrame) -> dict[tuple[int, str], pd.DataFrame]:
    """Return best_per_accelerator of every comparison group and cost basis that has a costed
    headline result, by (group number, basis): one sort of the whole table, where a page of
    dozens of groups asked group by group paid pandas' overhead for each."""
    # A result with tokens per dollar has a cost, so a cost basis.
    chosen = costed[costed["headline"] & costed["tokens_per_usd"].notna()]
    # No ties are left to a sort algorithm: `row` is unique within one basis, and the
    # accelerator within one group and basis of `best`; each group keeps the order of `best`.
    best = (chosen.sort_values(["tokens_per_usd", "citation_id", "row"],
                               ascending=[False, True, True])
            .drop_duplicates(["group", "cost_basis", "accelerator"])
            .sort_values(["tokens_per_usd", "accelerator"], ascending=[False, True]))
    return {(int(group), basis): part
            for (group, basis), part in best.groupby(["group", "cost_basis"])}


def bases_of(costed: pd.DataFrame, group: int) -> list[str]:
    """Return the cost bases used in a group, sorted."""
    return sorted(set(costed.loc[(costed["group"] == group) & (costed["cost_basis"] != ""),
                                 "cost_basis"]))
