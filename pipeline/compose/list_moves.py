"""Pure: a price move in a list that no blend quotes, and the one set of sentences every page
tells it in.

A model's blends quote one of its lists (`PriceFile.quote_lists`: the USD list when it prices the
model). DeepSeek's Flash cut of 2026-09-10 was recorded in its CNY list only, so no blended price
moved, yet it is the edition's lead. Every place that would read "no move" (the edition's figures,
its chart and alt text, the Market page's Since, the model page's chart) says instead which
meters moved, in which list, on what date, how they compare with the quoted list at the ECB rate
of the record's date, and why no blend comes from it: all from one `ListMove`, so they agree.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pipeline.compose.numbers import change_percent, grouped, money, units_per_usd
from pipeline.models.prices import PriceFile, PriceList, PriceRecord
from pipeline.models.rates import RateTable
from pipeline.models.sourced import Sourced
from pipeline.normalize.fx import RateNotFound, rate_on
from pipeline.normalize.units import METER_TITLES
from pipeline.normalize.windows import record_windows
from pipeline.tables.cost import TierKey, record_at, tier_key, tier_price

BLEND_METERS = ("input", "output")
"""The meters every blend needs: a record without one of them gives no blended price."""
METER_ORDER = ("input", "cached_input", "cache_write", "output")
_BEFORE = dt.timedelta(microseconds=1)


def tier_words(plist: PriceList, record: PriceRecord, key: TierKey) -> str:
    """Return a tier as a reader names it: `input, peak`, `cached input (60 min), off-peak`."""
    meter, ttl, window, band, mode = key
    words = [METER_TITLES[meter] + (f" ({ttl} min)" if ttl else "")]
    if window:
        words.append(plist.window(window).tier)
    elif record.rest_tier != "standard":
        words.append(record.rest_tier)
    if band:
        words.append(f"prompts over {grouped(band)} tokens")
    if mode != "realtime":
        words.append(mode)
    return ", ".join(words)


@dataclass(frozen=True)
class MeterMove:
    """One tier of the moved record: its price, what it replaced in the same list, and the quoted
    list's price of the same meter and tier when the record took effect."""

    meter: str
    tier: str
    """`input, peak`."""
    per_mtok: float | None
    """In the moved list's currency; None when the tier is no longer listed."""
    was_per_mtok: float | None
    """The same list's price before, when it had one."""
    quoted_per_mtok: float | None
    """The quoted list's price, in its currency, when it gives one."""


