"""Pure: the page of each tracked model (those the curated files price, plus the `track:` list of
`catalogues.yaml`): every dated price of it with its source, and its price-history chart.

A curated model's history is its records, list by list, in each list's currency; a catalogue
model's is the first published catalogue's periods (US dollars), dated by the snapshot that
first showed each. Both up to the newest edition's day: a later price is not shown yet.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from pipeline.compose.list_moves import ListMove, list_move
from pipeline.compose.prices_page import PriceHistory
from pipeline.models.prices import PriceList
from pipeline.models.sources import Sources
from pipeline.normalize.units import METER_TITLES
from pipeline.tables.catalogue_history import base_prices, snapshot_time
from pipeline.tables.cost import day_end, tier_price

METERS = ("input", "cached_input", "output")
METER_NAMES = {m: METER_TITLES[m].capitalize() for m in METERS}
"""The meters as column heads and chart lines: `Cached input`."""


@dataclass(frozen=True)
class PriceRow:
    """The base prices (per Mtok in the list's currency) that held from `date`, and where."""

    date: dt.date
    prices: tuple[float | None, ...]
    """One per METERS; None where the source gives none."""
    source: str
    url: str
    note: str = ""


@dataclass(frozen=True)
class PriceListHistory:
    """One list's (or one catalogue's) prices of a model over time."""

    title: str
    """`DeepSeek, CNY list (curated)`, `LiteLLM model price map`."""
    currency: str
    rows: tuple[PriceRow, ...]


@dataclass(frozen=True)
class ModelPage:
    provider: str
    model: str
    slug: str
    lists: tuple[PriceListHistory, ...]
    chart: PriceHistory
    elsewhere: tuple[ListMove, ...] = ()
    """Moves in a list the blends do not quote, which no other list moved with: marked on the
    chart and told under it (compose/list_moves.py)."""
    provider_name: str = ""
    """The provider's name as its curated file writes it (`DeepSeek`); its id without one."""

    @property
    def title(self) -> str:
        return f"{self.provider_name or self.provider} {self.model}"


def slug(text: str) -> str:
    """Return a file stem or anchor for an id: lower case, runs of anything else as `-`."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def model_slug(provider: str, model: str) -> str:
    """Return the page's file stem: `openai-gpt-4o`, `google-gemini-2-5-pro`."""
    return slug(f"{provider}-{model}")


def chart_name(page_slug: str) -> str:
    """Return the file name of a tracked model's chart, the longest name its page makes
    (`models/<slug>/`, `models/<slug>.md` are shorter)."""
    return f"model-{page_slug}.svg"


def tracked_models(sources: Sources) -> list[tuple[str, str]]:
    """Return (provider, model) of every tracked model: the curated ones by provider, each
    file's models in order, then the `track:` list's others in its order."""
    pairs = [(provider, model) for provider, sourced in sorted(sources.prices.items())
             for model in sourced.model.quote_lists]
    extra = sources.catalogues.track if sources.catalogues else []
    return list(dict.fromkeys([*pairs, *((t.provider, t.model) for t in extra)]))


def model_page(sources: Sources, provider: str, model: str, as_of: dt.date) -> ModelPage:
    """Return the page of one tracked model as of the end of `as_of`."""
    sourced = sources.prices.get(provider)
    curated = [] if sourced is None else [
        h for plist in sourced.model.lists
        if (h := _curated_list(sourced.model.name, plist, model, as_of)) is not None]
    listed = curated or [_from_catalogue(sources, provider, model, as_of)]
    lists = [h for h in listed if h is not None]
    charted = next((h for h in lists if h.currency == "USD"), lists[0] if lists else None)
    lines = []
    if charted is not None:
        for i, meter in enumerate(METERS):
            points = tuple((r.date, r.prices[i]) for r in charted.rows if r.prices[i])
            if points:
                lines.append((METER_NAMES[meter], points))
    elsewhere = [] if sourced is None or charted is None else [
        m for plist in sourced.model.lists if plist.currency != charted.currency
        for r in plist.records if r.model == model and r.from_ <= day_end(as_of)
        if (m := list_move(provider, sourced, plist, r, sources.rates)) is not None and m.alone]
    # The lines end at the model's last change (where it went, if no longer listed), not at the
    # edition's date: a drawing then changes only when its prices do, and a new edition does
    # not redraw every model's (1,200 of them in the benchmark's year). A move in another list
    # is a change too.
    end = charted.rows[-1].date if charted is not None and charted.rows else as_of
    end = max([end, *(m.at.date() for m in elsewhere)])
    unit = charted.currency if charted else "USD"
    marks = tuple((m.at.date(), m.headline(), tuple(
        (METER_NAMES[x.meter] + f", {x.tier.split(', ', 1)[1]}" if ", " in x.tier
         else METER_NAMES[x.meter], usd) for x in m.meters
        if x.meter in METER_NAMES and (usd := m.usd(x)) is not None)) for m in elsewhere
        if unit == "USD")
    name = sourced.model.name if sourced is not None else provider
    chart = PriceHistory(f"{name} {model}: base prices, {unit} per Mtok", end, tuple(lines),
                         marks, f"{unit} per Mtok")
    return ModelPage(provider, model, model_slug(provider, model), tuple(lists), chart,
                     tuple(elsewhere), sourced.model.name if sourced is not None else "")


def _curated_list(name: str, plist: PriceList, model: str,
                  as_of: dt.date) -> PriceListHistory | None:
    end = day_end(as_of)
    records = sorted((r for r in plist.records if r.model == model and r.from_ <= end),
                     key=lambda r: r.from_)
    if not records:
        return None
    rows = []
    for r in records:
        prices = tuple(tier_price(plist, r, m, None) for m in METERS)
        notes = [f"until {r.to.date().isoformat()}" if r.to is not None else "",
                 # The base price is the rest-of-week tier, which is not always "standard".
                 f"{r.rest_tier} tier outside its time windows" if r.rest_tier != "standard"
                 else ""]
        note = "; ".join(n for n in notes if n)
        # Labelled by where the link goes: a record may cite a page other than the provider's.
        rows.append(PriceRow(r.from_.date(), prices, r.source_url.host or str(r.source_url),
                             str(r.source_url), note))
    return PriceListHistory(f"{name}, {plist.currency} list (curated)", plist.currency,
                            tuple(rows))


def _from_catalogue(sources: Sources, provider: str, model: str,
             as_of: dt.date) -> PriceListHistory | None:
    """The first published catalogue's history of a model no curated file prices."""
    end = snapshot_time(day_end(as_of))
    for catalogue in sources.published_catalogues():
        h = sources.price_histories[catalogue.id]
        h = h[(h["provider"] == provider) & (h["model"] == model) & (h["first_seen"] <= end)]
        h = base_prices(h, METERS)
        if h.empty:
            continue
        # A row at each snapshot that changed something, with every price in force then
        # (carried over from earlier snapshots), and one where nothing was left.
        rows = []
        gone = h["gone_seen"].where(h["gone_seen"] <= end, "")
        for at in sorted(set(h["first_seen"]) | set(gone[gone != ""])):
            held = h[(h["first_seen"] <= at) & ((gone == "") | (gone > at))]
            prices = dict(zip(held["meter"], held["usd_per_mtok"], strict=True))
            rows.append(PriceRow(dt.date.fromisoformat(at[:10]),
                                 tuple(prices.get(m) for m in METERS), catalogue.name,
                                 str(catalogue.page), "" if prices else "no longer listed"))
        return PriceListHistory(catalogue.name, "USD", tuple(sorted(rows, key=lambda r: r.date)))
    return None

