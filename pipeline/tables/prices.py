"""Pure: the normalized price tables behind the site (`public/data/prices.csv`, `prices.json`,
`blended.csv`): rows of plain values, and their bytes in a fixed column order."""

from __future__ import annotations

import bisect
import csv
import datetime as dt
import hashlib
import io
from collections.abc import Iterable, Mapping

from pipeline.tables.cost import blended_usd, day_end, quoted_models, record_fx, tier_key
from pipeline.tables.json_rows import rows_json
from pipeline.build.memo import Memo
from pipeline.models.prices import PriceFile, PriceList, PriceRecord, WorkloadProfile
from pipeline.normalize.fx import RateNotFound, RateTable
from pipeline.normalize.units import meter_label, per_mtok
from pipeline.load.sources import Sourced

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
                 profiles: Iterable[WorkloadProfile], dates: Iterable[dt.date],
                 memo: Memo | None = None, salt: str = "") -> list[dict]:
    """Return the blended USD per Mtok and tokens per USD of every model and profile on the
    first of `dates` it is priced and on each date its blend changed: a row holds until the
    model's next row or a gap (so the table grows with price changes, not with editions).

    `memo` keeps each model's rows by the digest of what they are computed from (its records,
    the rates they use, the profile and the dates evaluated), so a new edition recomputes only
    the models it changes; `salt` is the digest of the code."""
    return group_rows(blended_groups(files, rates, profiles, dates, memo, salt))


def group_rows(groups: list[tuple[str, list[dict]]]) -> list[dict]:
    """Return the rows of blended_groups' groups, in order."""
    return [row for _, rows in groups for row in rows]


def blended_groups(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
                   profiles: Iterable[WorkloadProfile], dates: Iterable[dt.date],
                   memo: Memo | None = None, salt: str = "") -> list[tuple[str, list[dict]]]:
    """Return blended_rows' rows as groups, one per model and profile, with each group's memo
    key (the digest of what its rows are computed from)."""
    days = sorted(dates)
    ends = [day_end(d) for d in days]
    memo = memo if memo is not None else Memo()
    profiles = list(profiles)
    groups = []
    for provider, sourced in sorted(files.items()):
        for model, plist in quoted_models(sourced.model).items():
            plan = _plan(plist.periods[model][1], ends)
            records = _records_digest(provider, model, plist, plan, days, rates)
            for profile in profiles:
                key = ("blended-rows " + hashlib.sha256(
                    f"{salt}\0{records}\0{profile!r}".encode()).hexdigest())
                groups.append((key, memo.get(key, lambda p=profile, pl=plist, m=model,
                                             pr=provider, pn=plan:
                                             _model_rows(pr, m, pl, p, pn, days, ends, rates))))
    return groups


def blended_csv(groups: list[tuple[str, list[dict]]], memo: Memo | None = None) -> bytes:
    """Return `data/blended.csv` of blended_groups' groups; `memo` keeps each group's lines by
    its key (writing ~25,000 rows at a year's scale took 0.05 s of every build)."""
    memo = memo if memo is not None else Memo()
    lines = [memo.get(f"blended-csv {key}", lambda r=rows: csv_lines(r, BLENDED_COLUMNS))
             for key, rows in groups]
    return csv_bytes([], BLENDED_COLUMNS) + "".join(lines).encode("utf-8")


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


def _records_digest(provider: str, model: str, plist: PriceList, plan: Plan,
                    days: list[dt.date], rates: RateTable) -> str:
    """Return the digest of what a model's blended rows read besides the profile: its list's
    terms, its records, the rates they use, the dates evaluated and the gaps between them."""
    parts = [provider, model, plist.currency, plist.unit, repr(plist.windows)]
    for record, indices, gap in plan:
        try:
            fx = "" if plist.currency == "USD" else repr(record_fx(plist, record, rates))
        except RateNotFound:
            fx = "no rate"
        parts += [record.content_json, fx, repr([days[i] for i in indices]), repr(gap)]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _model_rows(provider: str, model: str, plist: PriceList, profile: WorkloadProfile,
                plan: Plan, days: list[dt.date], ends: list[dt.datetime],
                rates: RateTable) -> list[dict]:
    rows, last = [], None
    for _, indices, gap in plan:
        if gap:
            last = None
        for i in indices:
            value = _blended_value(plist, model, profile, ends[i], rates)
            if value is not None and value != last:
                rows.append({"provider": provider, "model": model, "profile": profile.id,
                             "as_of": days[i].isoformat(), "usd_per_mtok": value[0],
                             "tokens_per_usd": value[1]})
            last = value
    return rows


def _blended_value(plist: PriceList, model: str, profile: WorkloadProfile, at: dt.datetime,
                   rates: RateTable) -> tuple[float, float] | None:
    try:
        b = blended_usd(plist, model, profile, at, rates)
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
