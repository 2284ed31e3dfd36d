"""Check the editors' price files against the market: a curated price more than 20× above or
below what the catalogues listed for the same model at the same time is an error naming its
file, line and field and the listings it was compared with (a 1000× slip in a new provider
file, a list switched to another unit), unless its record says `outlier_is_real: true`.

The market is every catalogue's base prices (tables/discrepancies.catalogue_periods) without
its held-back listings, grouped by model identity (normalize/model_identity.py, the rule that
groups the model pages), so `llama-3.1-8b` is judged against `meta-llama/Llama-3.1-8B-Instruct`
and the rest however each host spells it: for a curated record, the catalogue prices of its
model and meter in force at some moment of its period, each provider's median counted once,
and the median of those. A record whose model no catalogue lists at all has nothing to be
judged against: it is warned as unmatched and its prices held to its mode's ceiling
(`sources/catalogues.yaml`), as a catalogue's are (issue 50).
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
from pipeline.normalize.model_identity import identity_key
from pipeline.normalize.model_ids import TEXT, model_mode, other_billing
from pipeline.normalize.units import per_mtok
from pipeline.problems import Problem
from pipeline.tables.catalogue_history import SNAPSHOT_FORMAT
from pipeline.tables.cost import record_fx
from pipeline.tables.discrepancies import INSTANT, catalogue_periods
from pipeline.tables.plausibility import FACTOR, JUDGED_METERS, round_times

NAMED_LISTINGS = 6
"""Listings a problem names; the rest are counted (a model with 40 hosts makes no message)."""


def market_problems(files: Mapping[str, Sourced[PriceFile]], rates: RateTable | None,
                    histories: Mapping[str, pd.DataFrame],
                    catalogues: CataloguesFile) -> list[Problem]:
    """Return an error for each curated base price (realtime, all day, base band; input or
    output) over FACTOR times above or below the catalogues' median for its model then, and
    for a record whose model no catalogue lists, a warning and an error for each such price
    above its mode's ceiling."""
    names = {c.id: c.name for c in catalogues.catalogues}
    periods = [catalogue_periods(h, names.get(c, c), "") for c, h in histories.items()]
    market = pd.concat(periods, ignore_index=True) if periods else pd.DataFrame(
        columns=["provider", "model", "meter", "usd_per_mtok", "start", "end", "source"])
    curated = _curated_prices(files, rates)
    market = market[market["usd_per_mtok"] > 0]
    if market.empty or curated.empty:  # no catalogue followed: nothing to match or judge by
        return []
    market = market.assign(identity=market["model"].map(identity_key))
    listed = curated["identity"].isin(set(market["identity"]))
    problems = _unmatched(curated[~listed], files, catalogues)
    both = curated.merge(market, on=["identity", "meter"], suffixes=("", "_c"))
    end = both["end"].fillna(pd.Timestamp.max.tz_localize("UTC"))
    overlapping = (both["start_c"] < end) & (both["end_c"].isna() | (both["end_c"] > both["start"]))
    both = both[overlapping]
    if both.empty:
        return problems
    per_provider = both.groupby(["row", "provider"]).agg(
        usd=("usd_per_mtok_c", "median"), seen=("start_c", "max"), source=("source", "first"))
    market_at = per_provider.groupby(level="row").agg(
        median=("usd", "median"), listings=("usd", "size"), seen=("seen", "max"),
        sources=("source", lambda s: ", ".join(sorted(set(s)))))
    rows = curated.set_index("row").join(market_at, how="inner")
    ratio = rows["usd_per_mtok"] / rows["median"]
    far = rows[((ratio > FACTOR) | (ratio < 1 / FACTOR)) & ~rows["confirmed"]]
    compared = both[both["row"].isin(far.index)]
    return problems + [_problem(r, files, _named(compared[compared["row"] == r.Index]))
                       for r in far.assign(ratio=ratio[far.index]).itertuples()]


def _named(compared: pd.DataFrame) -> str:
    """Return the catalogue listings a price was compared with, for people: each provider's
    spelling and its median price then, NAMED_LISTINGS of them, the rest counted."""
    listings = compared.groupby(["provider", "model_c"], sort=True)["usd_per_mtok_c"].median()
    named = [f"{provider} {model} ${_money(usd)}"
             for (provider, model), usd in listings.head(NAMED_LISTINGS).items()]
    more = len(listings) - NAMED_LISTINGS
    return ", ".join(named) + (f" and {more} more" if more > 0 else "")


