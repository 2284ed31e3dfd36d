"""Pure: what the Prices page and the editions' charts show, as values: the prices in force at a
date per workload profile, and the numbers each chart plots (drawn by render/prices_page.py)."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pipeline.compose.charts import ChartNote, ChartSeries, ChartSpec
from pipeline.compose.list_moves import ListMove
from pipeline.models.prices import PriceFile, PriceList, PriceRecord, WorkloadProfile
from pipeline.models.rates import RateTable
from pipeline.models.sourced import Sourced
from pipeline.normalize.fx import RateNotFound
from pipeline.tables.cost import blended_per_mtok, day_end, effective_price, record_at, record_fx
from pipeline.tables.quotes import Quoted, Quotes, quotes

CurrentRow = tuple[str, str, str, float, float, dt.date, Quoted]
"""(provider name, model, list currency, usd_per_mtok, tokens_per_usd, fx date, the record)."""


def current_rows(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
                 profile: WorkloadProfile, as_of: dt.date,
                 table: Quotes | None = None) -> list[CurrentRow]:
    """Return (provider name, model, currency, usd_per_mtok, tokens_per_usd, fx date, record),
    cheapest first, at the end of `as_of`; `table`: the blended prices then, when already
    computed."""
    at = day_end(as_of)
    table = table if table is not None else quotes(files, rates, [profile], [at])
    rows = [(q.quoted.sourced.model.name, q.quoted.record.model, q.quoted.plist.currency,
             q.usd_per_mtok, q.tokens_per_usd, q.fx_date, q.quoted) for q in table.priced(at, profile)]
    return sorted(rows, key=lambda r: (r[3], r[0], r[1]))  # type: ignore[arg-type]


def current_tables(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
                   profiles: list[WorkloadProfile], as_of: dt.date,
                   table: Quotes | None = None) -> dict[str, list[CurrentRow]]:
    """Return the `current_rows` of each profile, by profile id: what the page's tables and two
    of its charts show, computed once for all of them."""
    table = table if table is not None else quotes(files, rates, profiles, [day_end(as_of)])
    return {p.id: current_rows(files, rates, p, as_of, table) for p in profiles}


def newest_in_force(current: Mapping[str, list[CurrentRow]],
                    files: Mapping[str, Sourced[PriceFile]] | None = None,
                    as_of: dt.date | None = None) -> tuple[dt.datetime, list[str]] | None:
    """Return when the newest of the records in force took effect, and the models ("provider
    model") whose record took effect then; None when there are none.

    The rows the page quotes count, and with `files` and `as_of` every list's record in force
    at the end of `as_of` too: a record of a list no blend quotes (DeepSeek's yuan list beside
    its dollar one) is in force all the same, and named with its list ("… (CNY list)")."""
    quoted = {f"{r[0]} {r[1]}": r[6].record.from_ for rows in current.values() for r in rows}
    if files is not None and as_of is not None:
        at = day_end(as_of)
        for _, sourced in sorted(files.items()):
            for model, plist_quoted in sourced.model.quote_lists.items():
                for plist in sourced.model.lists:
                    record = record_at(plist, model, at)
                    if record is not None and plist is not plist_quoted:
                        quoted[f"{sourced.model.name} {model} ({plist.currency} list)"] = \
                            record.from_
    if not quoted:
        return None
    newest = max(quoted.values())
    return newest, sorted(name for name, start in quoted.items() if start == newest)


HISTORY_MODELS = 12
"""Models drawn in the price history: more lines than this cannot be told apart."""


@dataclass(frozen=True)
class PriceHistory:
    """What a price-history chart plots: the blended USD per Mtok of the models whose price
    changed, from their first record to `end`, as steps."""

    title: str
    end: dt.datetime
    """The last instant drawn: each line holds its last value to it."""
    lines: tuple[tuple[str, tuple[tuple[dt.datetime, float], ...]], ...]
    """(label, the (instant, usd_per_mtok) of each change, NaN where no price is in force from
    then), sorted by label."""
    marks: tuple[tuple[dt.date, str, tuple[tuple[str, float], ...]], ...] = ()
    """Moves in a list the lines do not show (a model page's: compose/list_moves.py): (when, a
    short label, (the line's label, the moved price in the lines' unit) of each moved meter)."""
    unit: str = "USD per Mtok"
    """What the lines' values are in, as the value axis names it."""


@dataclass(frozen=True)
class HourOfWeek:
    """What the hour-of-week chart plots: one meter's price through a UTC week, per list."""

    meter: str
    lines: tuple[tuple[str, tuple[float, ...]], ...]
    """(label, the price per Mtok in the list's currency at each of the week's 168 hours, NaN
    where there is none)."""
    currencies: tuple[str, ...] = ()
    """The currencies of the lines' lists, each once, in order: what the value axis names."""


@dataclass(frozen=True)
class Cheapest:
    """What the cheapest chart plots: per profile, the models with the most tokens per USD."""

    panels: tuple[tuple[str, tuple[tuple[str, float], ...]], ...]
    """(profile title, (provider and model, million tokens per USD) with the most last, as
    bars go up)."""


PricesChart = PriceHistory | HourOfWeek | Cheapest


def price_history(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
                  profile: WorkloadProfile, as_of: dt.date) -> PriceHistory:
    """Return the blended USD per Mtok of every quoted model whose price changed by the end of
    `as_of`, at each record's start (and a gap where a record ends with none after it), from the
    first record on; at most HISTORY_MODELS of them, those changed most recently."""
    at = day_end(as_of)
    lines: dict[str, list[tuple[dt.datetime, float]]] = {}
    for _, sourced in sorted(files.items()):
        for model, plist in sourced.model.quote_lists.items():
            points: list[tuple[dt.datetime, float]] = []
            previous_end: dt.datetime | None = None
            for record in plist.periods[model][1]:
                if record.from_ > at:
                    break
                if previous_end is not None and previous_end < record.from_:
                    points.append((previous_end, math.nan))  # no price between the two
                usd = _blended_usd(plist, record, profile, rates)
                if not points or usd != points[-1][1]:  # a new record at the same blend: no step
                    points.append((record.from_, usd))
                previous_end = record.to
            if previous_end is not None and previous_end <= at:
                points.append((previous_end, math.nan))
            if len({"gap" if math.isnan(v) else v for _, v in points}) > 1:
                lines[f"{sourced.model.name} {model}"] = points
    # The most recently changed, when there are too many lines to tell apart.
    kept = sorted(lines, key=lambda k: lines[k][-1][0], reverse=True)[:HISTORY_MODELS]
    return PriceHistory(f"Blended price of the models whose price changed, {profile.title}", at,
                        tuple((k, tuple(lines[k])) for k in sorted(kept)))


def _blended_usd(plist: PriceList, record: PriceRecord, profile: WorkloadProfile,
                 rates: RateTable) -> float:
    blend = blended_per_mtok(plist, record, profile, record.from_)
    try:
        usd = record_fx(plist, record, rates).usd_per_unit
    except RateNotFound:
        return math.nan
    return math.nan if blend is None else blend * usd


def hour_of_week(files: Mapping[str, Sourced[PriceFile]], week_monday: dt.date,
                 meter: str = "input") -> HourOfWeek:
    """Return the price of `meter` at each UTC hour of the week from `week_monday` of every model
    whose list has windows and whose price varies in that week."""
    start = dt.datetime.combine(week_monday, dt.time(0), dt.UTC)
    lines = []
    currencies: list[str] = []
    for _, sourced in sorted(files.items()):
        for plist in sourced.model.lists:
            if not plist.windows:
                continue
            for model in plist.periods:
                # Mid-hour, so a window starting on the hour is in force at its first hour.
                values = [effective_price(plist, model, meter, start + dt.timedelta(hours=h,
                                                                                    minutes=30))
                          for h in range(168)]
                if any(values) and len({v.per_mtok for v in values if v}) > 1:
                    lines.append((f"{model} ({plist.currency})",
                                  tuple(v.per_mtok if v else float("nan") for v in values)))
                    if plist.currency not in currencies:
                        currencies.append(plist.currency)
    return HourOfWeek(meter, tuple(lines), tuple(currencies))


def cheapest(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
             profiles: list[WorkloadProfile], as_of: dt.date, top: int = 8,
             current: Mapping[str, list[CurrentRow]] | None = None) -> Cheapest:
    """Return the `top` models with the most tokens per dollar per profile at the end of `as_of`.

    `current`: the `current_tables` of `as_of`, when already computed."""
    current = current if current is not None else current_tables(files, rates, profiles, as_of)
    return Cheapest(tuple(
        (p.title, tuple((f"{r[0]} {r[1]}", r[4] / 1e6) for r in current[p.id][:top][::-1]))
        for p in profiles))


EDITION_CHART_MOVED = 4
"""Models outside the top whose price moved in the window, added below it: the edition's news."""


def cheapest_chart_spec(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
                        profile: WorkloadProfile, as_of: dt.date, start: dt.date | None = None,
                        top: int = 8, table: Quotes | None = None, window: str = "",
                        list_moves: Sequence[ListMove] = ()) -> ChartSpec:
    """Return the spec of an edition's chart: the `top` models with the most tokens per dollar
    for `profile` as of the edition's date (so a later price never changes an earlier edition),
    then up to EDITION_CHART_MOVED more whose blend moved since the end of `start` (the window's
    start); its second series is each model's figure then, which marks the moves.
    `table`: the blended prices at both ends, when already computed; `window`: the window in
    words; `list_moves`: the window's moves in lists no blend quotes, whose models are marked
    as moved too (a note each) though their figure did not move."""
    days = [as_of] if start is None else [start, as_of]
    table = table if table is not None else quotes(files, rates, [profile], [day_end(d) for d in days])
    # On the table's columns, not current_rows: at year scale an edition's chart would build a
    # Quote of every model twice (both ends), for the dozen it shows.
    now = table.at(day_end(as_of), profile)
    now = now[now["usd_per_mtok"].notna()]
    usd, tpu = now["usd_per_mtok"].to_numpy(), now["tokens_per_usd"].to_numpy()
    keys, rids = now["key"].to_numpy(), now["rid"].to_numpy()
    then: dict[int, float] = {}
    if start is not None:
        old = table.at(day_end(start), profile)
        old = old[old["usd_per_mtok"].notna()]
        then = dict(zip(old["key"].tolist(), old["tokens_per_usd"].tolist()))
    moved = np.array([then.get(k) != t for k, t in zip(keys.tolist(), tpu.tolist())], dtype=bool) \
        if start is not None else np.zeros(len(keys), dtype=bool)
    elsewhere = {(m.provider, m.model): m for m in list_moves}
    noted = np.array([(table.records[r].provider, table.records[r].record.model) in elsewhere
                      for r in rids.tolist()], dtype=bool)

    def ranked(index: np.ndarray) -> list[int]:
        # As current_rows orders them: cheapest first, then by provider name and model.
        return sorted(index.tolist(), key=lambda i: (usd[i], table.records[rids[i]].sourced.model.name,
                                                     table.records[rids[i]].record.model))

    first = ranked(np.arange(len(usd)))[:top]
    rest = np.setdiff1d(np.flatnonzero(moved | noted), first)
    shown = first + ranked(rest)[:EDITION_CHART_MOVED]
    names = [f"{table.records[rids[i]].sourced.model.name} {table.records[rids[i]].record.model}"
             for i in shown]
    series = [ChartSeries(MTOK_PER_USD_LABEL, tuple(round(float(tpu[i]) / 1e6, 3) for i in shown))]
    if start is not None:
        earlier = (then.get(int(keys[i])) for i in shown)
        series.append(ChartSeries(WINDOW_START_LABEL,
                                  tuple(None if t is None else round(t / 1e6, 3) for t in earlier)))
    notes = []
    for bar, i in enumerate(shown):
        move = elsewhere.get((table.records[rids[i]].provider, table.records[rids[i]].record.model))
        if move is not None:
            notes.append(ChartNote(bar, move.brief(), move.story()))
    return ChartSpec(
        name=cheapest_chart_name(profile, as_of.isoformat()), kind="hbar",
        title=f"Most tokens per US dollar, {profile.title}, as of {as_of.isoformat()}",
        x_label=MODEL_LABEL, y_label="Million tokens per USD, blended",
        unit="million tokens per USD", categories=tuple(names),
        series=tuple(series), since=start.isoformat() if start else "", window=window,
        notes=tuple(notes), note_column=NOTE_LABEL)


def cheapest_chart_name(profile: WorkloadProfile, day: str) -> str:
    # One place for the name, so the family's pattern matches every chart's file.
    return f"tokens-per-dollar-{profile.id}-{day}"


MODEL_LABEL = "Model"
MTOK_PER_USD_LABEL = "Million tokens per USD"
WINDOW_START_LABEL = "Million tokens per USD at the window start"
NOTE_LABEL = "Moved in a list no blend quotes"


@dataclass(frozen=True, eq=False)
class PricesPage:
    """What the Prices page shows as of `as_of`, the newest edition's day: the price files and
    rates it cites, the prices in force per profile (`current`, current_tables), its three
    charts, and `blended` (data/blended.csv: Quotes.blended_rows over the editions' dates)."""

    files: Mapping[str, Sourced[PriceFile]]
    rates: RateTable
    profiles: list[WorkloadProfile]
    as_of: dt.date
    source_url: str
    current: dict[str, list[CurrentRow]]
    history: PriceHistory
    hours: HourOfWeek
    cheapest: Cheapest
    blended: pd.DataFrame


def prices_page(files: Mapping[str, Sourced[PriceFile]], rates: RateTable | None,
                profiles: list[WorkloadProfile], dates: Sequence[dt.date], source_url: str,
                table: Quotes) -> PricesPage | None:
    """Return the Prices page's value as of the newest of `dates` (None without prices or
    rates); `table`: the blended prices at every edition date (compose.parts.EditionTables.quotes)."""
    if not files or rates is None:
        return None
    as_of = max(dates)
    current = current_tables(files, rates, profiles, as_of, table)
    return PricesPage(
        files, rates, profiles, as_of, source_url, current,
        # The price history runs to the newest edition: it changes with every edition.
        price_history(files, rates, profiles[0], as_of),
        # The hour-of-week chart reads the windowed prices of the week (the same from week to
        # week but for DST), the cheapest one the rows in force.
        hour_of_week(files, as_of - dt.timedelta(days=as_of.weekday())),
        cheapest(files, rates, profiles, as_of, current=current),
        table.blended_rows(dates))
