"""Pure: what the Prices page and the editions' charts show, as values: the prices in force at a
date per workload profile, and the numbers each chart plots (drawn by render/prices_page.py)."""

from __future__ import annotations

import bisect
import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from pipeline.compose.charts import ChartSeries, ChartSpec
from pipeline.models.prices import PriceFile, WorkloadProfile
from pipeline.models.sourced import Sourced
from pipeline.normalize.fx import RateTable
from pipeline.tables.cost import day_end, effective_price
from pipeline.tables.quotes import Quotes, quotes

CurrentRow = tuple[str, str, str, float, float, dt.date]
"""(provider name, model, list currency, usd_per_mtok, tokens_per_usd, fx date)."""


def current_rows(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
                 profile: WorkloadProfile, as_of: dt.date,
                 table: Quotes | None = None) -> list[CurrentRow]:
    """Return (provider name, model, currency, usd_per_mtok, tokens_per_usd, fx date), cheapest
    first, at the end of `as_of`; `table`: the blended prices then, when already computed."""
    at = day_end(as_of)
    table = table if table is not None else quotes(files, rates, [profile], [at])
    rows = [(q.quoted.sourced.model.name, q.quoted.record.model, q.quoted.plist.currency,
             q.usd_per_mtok, q.tokens_per_usd, q.fx_date) for q in table.priced(at, profile)]
    return sorted(rows, key=lambda r: (r[3], r[0], r[1]))  # type: ignore[arg-type]


def current_tables(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
                   profiles: list[WorkloadProfile], as_of: dt.date,
                   table: Quotes | None = None) -> dict[str, list[CurrentRow]]:
    """Return the `current_rows` of each profile, by profile id: what the page's tables and two
    of its charts show, computed once for all of them."""
    table = table if table is not None else quotes(files, rates, profiles, [day_end(as_of)])
    return {p.id: current_rows(files, rates, p, as_of, table) for p in profiles}


def in_force_since(files: Mapping[str, Sourced[PriceFile]], as_of: dt.date) -> dt.datetime | None:
    """Return the newest instant, up to the end of `as_of`, when the price the page quotes for
    some model changed (a record took effect or ended), or None when none is in force yet.

    Only the lists the page quotes count (`PriceFile.quote_lists`): a change to a list it does not show
    (DeepSeek's yuan list beside its dollar one) leaves the page as it was."""
    at = day_end(as_of)
    edges = []
    for sourced in files.values():
        for model, plist in sourced.model.quote_lists.items():
            starts, records = plist.periods[model]
            # A model's periods never overlap, so its newest edge by `at` is the start of the
            # last record to start by then, or that record's end when it has passed.
            i = bisect.bisect_right(starts, at)
            if i:
                last = records[i - 1]
                edges.append(last.to if last.to is not None and last.to <= at else last.from_)
    return max(edges, default=None)


HISTORY_MODELS = 12
"""Models drawn in the price history: more lines than this cannot be told apart."""


@dataclass(frozen=True)
class PriceHistory:
    """What a price-history chart plots: USD per Mtok of a few lines (models, or one model's
    meters) up to `end`, as steps."""

    title: str
    end: dt.date
    """The last date drawn: each line holds its last value to it."""
    lines: tuple[tuple[str, tuple[tuple[dt.date, float], ...]], ...]
    """(label, the (date, usd_per_mtok) of each change), sorted by label."""


@dataclass(frozen=True)
class HourOfWeek:
    """What the hour-of-week chart plots: one meter's price through a UTC week, per list."""

    meter: str
    lines: tuple[tuple[str, tuple[float, ...]], ...]
    """(label, the price per Mtok in the list's currency at each of the week's 168 hours, NaN
    where there is none)."""


@dataclass(frozen=True)
class Cheapest:
    """What the cheapest chart plots: per profile, the models with the most tokens per USD."""

    panels: tuple[tuple[str, tuple[tuple[str, float], ...]], ...]
    """(profile title, (provider and model, million tokens per USD) with the most last, as
    bars go up)."""


