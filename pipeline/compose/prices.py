"""Pure: what the prices contribute to an edition: Context & numbers figures, On the radar
items, and the check of figures that entries state against ours (issue 3)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping

from pipeline.compose.types import Citation, Figure, RadarItem
from pipeline.models.prices import PriceFile, PriceList, PriceRecord, WorkloadProfile
from pipeline.models.sourced import Sourced
from pipeline.normalize.fx import RateNotFound, RateTable, rate_on
from pipeline.normalize.units import METER_TITLES
from pipeline.problems import Problem
from pipeline.tables.cost import day_end, median_change, record_at, tier_price
from pipeline.tables.moves import Moves, PriceMove, meter_moves
from pipeline.tables.quotes import Quotes, quotes

FIRST_EDITION_LOOKBACK = dt.timedelta(days=7)
"""The first edition has no previous one; it reports moves of the week before it."""
SYMBOLS = {"USD": "$", "CNY": "¥", "EUR": "€", "GBP": "£", "JPY": "¥"}
CLAIM_TOLERANCE = 0.02


def money(amount: float, currency: str) -> str:
    """Return `amount` with its currency sign and enough digits for sub-cent prices."""
    sign = SYMBOLS.get(currency)
    digits = f"{amount:.4g}" if abs(amount) < 0.1 else f"{amount:,.2f}"
    return f"{sign}{digits}" if sign else f"{digits} {currency}"


def citation(sourced: Sourced[PriceFile], plist: PriceList, record: PriceRecord) -> Citation:
    """Return the citation of a price record: its page, our file, and the record's anchor."""
    ref = f"{plist.currency.lower()}-{record.model}-{record.from_:%Y%m%d%H%M}"
    return Citation(f"{sourced.model.name} pricing", str(record.source_url), sourced.path, ref)


def _window_start(date: dt.date, previous: dt.date | None) -> dt.datetime:
    return day_end(previous) if previous else day_end(date - FIRST_EDITION_LOOKBACK)


def _tier_words(plist: PriceList, move: PriceMove) -> str:
    meter, ttl, window, band, mode = move.key
    words = [METER_TITLES[meter] + (f" ({ttl} min)" if ttl else "")]
    if window:
        words.append(plist.window(window).tier)
    elif any(w for w in (move.record.rest_tier,) if w != "standard"):
        words.append(move.record.rest_tier)
    if band:
        words.append(f"prompts over {band:,} tokens")
    if mode != "realtime":
        words.append(mode)
    return ", ".join(words)


def _move_text(sourced: Sourced[PriceFile], plist: PriceList, move: PriceMove,
               rates: RateTable, at: dt.datetime) -> str:
    tier = _tier_words(plist, move)
    cur = plist.currency
    if move.kind == "removed":
        return f"{tier}: {money(move.old_per_mtok or 0, cur)} per Mtok no longer listed"
    new = move.new_per_mtok or 0.0
    text = f"{tier}: {money(new, cur)} per Mtok"
    if move.kind in ("cut", "rise") and move.old_per_mtok:
        text += f" (was {money(move.old_per_mtok, cur)}, {move.change:+.0%})"
    if cur != "USD":
        try:
            rate = rate_on(rates, cur, move.record.from_.date())
            text += (f", ≈ {money(new * rate.usd_per_unit, 'USD')} at the ECB rate of "
                     f"{rate.date.isoformat()} ({1 / rate.usd_per_unit:.4f} {cur} per USD)")
        except RateNotFound:
            text += ", no ECB rate to convert it"
        usd = next((p for p in sourced.model.lists if p.currency == "USD"), None)
        usd_record = record_at(usd, move.model, at) if usd else None
        if usd and usd_record:
            meter, ttl, window, band, mode = move.key
            own = tier_price(usd, usd_record, meter, window, band + 1 if band else 0, mode, ttl)
            if own is not None:
                text += f"; {sourced.model.name}'s own USD list: {money(own, 'USD')}"
    return text


