"""Pure: what the prices contribute to an edition: Context & numbers figures, On the radar
items (the figures entries state are checked against ours in compose/claims.py)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

from pipeline.compose.list_moves import ListMove, list_move, tier_words
from pipeline.compose.numbers import money, percent, since_words, three_figures, units_per_usd
from pipeline.compose.types import Citation, Figure, RadarItem
from pipeline.models.prices import PriceFile, PriceList, PriceRecord, WorkloadProfile
from pipeline.models.rates import RateTable
from pipeline.models.sourced import Sourced
from pipeline.normalize.fx import RateNotFound, rate_on
from pipeline.normalize.units import METER_TITLES
from pipeline.tables.cost import day_end, record_at, tier_price
from pipeline.tables.moves import Moves, PriceMove, meter_moves
from pipeline.tables.quotes import Quotes, quotes

FIRST_EDITION_LOOKBACK = dt.timedelta(days=7)
"""The first edition has no previous one; it reports moves of the week before it."""



def citation(sourced: Sourced[PriceFile], plist: PriceList, record: PriceRecord) -> Citation:
    """Return the citation of a price record: its page, our file, and the record's anchor."""
    ref = f"{plist.currency.lower()}-{record.model}-{record.from_:%Y%m%d%H%M}"
    return Citation(f"{sourced.model.name} pricing", str(record.source_url), sourced.path, ref)


def _window_start(date: dt.date, previous: dt.date | None) -> dt.datetime:
    return day_end(previous) if previous else day_end(date - FIRST_EDITION_LOOKBACK)


def _move_text(sourced: Sourced[PriceFile], plist: PriceList, move: PriceMove,
               rates: RateTable, at: dt.datetime) -> str:
    tier = tier_words(plist, move.record, move.key)
    cur = plist.currency
    if move.kind == "removed":
        return f"{tier}: {money(move.old_per_mtok or 0, cur)} per Mtok no longer listed"
    new = move.new_per_mtok or 0.0
    text = f"{tier}: {money(new, cur)} per Mtok"
    if move.kind in ("cut", "rise") and move.old_per_mtok:
        text += f" (was {money(move.old_per_mtok, cur)}, {percent(move.change, signed=True)})"
    if cur != "USD":
        try:
            rate = rate_on(rates, cur, move.record.from_.date())
            text += (f", ≈ {money(new * rate.usd_per_unit, 'USD', computed=True)} at the ECB rate of "
                     f"{rate.date.isoformat()} ({units_per_usd(rate.usd_per_unit, cur)})")
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
    previous edition list by list, the cheapest tokens per dollar per profile, and the blended
    prices that moved.
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
    list_moves: list[ListMove] = []
    told_in: set[str] = set()  # where the moves told as any list's are: "tiers", "lists"
    for (provider, currency, model), group in groups.items():
        sourced = files[provider]
        plist = next(p for p in sourced.model.lists if p.currency == currency)
        # A list the blends do not quote (DeepSeek's CNY list), which moved alone: compared with
        # the quoted one. When the quoted list moved at the same instant the blends show the
        # move, and it is told as any list's (a model new to all its lists is a new model).
        elsewhere = list_move(provider, sourced, plist, group[0].record, rates)
        if elsewhere is not None and elsewhere.alone:
            list_moves.append(elsewhere)
            figures.append(_list_move_figure(sourced, plist, elsewhere))
        else:
            told_in.add("tiers" if sourced.model.quote_lists.get(model) is plist else "lists")
            figures.append(_list_figure(provider, sourced, currency, model, group, rates,
                                        start, end))
    for profile in profiles:
        best = table.cheapest(end, profile)
        if best:
            q = best.quoted
            figures.append(Figure(
                label=f"Cheapest tokens per dollar, {profile.title}",
                text_md=(f"{q.sourced.model.name} {q.record.model}: {three_figures(best.tokens_per_usd)} "
                         f"tokens per US dollar ({money(best.usd_per_mtok, 'USD', computed=True)} per Mtok "
                         "blended" + (f", from the {q.plist.currency} list at the ECB rate of "
                                      f"{best.fx_date}" if q.plist.currency != "USD" else "")
                         + ")."),
                citations=(citation(q.sourced, q.plist, q.record),),
                id=f"cheapest-{profile.id}"))
    if profiles:
        figures.append(_blend_moves_figure(table, profiles[0], start, end,
                                           since_words(date, previous, FIRST_EDITION_LOOKBACK),
                                           list_moves, " or ".join(sorted(told_in))))
    return figures


