"""Pure: the normalized price tables behind the site (`public/data/prices.csv`, `prices.json`,
`blended.csv`): rows of plain values, and their bytes in a fixed column order."""

from __future__ import annotations

import bisect
import csv
import datetime as dt
import io
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pipeline.models.prices import PriceFile, PriceList, PriceRecord, WorkloadProfile
from pipeline.models.sourced import Sourced
from pipeline.normalize.fx import RateNotFound, RateTable
from pipeline.normalize.units import meter_label, per_mtok
from pipeline.tables.cost import Blend, Blends, blended_per_mtok, blended_usd, day_end, record_fx, tier_key
from pipeline.tables.json_rows import rows_json

PRICE_COLUMNS = ("provider", "model", "currency", "unit_price", "meter", "window",
                 "context_above_tokens", "mode", "effective_from", "effective_to", "usd_per_mtok",
                 "fx_usd_per_unit", "fx_date", "source_url", "checked", "source_file")
BLENDED_COLUMNS = ("provider", "model", "profile", "as_of", "usd_per_mtok", "tokens_per_usd")


def instant_text(at: dt.datetime | None) -> str:
    """Return a UTC instant as a date when it is midnight, else as `YYYY-MM-DDTHH:MM:SSZ`."""
    if at is None:
        return ""
    if at.time() == dt.time(0):
        return at.date().isoformat()
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def price_rows(files: Mapping[str, Sourced[PriceFile]], rates: RateTable) -> list[dict]:
    """Return one row per (provider, model, list, meter, window, band, mode, period).

    Batch prices a record gives as a discount factor appear as batch rows of their own.
    """
    rows = []
    for provider, sourced in sorted(files.items()):
        for plist in sourced.model.lists:
            for record in sorted(plist.records, key=lambda r: (r.model, r.from_)):
                try:
                    fx = record_fx(plist, record, rates)
                except RateNotFound:
                    fx = None
                explicit = {tier_key(p) for p in record.prices}
                items = [(p, p.price, p.mode) for p in record.prices]
                if record.batch_discount is not None:
                    for p in record.prices:
                        key = (p.meter, p.ttl_minutes, p.window, p.context_above_tokens, "batch")
                        if p.mode == "realtime" and key not in explicit:
                            items.append((p, p.price * record.batch_discount, "batch"))
                for p, unit_price, mode in items:
                    mtok = per_mtok(unit_price, plist.unit)
                    rows.append({
                        "provider": provider, "model": record.model, "currency": plist.currency,
                        "unit_price": round(unit_price, 9), "meter": meter_label(p.meter, p.ttl_minutes),
                        "window": p.window or record.rest_tier,
                        "context_above_tokens": p.context_above_tokens, "mode": mode,
                        "effective_from": instant_text(record.from_),
                        "effective_to": instant_text(record.to),
                        "usd_per_mtok": round(mtok * fx.usd_per_unit, 9) if fx else None,
                        "fx_usd_per_unit": round(fx.usd_per_unit, 9) if fx else None,
                        "fx_date": fx.date.isoformat() if fx else "",
                        "source_url": str(record.source_url), "checked": record.checked.isoformat(),
                        "source_file": sourced.path})
    return rows


def blended_rows(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
                 profiles: Iterable[WorkloadProfile], dates: Iterable[dt.date]) -> list[dict]:
    """Return the blended USD per Mtok and tokens per USD of every model and profile on the
    first of `dates` it is priced and on each date its blend changed: a row holds until the
    model's next row or a gap (so the table grows with price changes, not with editions)."""
    return [row for rows in blended_groups(files, rates, profiles, dates) for row in rows]


@dataclass(frozen=True)
class BlendPlan:
    """What one model's blended rows are computed from, besides the profile."""

    provider: str
    model: str
    plist: PriceList
    plan: Plan
    days: list[dt.date]
    ends: list[dt.datetime]

    def rows(self, profile: WorkloadProfile, rates: RateTable,
             blend: Blend = blended_per_mtok) -> list[dict]:
        """Return the model's blended rows for `profile` (see blended_rows)."""
        return _model_rows(self.provider, self.model, self.plist, profile, self.plan, self.days,
                           self.ends, rates, blend)


