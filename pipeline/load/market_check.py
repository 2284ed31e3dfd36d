"""Check the editors' price files against the market: a curated price more than 20× above or
below what the catalogues listed for the same model at the same time is an error naming its
file, line and field (a 1000× slip in a new provider file, a list switched to another unit),
unless its record says `outlier_is_real: true`.

The market is every catalogue's base prices (tables/discrepancies.catalogue_periods) without
its held-back listings, grouped by canonical model (normalize/model_ids.py): for a curated
record, the catalogue prices of its model and meter in force at some moment of its period,
each provider's median counted once, and the median of those.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from pipeline.models.catalogues import CataloguesFile
from pipeline.models.prices import PriceFile
from pipeline.models.rates import RateTable
from pipeline.models.sourced import Sourced, line_of
from pipeline.normalize.fx import RateNotFound
from pipeline.normalize.model_ids import canonical_model
from pipeline.normalize.units import per_mtok
from pipeline.problems import Problem
from pipeline.tables.catalogue_history import SNAPSHOT_FORMAT
from pipeline.tables.cost import record_fx
from pipeline.tables.discrepancies import INSTANT, catalogue_periods
from pipeline.tables.plausibility import FACTOR, JUDGED_METERS, round_times


def market_problems(files: Mapping[str, Sourced[PriceFile]], rates: RateTable | None,
                    histories: Mapping[str, pd.DataFrame],
                    catalogues: CataloguesFile) -> list[Problem]:
    """Return an error for each curated base price (realtime, all day, base band; input or
    output) over FACTOR times above or below the catalogues' median for its model then."""
    names = {c.id: c.name for c in catalogues.catalogues}
    periods = [catalogue_periods(h, names.get(c, c), "") for c, h in histories.items()]
    market = pd.concat(periods, ignore_index=True) if periods else pd.DataFrame()
    curated = _curated_prices(files, rates)
    if market.empty or curated.empty:
        return []
    market = market[market["usd_per_mtok"] > 0]
    market = market.assign(canonical=market["model"].map(canonical_model))
    both = curated.merge(market, on=["canonical", "meter"], suffixes=("", "_c"))
    end = both["end"].fillna(pd.Timestamp.max.tz_localize("UTC"))
    overlapping = (both["start_c"] < end) & (both["end_c"].isna() | (both["end_c"] > both["start"]))
    both = both[overlapping]
    if both.empty:
        return []
    per_provider = both.groupby(["row", "provider"]).agg(
        usd=("usd_per_mtok_c", "median"), seen=("start_c", "max"), source=("source", "first"))
    market_at = per_provider.groupby(level="row").agg(
        median=("usd", "median"), listings=("usd", "size"), seen=("seen", "max"),
        sources=("source", lambda s: ", ".join(sorted(set(s)))))
    rows = curated.set_index("row").join(market_at, how="inner")
    ratio = rows["usd_per_mtok"] / rows["median"]
    far = rows[((ratio > FACTOR) | (ratio < 1 / FACTOR)) & ~rows["confirmed"]]
    return [_problem(r, files) for r in far.assign(ratio=ratio[far.index]).itertuples()]


def _curated_prices(files: Mapping[str, Sourced[PriceFile]],
                    rates: RateTable | None) -> pd.DataFrame:
    """Return one row per curated base price of a JUDGED_METERS meter, in USD per Mtok at its
    record's ECB rate, with where it is written."""
    rows = []
    for provider, sourced in sorted(files.items()):
        for i, plist in enumerate(sourced.model.lists):
            for j, record in enumerate(plist.records):
                try:
                    usd = record_fx(plist, record, rates).usd_per_unit if rates else (
                        1.0 if plist.currency == "USD" else None)
                except RateNotFound:
                    usd = None
                if usd is None:
                    continue
                for k, p in enumerate(record.prices):
                    if (p.meter in JUDGED_METERS and p.window is None and p.price > 0
                            and p.context_above_tokens == 0 and p.mode == "realtime"):
                        listed = per_mtok(p.price, plist.unit)
                        rows.append((provider, ("lists", i, "records", j, "prices", k, "price"),
                                     record.model, canonical_model(record.model), p.meter,
                                     listed * usd, listed, plist.currency, plist.unit,
                                     record.from_, record.to, record.outlier_is_real))
    table = pd.DataFrame(rows, columns=["file", "loc", "model", "canonical", "meter",
                                        "usd_per_mtok", "list_per_mtok", "currency", "unit",
                                        "start", "end", "confirmed"])
    for column in ("start", "end"):
        table[column] = pd.to_datetime(table[column], utc=True).astype(INSTANT)
    return table.assign(row=np.arange(len(table)))


def _problem(r, files: Mapping[str, Sourced[PriceFile]]) -> Problem:
    sourced = files[r.file]
    above = r.ratio > 1
    times = r.ratio if above else 1 / r.ratio
    listed = (f"{_money(r.list_per_mtok)} {r.currency} per Mtok (≈ ${_money(r.usd_per_mtok)})"
              if r.currency != "USD" else f"${_money(r.usd_per_mtok)} per Mtok")
    seen = r.seen.strftime(SNAPSHOT_FORMAT)[:10]
    figure = (f"${_money(r.median)} per Mtok, the median of {r.listings} providers in "
              f"{r.sources}, seen {seen}" if r.listings > 1 else
              f"${_money(r.median)} per Mtok in {r.sources}, seen {seen}")
    return Problem(sourced.path, ".".join(map(str, r.loc)),
                   f"{r.model} {r.meter}: {listed} is ×{round_times(times)} "
                   f"{'above' if above else 'below'} the catalogues' price ({figure}); check "
                   f"the list's unit ({r.unit}) for a slip, or set `outlier_is_real: true` on "
                   "this record once checked at its source",
                   line=line_of(sourced.lines, r.loc))


def _money(value: float) -> str:
    return f"{value:,.2f}" if value >= 0.1 else f"{value:.4g}"