@dataclass(frozen=True)
class ListMove:
    """A record of a list the model's blends do not quote, taking effect at `at`."""

    provider: str
    name: str
    """The provider as readers see it: `DeepSeek`."""
    model: str
    currency: str
    """The list that moved."""
    quoted_currency: str
    """The list the blends quote."""
    record: PriceRecord
    meters: tuple[MeterMove, ...]
    usd_per_unit: float | None
    """The ECB rate of the record's date, None when there is none."""
    fx_date: dt.date | None
    quoted_since: dt.datetime | None
    """When the quoted list's record in force at `at` took effect (None: it had none)."""

    @property
    def at(self) -> dt.datetime:
        return self.record.from_

    @property
    def day(self) -> str:
        return self.at.date().isoformat()

    @property
    def alone(self) -> bool:
        """The quoted list did not move at the same instant: no blend shows this move."""
        return self.quoted_since is None or self.quoted_since < self.at

    def usd(self, m: MeterMove) -> float | None:
        """A moved meter's new price in USD at the ECB rate, when there is one."""
        return self._usd(m)

    def _usd(self, m: MeterMove) -> float | None:
        if m.per_mtok is None or self.usd_per_unit is None:
            return None
        return m.per_mtok * self.usd_per_unit

    def _quoted_usd(self, m: MeterMove) -> float | None:
        # The quoted list is the USD one whenever the model has one; another is not compared
        # across two conversions.
        return m.quoted_per_mtok if self.quoted_currency == "USD" else None

    @property
    def kind(self) -> str:
        """`cut` or `rise` when every compared meter is below (above) the quoted list's, else
        `price change`."""
        changes = [u / q - 1 for m in self.meters
                   if (u := self._usd(m)) is not None and (q := self._quoted_usd(m))]
        if changes and all(c < 0 for c in changes):
            return "cut"
        if changes and all(c > 0 for c in changes):
            return "rise"
        return "price change"

    def meter_text(self, m: MeterMove) -> str:
        """`input, peak: $0.44 (USD list) → ¥0.10 ≈ $0.0149 (CNY list), ≈ −97 %`."""
        cur, quoted = self.currency, self.quoted_currency
        if m.per_mtok is None:
            return f"{m.tier}: {money(m.was_per_mtok or 0, cur)} ({cur} list) no longer listed"
        new = money(m.per_mtok, cur)
        usd, q_usd = self._usd(m), self._quoted_usd(m)
        if usd is not None and cur != "USD":
            new += f" ≈ {money(usd, 'USD', computed=True)}"
        if m.quoted_per_mtok is None:
            text = f"{m.tier}: {new} ({cur} list; the {quoted} list gives none)"
        else:
            text = f"{m.tier}: {money(m.quoted_per_mtok, quoted)} ({quoted} list) → {new} ({cur} list)"
            if usd is not None and q_usd:
                text += f", ≈ {change_percent(usd / q_usd - 1)}"
        if m.was_per_mtok is not None:
            text += f"; was {money(m.was_per_mtok, cur)} in the {cur} list"
        return text

    def comparison(self) -> str:
        """Every moved meter against the quoted list, and the rate it converts at."""
        text = "; ".join(self.meter_text(m) for m in self.meters)
        if self.currency == "USD":
            return text
        if self.fx_date is None or not self.usd_per_unit:
            return text + f"; no ECB rate to convert {self.currency}"
        return (text + f", at the ECB rate of {self.fx_date.isoformat()} "
                f"({units_per_usd(self.usd_per_unit, self.currency)})")

    def why_no_blend(self) -> str:
        """Why no blended price comes from this record."""
        given = sorted({METER_TITLES[p.meter] for p in self.record.prices})
        missing = [METER_TITLES[m] for m in BLEND_METERS
                   if all(p.meter != m for p in self.record.prices)]
        reasons = []
        if missing:
            listed = ", ".join(given[:-1]) + " and " + given[-1] if len(given) > 1 else given[0]
            reasons.append(f"the {self.currency} record gives only {listed} prices "
                           f"(no {' or '.join(missing)} price)")
        quoted = f"the blends quote {self.name}'s {self.quoted_currency} list"
        if self.quoted_since is None:
            quoted += f", which had no price of {self.model} then"
        elif self.quoted_since < self.at:
            quoted += f", unchanged since {self.quoted_since.date().isoformat()}"
        else:
            quoted += f", which moved on {self.quoted_since.date().isoformat()} too"
        reasons.append(quoted)
        return "no blended price comes from it: " + ", and ".join(reasons)

    def headline(self) -> str:
        """`CNY list cut on 2026-09-10`."""
        return f"{self.currency} list {self.kind} on {self.day}"

    def story(self) -> str:
        """The whole story without the model's name: `CNY list cut on 2026-09-10 (…); no
        blended price comes from it: …`."""
        return f"{self.headline()} ({self.comparison()}); {self.why_no_blend()}"

    def sentence(self) -> str:
        """The whole story in one sentence, as every page but the edition's figure tells it."""
        return f"{self.name} {self.model}: {self.story()}."

    def brief(self) -> str:
        """The story short enough to draw under a chart: `CNY list cut on 2026-09-10: input,
        peak ≈ −97 %, cached input, off-peak ≈ −57 % against the USD list; no blend from it`."""
        changes = [f"{m.tier} ≈ {change_percent(u / q - 1)}" for m in self.meters
                   if (u := self._usd(m)) is not None and (q := self._quoted_usd(m))]
        against = (f": {', '.join(changes)} against the {self.quoted_currency} list"
                   if changes else "")
        return f"{self.headline()}{against}; no blend comes from it"


