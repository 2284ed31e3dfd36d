"""The Prices page's files, with what an earlier build computed of them reused: the full price
tables (by the digest of every record and rate), each model's blended rows (by what they read)
and the drawings of the two charts that rarely change (by the numbers they plot)."""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable, Iterable, Mapping

from pydantic import BaseModel

from pipeline.build.keys import ModelDigests, model_digest, price_keys
from pipeline.build.memo import Memo
from pipeline.build.parts import ReusedParts
from pipeline.compose.prices_page import (
    PricesChart,
    cheapest,
    current_tables,
    hour_of_week,
    price_history,
)
from pipeline.compose.sources import Sources
from pipeline.models.prices import PriceFile, WorkloadProfile
from pipeline.models.sourced import Sourced
from pipeline.normalize.fx import RateNotFound, RateTable
from pipeline.render import prices_page
from pipeline.render.drawing import NOW, Drawing, Draws
from pipeline.tables.cost import Blend, Blends, blended_per_mtok, record_fx
from pipeline.tables.prices import (
    PRICE_COLUMNS,
    BlendPlan,
    blend_plans,
    blended_csv,
    blended_lines,
    csv_bytes,
    json_bytes,
    price_rows,
)


def reused_blended_groups(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
                          profiles: Iterable[WorkloadProfile], dates: Iterable[dt.date],
                          memo: Memo, salt: str, json: Callable[[BaseModel], str] = model_digest,
                          blends: Blend = blended_per_mtok) -> list[tuple[str, list[dict]]]:
    """Return tables.prices.blended_groups' groups, each with its memo key, reused from `memo`
    when the model's records, the rates they use, the profile and the dates are the same."""
    profiles = list(profiles)
    groups = []
    for blend in blend_plans(files, dates):
        records = records_digest(blend, rates, json)
        for profile in profiles:
            key = ("blended-rows " + hashlib.sha256(
                f"{salt}\0{records}\0{profile!r}".encode()).hexdigest())
            groups.append((key, memo.get(key, lambda p=profile, b=blend: b.rows(p, rates, blends))))
    return groups


def records_digest(blend: BlendPlan, rates: RateTable,
                   json: Callable[[BaseModel], str] = model_digest) -> str:
    """Return the digest of what a model's blended rows read besides the profile: its list's
    terms, its records, the rates they use, the dates evaluated and the gaps between them."""
    provider, model, plist, days = blend.provider, blend.model, blend.plist, blend.days
    parts = [provider, model, plist.currency, plist.unit, repr(plist.windows)]
    for record, indices, gap in blend.plan:
        try:
            fx = "" if plist.currency == "USD" else repr(record_fx(plist, record, rates))
        except RateNotFound:
            fx = "no rate"
        parts += [json(record), fx, repr([days[i] for i in indices]), repr(gap)]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def price_files(sources: Sources, dates: list[dt.date], memo: Memo | None = None,
                parts: ReusedParts | None = None,
                drawer: Draws = NOW) -> dict[str, str | bytes | Drawing]:
    """Return the Prices page, its charts and the price data files, as of the newest edition.

    The full price tables do not depend on the editions: `memo` keeps them by the digest of
    every price record and rate (`parts.prices_key`), and the drawings of two of the charts by
    the digest of the numbers they plot (`prices_chart_key`); the parts' memo keeps each
    model's blended rows (price_tables). `drawer` draws the charts (build/drawer.py)."""
    memo = memo if memo is not None else Memo()
    if not sources.prices or sources.rates is None:
        return {"prices.md": "# Prices\n\nNo price histories in this repository.\n"}

    files, rates, profiles = sources.prices, sources.rates, sources.series.profiles
    as_of = max(dates)
    monday = as_of - dt.timedelta(days=as_of.weekday())
    code = parts.code if parts else ""
    json = parts.json if parts else ModelDigests(sources)
    every = parts.prices_key if parts else price_keys(sources, [dt.date.max], code, json)[0]

    def tables() -> dict[str, bytes]:
        rows = price_rows(files, rates)
        return {"data/prices.csv": csv_bytes(rows, PRICE_COLUMNS),
                "data/prices.json": json_bytes(rows, PRICE_COLUMNS)}

    parts_memo = parts.memo if parts else Memo()
    groups = reused_blended_groups(files, rates, profiles, dates, parts_memo, code, json,
                                   parts.blend if parts else Blends())
    blended = [row for _, rows in groups for row in rows]
    current = current_tables(files, rates, profiles, as_of)
    # Drawn only when what they plot changed: the hour-of-week chart reads the windowed prices of
    # the week (the same from week to week but for DST), the cheapest one the rows in force.
    reused = {
        "charts/hour-of-week.svg": hour_of_week(files, monday),
        "charts/cheapest.svg": cheapest(files, rates, profiles, as_of,
                                                    current=current),
    }
    # The price history gains a day with every edition, so it is drawn every time; kept in
    # `memo` it would change the memo, whose file (~170 MB at year scale) is then rewritten.
    history = price_history(files, rates, profiles[0], dates, blended,
                                        current[profiles[0].id])
    return {
        **memo.get(f"price-tables {every}", tables),
        "prices.md": prices_page.prices_page_md(files, rates, profiles, as_of, current),
        "charts/price-history.svg": drawer.submit(prices_page.svg, history),
        **{path: memo.get(prices_chart_key(chart, code),
                          lambda c=chart: drawer.submit(prices_page.svg, c))
           for path, chart in reused.items()},
        # Each group's lines kept by its key: writing ~25,000 rows at a year's scale took 0.05 s.
        "data/blended.csv": blended_csv(
            parts_memo.get(f"blended-csv {key}", lambda r=rows: blended_lines(r))
            for key, rows in groups),
    }


def prices_chart_key(chart: PricesChart, code: str) -> str:
    """Return the digest of what a Prices-page chart plots (a frozen value whose repr holds every
    number, label and date drawn) and of the code and library versions that draw it."""
    return "prices-chart " + hashlib.sha256(f"{code}\0{chart!r}".encode()).hexdigest()