def _unmatched(curated: pd.DataFrame, files: Mapping[str, Sourced[PriceFile]],
               catalogues: CataloguesFile) -> list[Problem]:
    """Return, for each record whose model no catalogue lists, a warning at its `model`, and
    an error for each of its prices above its mode's ceiling (unless `outlier_is_real`)."""
    # Row by row over plain values, not a frame per record: a year of synthetic records holds
    # thousands that no catalogue lists (a groupby's frame each took minutes). A record's rows
    # are consecutive (_curated_prices), so its warning comes before its prices' errors.
    mode_of = {m: model_mode(m, catalogues.modes) for m in curated["model"].unique()}
    problems, last = [], None
    for r in curated.itertuples(index=False):
        sourced, mode = files[r.file], mode_of[r.model]
        if (r.file, r.loc[:4]) != last:
            last = (r.file, r.loc[:4])
            loc = (*r.loc[:4], "model")
            # The market holds text models billed per token only (tables/plausibility.py): a
            # record of another mode or a router has no listing to be matched with, and is no
            # slip of its id.
            if mode == TEXT and not other_billing("", r.model, catalogues.billing):
                problems.append(Problem(
                    sourced.path, ".".join(map(str, loc)),
                    f"{r.model}: no catalogue lists this model (identity {r.identity}), so its "
                    "prices are held to the ceiling only; check the id against a catalogue's "
                    "spelling", line=line_of(sourced.lines, loc), severity="warning"))
        ceiling = catalogues.ceilings_usd_per_mtok.get(mode, np.inf)
        if r.usd_per_mtok > ceiling and not r.confirmed:
            problems.append(Problem(
                sourced.path, ".".join(map(str, r.loc)),
                f"{r.model} {r.meter}: {_listed(r)} is above the ceiling of "
                f"${ceiling:,.0f} per Mtok for {mode} models, and no catalogue lists the model "
                f"to compare it with; check the list's unit ({r.unit}) for a slip, or set "
                "`outlier_is_real: true` on this record once checked at its source",
                line=line_of(sourced.lines, r.loc)))
    return problems


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
                                     record.model, identity_key(record.model), p.meter,
                                     listed * usd, listed, plist.currency, plist.unit,
                                     record.from_, record.to, record.outlier_is_real))
    table = pd.DataFrame(rows, columns=["file", "loc", "model", "identity", "meter",
                                        "usd_per_mtok", "list_per_mtok", "currency", "unit",
                                        "start", "end", "confirmed"])
    for column in ("start", "end"):
        table[column] = pd.to_datetime(table[column], utc=True).astype(INSTANT)
    return table.assign(row=np.arange(len(table)))


def _listed(r) -> str:
    """Return a curated price as listed, and in USD when listed in another currency."""
    return (f"{_money(r.list_per_mtok)} {r.currency} per Mtok (≈ ${_money(r.usd_per_mtok)})"
            if r.currency != "USD" else f"${_money(r.usd_per_mtok)} per Mtok")


def _problem(r, files: Mapping[str, Sourced[PriceFile]], named: str) -> Problem:
    sourced = files[r.file]
    above = r.ratio > 1
    times = r.ratio if above else 1 / r.ratio
    seen = r.seen.strftime(SNAPSHOT_FORMAT)[:10]
    figure = (f"${_money(r.median)} per Mtok, the median of {r.listings} providers in "
              f"{r.sources}, seen {seen}" if r.listings > 1 else
              f"${_money(r.median)} per Mtok in {r.sources}, seen {seen}")
    return Problem(sourced.path, ".".join(map(str, r.loc)),
                   f"{r.model} {r.meter}: {_listed(r)} is ×{round_times(times)} "
                   f"{'above' if above else 'below'} the catalogues' price ({figure}; compared "
                   f"with {named}); check the list's unit ({r.unit}) for a slip, or set "
                   "`outlier_is_real: true` on this record once checked at its source",
                   line=line_of(sourced.lines, r.loc))


def _money(value: float) -> str:
    return f"{value:,.2f}" if value >= 0.1 else f"{value:.4g}"