def blend_plans(files: Mapping[str, Sourced[PriceFile]],
                dates: Iterable[dt.date]) -> list[BlendPlan]:
    """Return the plan of every quoted model's blended rows over `dates`, by provider and model."""
    days = sorted(dates)
    ends = [day_end(d) for d in days]
    return [BlendPlan(provider, model, plist, _plan(plist.periods[model][1], ends), days, ends)
            for provider, sourced in sorted(files.items())
            for model, plist in sourced.model.quote_lists.items()]


def blended_groups(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
                   profiles: Iterable[WorkloadProfile],
                   dates: Iterable[dt.date]) -> list[list[dict]]:
    """Return blended_rows' rows as groups, one per model and profile, in the table's order."""
    profiles, blend = list(profiles), Blends()
    return [plan.rows(profile, rates, blend) for plan in blend_plans(files, dates)
            for profile in profiles]


def blended_csv(groups: Iterable[str]) -> bytes:
    """Return `data/blended.csv` of the CSV lines of blended_groups' groups (`blended_lines`)."""
    return csv_bytes([], BLENDED_COLUMNS) + "".join(groups).encode("utf-8")


def blended_lines(rows: list[dict]) -> str:
    """Return one group's rows as lines of `data/blended.csv`."""
    return csv_lines(rows, BLENDED_COLUMNS)


Plan = list[tuple[PriceRecord, range, bool]]
"""Per record of a model: the indices of the dates to evaluate, and whether a gap precedes."""


def _plan(records: list[PriceRecord], ends: list[dt.datetime]) -> Plan:
    plan: Plan = []
    stop = 0
    for record in records:
        first = bisect.bisect_left(ends, record.from_)
        after = len(ends) if record.to is None else bisect.bisect_left(ends, record.to)
        if first >= after:
            continue
        gap = first != stop  # days without a price in between: the next one is news
        stop = after
        # Without windows a record's blend is the same on every day of its period.
        plan.append((record, range(first, after if record.uses_windows else first + 1), gap))
    return plan


def _model_rows(provider: str, model: str, plist: PriceList, profile: WorkloadProfile,
                plan: Plan, days: list[dt.date], ends: list[dt.datetime],
                rates: RateTable, blend: Blend) -> list[dict]:
    rows, last = [], None
    for _, indices, gap in plan:
        if gap:
            last = None
        for i in indices:
            value = _blended_value(plist, model, profile, ends[i], rates, blend)
            if value is not None and value != last:
                rows.append({"provider": provider, "model": model, "profile": profile.id,
                             "as_of": days[i].isoformat(), "usd_per_mtok": value[0],
                             "tokens_per_usd": value[1]})
            last = value
    return rows


def _blended_value(plist: PriceList, model: str, profile: WorkloadProfile, at: dt.datetime,
                   rates: RateTable, blend: Blend) -> tuple[float, float] | None:
    try:
        b = blended_usd(plist, model, profile, at, rates, blend)
    except RateNotFound:
        return None
    return None if b is None else (round(b.usd_per_mtok, 9), round(b.tokens_per_usd, 3))


def csv_bytes(rows: list[dict], columns: tuple[str, ...]) -> bytes:
    """Return rows as CSV (header first, `\\n` line ends, empty cells for None)."""
    return (csv_lines([dict(zip(columns, columns))], columns)
            + csv_lines(rows, columns)).encode("utf-8")


def csv_lines(rows: list[dict], columns: tuple[str, ...]) -> str:
    """Return rows as CSV lines without a header (cells quoted as the csv module quotes them).
    A row must have exactly `columns`: a field the table does not declare is a bug here."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    for row in rows:
        if len(row) != len(columns):
            raise ValueError(f"a row has the fields {sorted(row)}, the table {list(columns)}")
        writer.writerow(["" if (value := row[k]) is None else value for k in columns])
    return buf.getvalue()


def json_bytes(rows: list[dict], columns: tuple[str, ...]) -> bytes:
    """Return rows as a JSON array of objects with keys in column order, stable across runs."""
    ordered = [{k: row[k] for k in columns} for row in rows]
    return (rows_json(ordered) + "\n").encode("utf-8")  # json.dumps(indent=1), by the C encoder