def list_move(provider: str, sourced: Sourced[PriceFile], plist: PriceList,
              record: PriceRecord, rates: RateTable | None) -> ListMove | None:
    """Return the move of `record` when its list is not the one its model's blends quote."""
    quoted = sourced.model.quote_lists.get(record.model)
    if quoted is None or quoted is plist:
        return None
    before = record_at(plist, record.model, record.from_ - _BEFORE)
    against = record_at(quoted, record.model, record.from_)
    now = {tier_key(p): tier_price(plist, record, p.meter, p.window,
                                   p.context_above_tokens + 1 if p.context_above_tokens else 0,
                                   p.mode, p.ttl_minutes) for p in record.prices}
    was = {} if before is None else {
        tier_key(p): (before, p) for p in before.prices}
    meters = []
    for key in sorted({*now, *was}, key=_reading_order):
        old = None
        if key in was:
            r, p = was[key]
            old = tier_price(plist, r, p.meter, p.window, p.context_above_tokens + 1
                             if p.context_above_tokens else 0, p.mode, p.ttl_minutes)
        if key in now and now[key] == old:
            continue  # the same price in the new record: not a move
        source = record if key in now else before
        assert source is not None
        meters.append(MeterMove(key[0], tier_words(plist, source, key), now.get(key), old,
                                _quoted_price(plist, source, quoted, against, key)))
    try:
        rate = rate_on(rates, plist.currency, record.from_.date()) if rates else None
    except RateNotFound:
        rate = None
    return ListMove(provider, sourced.model.name, record.model, plist.currency,
                    quoted.currency, record, tuple(meters),
                    None if rate is None else rate.usd_per_unit, rate and rate.date,
                    None if against is None else against.from_)


def _reading_order(key: TierKey) -> tuple:
    # Input first, as a reader weighs the meters; then the rest of the key as text.
    meter = key[0]
    return (METER_ORDER.index(meter) if meter in METER_ORDER else len(METER_ORDER),
            *map(str, key))


def _quoted_price(plist: PriceList, record: PriceRecord, quoted: PriceList,
                  against: PriceRecord | None, key: TierKey) -> float | None:
    """The quoted list's price of the same meter, in the same kind of hours (peak, off-peak):
    two lists name their windows each in its own time zone, so the tier is what matches."""
    if against is None:
        return None
    meter, ttl, window, band, mode = key
    tier = plist.window(window).tier if window else record.rest_tier
    if tier == against.rest_tier:
        theirs = None
    else:
        theirs = next((w.name for w in record_windows(quoted, against) if w.tier == tier), None)
        if theirs is None:
            return None
    return tier_price(quoted, against, meter, theirs, band + 1 if band else 0, mode, ttl)


def window_list_moves(files: Mapping[str, Sourced[PriceFile]], rates: RateTable | None,
                      records: Iterable[tuple[str, str, PriceRecord]]) -> list[ListMove]:
    """Return the list moves of `records` ((provider, currency, record) of a window's price
    moves, tables/moves.py) that no blend shows (`ListMove.alone`), once each, in the order
    given: a move beside one of the quoted list is the blend's own move, marked as such."""
    out, seen = [], set()
    for provider, currency, record in records:
        if id(record) in seen:  # a record moves several prices: one move of it
            continue
        seen.add(id(record))
        sourced = files[provider]
        plist = next(p for p in sourced.model.lists if p.currency == currency)
        move = list_move(provider, sourced, plist, record, rates)
        if move is not None and move.alone:
            out.append(move)
    return out


def newest_list_moves(files: Mapping[str, Sourced[PriceFile]], rates: RateTable | None,
                      at: dt.datetime) -> dict[tuple[str, str], ListMove]:
    """Return, by (provider, model), the move of each model whose newest record in force at
    `at` is in a list its blends do not quote: the model's last change is that list's."""
    out = {}
    for provider, sourced in sorted(files.items()):
        for model, quoted in sourced.model.quote_lists.items():
            mine = record_at(quoted, model, at)
            others = [(r.from_, p, r) for p in sourced.model.lists if p is not quoted
                      if (r := record_at(p, model, at)) is not None
                      and (mine is None or r.from_ > mine.from_)]
            if others:
                _, plist, record = max(others, key=lambda o: o[0])
                move = list_move(provider, sourced, plist, record, rates)
                if move is not None:
                    out[(provider, model)] = move
    return out