PricesChart = PriceHistory | HourOfWeek | Cheapest


def price_history(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
                  profile: WorkloadProfile, dates: list[dt.date],
                  blended: pd.DataFrame | None = None,
                  current: list[CurrentRow] | None = None) -> PriceHistory:
    """Return the blended USD per Mtok over `dates` of the models that give the most tokens per
    dollar on the last date; every model is in data/blended.csv.

    `blended`: the rows of `Quotes.blended_rows` for these dates, `current`: the `current_rows`
    of the last date, when already computed."""
    end = max(dates)
    names = {provider: sourced.model.name for provider, sourced in files.items()}
    current = current if current is not None else current_rows(files, rates, profile, end)
    shown = {(name, model) for name, model, *_ in current[:HISTORY_MODELS]}
    if blended is None:
        blended = quotes(files, rates, [profile], [day_end(d) for d in dates]).blended_rows(dates)
    lines: dict[tuple[str, str], list[tuple[dt.date, float]]] = {}
    for r in blended[blended["profile"] == profile.id].itertuples():
        line = (names[r.provider], r.model)
        if line in shown:
            lines.setdefault(line, []).append((dt.date.fromisoformat(r.as_of),
                                               float(r.usd_per_mtok)))
    return PriceHistory(f"Blended price, {profile.title}", end, tuple(
        (f"{name} {model}", tuple(points)) for (name, model), points in sorted(lines.items())))


def hour_of_week(files: Mapping[str, Sourced[PriceFile]], week_monday: dt.date,
                 meter: str = "input") -> HourOfWeek:
    """Return the price of `meter` at each UTC hour of the week from `week_monday` of every model
    whose list has windows and whose price varies in that week."""
    start = dt.datetime.combine(week_monday, dt.time(0), dt.UTC)
    lines = []
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
    return HourOfWeek(meter, tuple(lines))


def cheapest(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
             profiles: list[WorkloadProfile], as_of: dt.date, top: int = 8,
             current: Mapping[str, list[CurrentRow]] | None = None) -> Cheapest:
    """Return the `top` models with the most tokens per dollar per profile at the end of `as_of`.

    `current`: the `current_tables` of `as_of`, when already computed."""
    current = current if current is not None else current_tables(files, rates, profiles, as_of)
    return Cheapest(tuple(
        (p.title, tuple((f"{r[0]} {r[1]}", r[4] / 1e6) for r in current[p.id][:top][::-1]))
        for p in profiles))


def cheapest_chart_spec(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
                        profile: WorkloadProfile, as_of: dt.date, top: int = 8,
                        table: Quotes | None = None) -> ChartSpec:
    """Return the spec of an edition's chart: the models with the most tokens per dollar for
    `profile`, as of the edition's date (so a later price never changes an earlier edition).
    `table`: the blended prices then, when already computed."""
    rows = current_rows(files, rates, profile, as_of, table)[:top]
    return ChartSpec(
        name=cheapest_chart_name(profile, as_of.isoformat()), kind="bar",
        title=f"Most tokens per US dollar, {profile.title}, as of {as_of.isoformat()}",
        x_label=MODEL_LABEL, y_label="Million tokens per USD (blended)", unit="million tokens per USD",
        categories=tuple(f"{name} {model}" for name, model, *_ in rows),
        series=(ChartSeries(MTOK_PER_USD_LABEL, tuple(round(tpu / 1e6, 3) for *_, tpu, _fx in rows)),))


def cheapest_chart_name(profile: WorkloadProfile, day: str) -> str:
    # One place for the name, so the family's pattern matches every chart's file.
    return f"tokens-per-dollar-{profile.id}-{day}"


MODEL_LABEL = "Model"
MTOK_PER_USD_LABEL = "Million tokens per USD"
