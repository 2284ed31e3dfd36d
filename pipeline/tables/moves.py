"""Pure: what moved between two instants, price by price, for many pairs of instants at once.

Every published price of every record (meter, cache lifetime, window, context band, mode), the
record in force at each instant by the interval join of tables/quotes.py, then for each pair of
instants an outer join of the prices in force at its start and at its end: a price that appeared,
went, fell or rose is one row. The editions ask it for their windows (previous, date].
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pipeline.models.prices import PriceFile, PriceList, PriceRecord
from pipeline.normalize.units import per_mtok
from pipeline.tables.cost import TierKey, tier_key
from pipeline.tables.quotes import OPEN_END, in_force, micros

TIER_TEXT = ["meter_s", "ttl_s", "window_s", "band_s", "mode_s"]
"""The tier key as text, each part `str()`ed: the order moves are listed in within a model."""


@dataclass(frozen=True)
class PriceMove:
    """One published price that appeared, went, fell or rose between two instants."""

    provider: str
    currency: str
    model: str
    key: TierKey
    kind: str
    """`new`, `removed`, `cut` or `rise`."""
    old_per_mtok: float | None
    new_per_mtok: float | None
    record: PriceRecord
    """The record in force at the later instant, or the earlier one for a removal."""
    whole_model: bool = False
    """True when the model itself had no record at one of the instants."""

    @property
    def change(self) -> float | None:
        if self.old_per_mtok and self.new_per_mtok is not None:
            return self.new_per_mtok / self.old_per_mtok - 1
        return None


@dataclass(frozen=True)
class _Record:
    provider: str
    plist: PriceList
    record: PriceRecord


@dataclass(frozen=True, eq=False)
class Moves:
    """The price moves of each pair of instants asked.

    `table` has one row per pair and moved price: `pair` (its position in `pairs`), `key` (the
    model's position: providers by id, each file's lists in order, each list's models in
    order), `tier` (the TierKey), `old` and `new` (per Mtok in the list's currency, NaN when
    not published), `rid` (the record cited) and `whole` (the model had no record at one end);
    ordered by pair, key and the tier key as text."""

    table: pd.DataFrame
    records: tuple[_Record, ...]
    pairs: tuple[tuple[int, int], ...]
    """(start, end) in micros."""

    def between(self, start: dt.datetime, end: dt.datetime) -> list[PriceMove]:
        """Return every published price that differs between `start` and `end`, list by list.
        Raises KeyError for a pair the table was not built for."""
        pair = self.pairs.index((micros(start), micros(end))) if (
            (micros(start), micros(end)) in self.pairs) else None
        if pair is None:
            raise KeyError(f"the moves table has no pair {start.isoformat()}–{end.isoformat()}")
        bounds = np.searchsorted(self.table["pair"].to_numpy(), [pair, pair + 1])
        rows = self.table.iloc[bounds[0]:bounds[1]]
        moves = []
        for row in rows.itertuples(index=False):
            r = self.records[row.rid]
            moves.append(PriceMove(r.provider, r.plist.currency, r.record.model, row.tier,
                                   row.kind, None if np.isnan(row.old) else float(row.old),
                                   None if np.isnan(row.new) else float(row.new), r.record,
                                   bool(row.whole)))
        return moves


def meter_moves(files: Mapping[str, PriceFile],
                pairs: Iterable[tuple[dt.datetime, dt.datetime]]) -> Moves:
    """Return the price moves between the start and the end of each of `pairs`."""
    records, periods, prices = _published(files)
    wanted = tuple(sorted({(micros(a), micros(b)) for a, b in pairs}))
    at = np.unique(np.array([x for p in wanted for x in p], dtype=np.int64))
    force = in_force(periods, at)
    ends = pd.DataFrame(wanted, columns=["a", "b"], dtype=np.int64).rename_axis("pair")
    ends = ends.reset_index()

    def side(column: str, rid: str) -> pd.DataFrame:
        joined = ends.merge(force, left_on=column, right_on="at")
        return joined[["pair", "key", "rid"]].rename(columns={"rid": rid})

    both = side("a", "rid_a").merge(side("b", "rid_b"), on=["pair", "key"], how="outer")
    both = both.fillna(-1).astype(np.int64)
    both = both[both["rid_a"] != both["rid_b"]]  # one record in force throughout: nothing moved

    def priced(rid: str, value: str) -> pd.DataFrame:
        joined = both.merge(prices, left_on=rid, right_on="rid")
        return joined[["pair", "key", "rid_a", "rid_b", *TIER_TEXT, "tier", "per_mtok"]].rename(
            columns={"per_mtok": value})

    on = ["pair", "key", "rid_a", "rid_b", *TIER_TEXT]
    moved = priced("rid_a", "old").merge(priced("rid_b", "new"), on=on, how="outer",
                                         suffixes=("_a", "_b"))
    old, new = moved["old"].to_numpy(), moved["new"].to_numpy()
    moved = moved[~(old == new)]  # NaN on one side: the price appeared or went
    old, new = moved["old"].to_numpy(), moved["new"].to_numpy()
    kind = np.where(np.isnan(old), "new", np.where(np.isnan(new), "removed",
                                                   np.where(new < old, "cut", "rise")))
    rid_a, rid_b = moved["rid_a"].to_numpy(), moved["rid_b"].to_numpy()
    table = pd.DataFrame({
        "pair": moved["pair"].to_numpy(), "key": moved["key"].to_numpy(),
        **{k: moved[k].to_numpy() for k in TIER_TEXT},
        "tier": moved["tier_b"].combine_first(moved["tier_a"]).to_numpy(),
        "kind": kind, "old": old, "new": new,
        "rid": np.where(rid_b >= 0, rid_b, rid_a), "whole": (rid_a < 0) | (rid_b < 0)})
    table = table.sort_values(["pair", "key", *TIER_TEXT], kind="stable", ignore_index=True)
    return Moves(table, tuple(records), wanted)


def _published(files: Mapping[str, PriceFile]
               ) -> tuple[list[_Record], pd.DataFrame, pd.DataFrame]:
    """Return every record, one row per record (rid, key, start, end) and one per published
    price (rid, the tier key as text and as a tuple, per_mtok in the list's currency)."""
    records: list[_Record] = []
    periods, prices = [], []
    key = 0
    for provider, price_file in sorted(files.items()):
        for plist in price_file.lists:
            for _starts, model_records in plist.periods.values():
                for record in model_records:
                    rid = len(records)
                    records.append(_Record(provider, plist, record))
                    periods.append((rid, key, micros(record.from_),
                                    OPEN_END if record.to is None else micros(record.to)))
                    # One price per tier key, the last given, as a record's prices read.
                    tiers = {tier_key(p): per_mtok(p.price, plist.unit) for p in record.prices}
                    prices += [(rid, *map(str, tier), tier, value)
                               for tier, value in tiers.items()]
                key += 1
    return (records,
            pd.DataFrame(periods, columns=["rid", "key", "start", "end"], dtype=np.int64),
            pd.DataFrame(prices, columns=["rid", *TIER_TEXT, "tier", "per_mtok"]).astype(
                {"rid": np.int64, "per_mtok": float}))