def price_figures(files: Mapping[str, Sourced[PriceFile]], rates: RateTable,
                  profiles: list[WorkloadProfile], date: dt.date,
                  previous: dt.date | None, table: Quotes | None = None,
                  moved: Moves | None = None) -> list[Figure]:
    """Return the Context & numbers figures of the edition of `date`: price moves since the
    previous edition, the cheapest tokens per dollar per profile, and the median change.
    `table`: the blended prices at the window's start and end (tables/quotes.py), `moved` the
    price moves over the window (tables/moves.py), when composing many editions; else they are
    computed here."""
    start, end = _window_start(date, previous), day_end(date)
    table = table if table is not None else quotes(files, rates, profiles, [start, end])
    moved = moved if moved is not None else meter_moves(
        {k: v.model for k, v in files.items()}, [(start, end)])
    figures: list[Figure] = []
    moves = moved.between(start, end)
    groups: dict[tuple[str, str, str], list[PriceMove]] = {}
    for move in moves:
        groups.setdefault((move.provider, move.currency, move.model), []).append(move)
    for (provider, currency, model), group in groups.items():
        sourced = files[provider]
        plist = next(p for p in sourced.model.lists if p.currency == currency)
        record = group[0].record
        kinds = {m.kind for m in group}
        verb = ("new model" if all(m.whole_model for m in group) and kinds == {"new"}
                else "cut" if kinds <= {"cut", "removed", "new"} and "cut" in kinds
                else "rise" if kinds <= {"rise", "new", "removed"} and "rise" in kinds
                else "price change")
        parts = [_move_text(sourced, plist, m, rates, end) for m in group]
        when = record.from_.date().isoformat()
        figures.append(Figure(
            label=f"{sourced.model.name} {model} ({currency} list): {verb} from {when}",
            text_md="; ".join(parts) + ".",
            citations=(citation(sourced, plist, record),),
            id=f"price-{provider}-{currency.lower()}-{model}-{when}"))
    for profile in profiles:
        best = table.cheapest(end, profile)
        if best and best.usd_per_mtok is not None and best.tokens_per_usd is not None:
            q = best.quoted
            fx_date = best.fx_date.isoformat() if best.fx_date else ""
            figures.append(Figure(
                label=f"Cheapest tokens per dollar, {profile.title}",
                text_md=(f"{q.sourced.model.name} {q.record.model}: {best.tokens_per_usd:,.0f} "
                         f"tokens per US dollar ({money(best.usd_per_mtok, 'USD')} per Mtok "
                         "blended" + (f", from the {q.plist.currency} list at the ECB rate of "
                                      f"{fx_date}" if q.plist.currency != "USD" else "")
                         + ")."),
                citations=(citation(q.sourced, q.plist, q.record),),
                id=f"cheapest-{profile.id}"))
    if profiles:
        figure = _median_figure(table, profiles[0], start, end, previous)
        if figure:
            figures.append(figure)
    return figures


def _median_figure(table: Quotes, profile: WorkloadProfile, start: dt.datetime,
                   end: dt.datetime, previous: dt.date | None) -> Figure | None:
    found = table.changes(start, end, profile)
    changes = [change for change, _ in found]
    cites = [citation(q.sourced, q.plist, q.record) for change, q in found if change]
    median = median_change(changes)
    if median is None:
        return None
    since = previous.isoformat() if previous else start.date().isoformat()
    moved = sum(1 for c in changes if c)
    return Figure(label=f"Median price change since {since}",
                  text_md=(f"{median:+.1%} across {len(changes)} tracked models "
                           f"({profile.title}, in each list's own currency); {moved} moved."),
                  citations=tuple(cites), id="median-change")


def price_radar(files: Mapping[str, Sourced[PriceFile]], date: dt.date) -> list[RadarItem]:
    """Return On the radar items for price records that start after the edition of `date` and
    were known by then (checked on or before it): a later source never changes an earlier
    edition, and a year of history does not put every later month on every edition's radar."""
    items = []
    end = day_end(date)
    for provider, sourced in sorted(files.items()):
        for plist in sourced.model.lists:
            ahead = [r for r in plist.records if r.from_ > end and r.checked <= date]
            for record in sorted(ahead, key=lambda r: r.from_):
                now = record_at(plist, record.model, end)
                parts = []
                for p in record.prices:
                    text = f"{METER_TITLES[p.meter]} {money(p.price, plist.currency)}"
                    if now is not None:
                        old = tier_price(plist, now, p.meter, p.window, p.context_above_tokens + 1
                                         if p.context_above_tokens else 0, p.mode, p.ttl_minutes)
                        if old is not None:
                            text += f" (now {money(old, plist.currency)})"
                    parts.append(text)
                due = record.from_.date()
                items.append(RadarItem(
                    label=f"{sourced.model.name} {record.model}: new prices from {due.isoformat()}",
                    text_md="Per Mtok: " + ", ".join(parts) + ".",
                    citations=(citation(sourced, plist, record),), due=due,
                    id=f"radar-{provider}-{record.model}-{due.isoformat()}"))
    return items


def claim_problems(claims: Iterable[tuple[str, str, float, float]],
                   tolerance: float = CLAIM_TOLERANCE) -> list[Problem]:
    """Return a warning for each (path, field, stated, ours) where an entry's stated figure
    differs from ours by more than `tolerance` (2 %) of ours."""
    problems = []
    for path, field, stated, ours in claims:
        if ours == 0 or abs(stated - ours) / abs(ours) > tolerance:
            diff = "" if ours == 0 else f" ({(stated - ours) / ours:+.1%})"
            problems.append(Problem(path, field, f"states {stated:g} but our figure is "
                                    f"{ours:.6g}{diff}; check the figure or its conversion",
                                    severity="warning"))
    return problems


def claimed_usd_per_mtok(files: Mapping[str, PriceFile], rates: RateTable, provider: str,
                         currency: str, model: str, meter: str, at: dt.datetime,
                         window: str | None = None) -> float | None:
    """Return our USD per Mtok for a price an entry quotes (its list's price, converted at the
    ECB rate of the record's date), for `claim_problems`."""
    plist = next((p for p in files[provider].lists if p.currency == currency), None)
    record = plist and record_at(plist, model, at)
    if record is None:
        return None
    value = tier_price(plist, record, meter, window)
    if value is None:
        return None
    return value * rate_on(rates, currency, record.from_.date()).usd_per_unit