def _list_figure(provider: str, sourced: Sourced[PriceFile], currency: str, model: str,
                 group: list[PriceMove], rates: RateTable, start: dt.datetime,
                 end: dt.datetime) -> Figure:
    """Return the figure of one model's moves in one list over an edition's window."""
    plist = next(p for p in sourced.model.lists if p.currency == currency)
    record = group[0].record
    kinds = {m.kind for m in group}
    first_here = all(m.whole_model for m in group) and kinds == {"new"}
    # The model priced before the window in the provider's other lists: new to this list is
    # then a repricing (a model new to all its lists at once is a new model).
    elsewhere = [p for p in sourced.model.lists
                 if p.currency != currency and record_at(p, model, start) is not None]
    verb = (f"new {currency} prices" if first_here and elsewhere
            else "new model" if first_here
            else "cut" if kinds <= {"cut", "removed", "new"} and "cut" in kinds
            else "rise" if kinds <= {"rise", "new", "removed"} and "rise" in kinds
            else "price change")
    text = "; ".join(_move_text(sourced, plist, m, rates, end) for m in group) + "."
    if first_here and elsewhere:
        others = " and ".join(f"{p.currency}" for p in elsewhere)
        text += (f" A repricing, not a new model: no earlier {currency} price of {model} is "
                 f"recorded, and the {others} prices beside are {sourced.model.name}'s "
                 f"{others} list, another list.")
    missing = [METER_TITLES[m] for m in ("input", "output")
               if all(p.meter != m for p in record.prices)]
    if missing:
        given = sorted({METER_TITLES[p.meter] for p in record.prices})
        listed = ", ".join(given[:-1]) + " and " + given[-1] if len(given) > 1 else given[0]
        text += (f" This record gives only {listed} prices (no {' or '.join(missing)} price), "
                 "so no blended price comes from it.")
    when = record.from_.date().isoformat()
    return Figure(label=f"{sourced.model.name} {model} ({currency} list): {verb} from {when}",
                  text_md=text, citations=(citation(sourced, plist, record),),
                  id=f"price-{provider}-{currency.lower()}-{model}-{when}")


def _list_move_figure(sourced: Sourced[PriceFile], plist: PriceList, move: ListMove) -> Figure:
    """Return the figure of a move in a list no blend quotes: the same words as the chart's alt
    text, the Market page and the model page (compose/list_moves.py)."""
    why = move.why_no_blend()
    return Figure(label=f"{move.name} {move.model} ({move.currency} list): {move.kind} from "
                        f"{move.day}",
                  text_md=f"{move.comparison()}. {why[0].upper()}{why[1:]}.",
                  citations=(citation(sourced, plist, move.record),),
                  id=f"price-{move.provider}-{move.currency.lower()}-{move.model}-{move.day}")


def _blend_moves_figure(table: Quotes, profile: WorkloadProfile, start: dt.datetime,
                        end: dt.datetime, since: str, list_moves: list[ListMove],
                        listed: str) -> Figure:
    """Return the figure of the blended prices that moved over the window, biggest move first,
    with how many of the tracked models moved (a median of mostly unmoved models hid them).
    `since`: the window in words (`since 2026-09-04`); `list_moves`: the window's moves in lists
    no blend quotes, named rather than counted as no move; `listed`: where the window's other
    price moves, told in their own figures, are (`tiers`, `lists or tiers`), empty when none."""
    found = table.blend_moves(start, end, profile)
    moved = sorted(((new / old - 1, old, new, q) for old, new, q in found if new != old),
                   key=lambda m: (-abs(m[0]), m[3].provider, m[3].record.model))
    if not moved:
        # The list moves are told after this sentence: the rest are then the "other" moves.
        other = "other " if list_moves else ""
        why = f": the {other}moves above are in {listed} that no blend quotes" if listed else ""
        text = (f"No blended price moved across the {len(found)} tracked models "
                f"({profile.title}){why}.")
        for m in list_moves:
            text += (f" {m.name} {m.model}'s prices did move, in its {m.currency} list on "
                     f"{m.day} (above), but {m.why_no_blend()}.")
        return Figure(label=f"Blended prices {since}", text_md=text,
                      citations=(), id="blend-moves")
    parts = [f"{q.sourced.model.name} {q.record.model} ({q.plist.currency} list) "
             f"{money(old, q.plist.currency, computed=True)} → "
             f"{money(new, q.plist.currency, computed=True)} per Mtok "
             f"({percent(change, 1, signed=True)}, from {q.record.from_.date().isoformat()})"
             for change, old, new, q in moved]
    return Figure(label=f"Blended prices {since}: {len(moved)} of {len(found)} "
                        "tracked models moved",
                  text_md=f"{profile.title}, each in its list's currency: " + "; ".join(parts)
                          + ".",
                  citations=tuple(dict.fromkeys(citation(q.sourced, q.plist, q.record)
                                                for *_, q in moved)),
                  id="blend-moves")


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
                    label=f"{sourced.model.name} {record.model}: new prices",
                    text_md="Per Mtok: " + ", ".join(parts) + ".",
                    citations=(citation(sourced, plist, record),), due=due, known=record.checked,
                    provider=provider,
                    id=f"radar-{provider}-{record.model}-{due.isoformat()}"))
    return items
