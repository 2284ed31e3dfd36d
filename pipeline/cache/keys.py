"""Pure: what each computed part of an edition reads, as a digest, so a build can reuse the parts
whose inputs did not change (issue 8: one new edition must not recompose a year of them).

An edition is its curated entries (cheap, always recomposed) plus five computed parts:

- feed stories: the feed items published in the edition's window, the feeds' settings and topics,
  and what the curated entries leave to fill (quota, their links);
- price figures and radar: the price records known by the edition's date (started by then or
  checked by then) and the ECB rates up to it; records are ordered by that day, so each edition's
  digest is a running digest's state at its date and a price change only touches the editions
  from the change on;
- hardware figures and radar: all hardware sources (they change a few times a year);
- catalogue figures: the catalogues' histories, names and health, and the curated prices known
  by the edition's date (the curated models are left out of its window's moves);
- market economics: the curated prices, rates and hardware, the published catalogues' histories
  and the edition dates up to the edition's (`InputDigests.economics`).

The store adds to every key the digest of the code that computes the part (cache/code.py: the
module of the function and what it imports), so a change to how a part is computed recomputes
it. Each lane's declaration names the digest it is kept under (compose/lanes.py); a page family
is kept under the digests of the `Sources` attributes it declares it reads (`SOURCE_DIGESTS`).
"""

from __future__ import annotations

import bisect
import datetime as dt
import hashlib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

if TYPE_CHECKING:
    import pandas as pd

    from pipeline.models.rates import RateTable

from pipeline.compose.edition_tables import EditionTables, FeedAsk
from pipeline.compose.rank import FIRST_EDITION_DAYS
from pipeline.models.sources import Sources
from pipeline.paths import FEED_SNAPSHOTS, price_history_path


def model_digest(model: BaseModel) -> str:
    """Return the digest of a model's JSON, serialized now."""
    return hashlib.sha256(model.model_dump_json().encode()).hexdigest()


class RecordDigests:
    """The digest of each price record's and feed item's JSON: what keys know them by.

    Serializing them was most of computing the keys (~0.1 s for a year's 15,000 price records,
    ~0.3 s for 20,000 feed items), so `derived` (the parse cache's, when the build has one)
    keeps each file's digests beside the file; digests, not the JSON, so a build holds 64 bytes
    a model rather than its text. Looked up by the model itself, which the build holds until
    it ends."""

    def __init__(self, sources: Sources,
                 derived: Callable[[str, str, Callable[[], Any]], Any] | None = None) -> None:
        derived = derived or (lambda name, what, compute: compute())
        self._json: dict[int, tuple[BaseModel, str]] = {}
        for sourced in sources.prices.values():
            records = [r for plist in sourced.model.lists for r in plist.records]
            self._add(records, derived(sourced.path, "record-digest",
                                       lambda rs=records: [model_digest(r) for r in rs]))
        for feed_id, snap in sources.snapshots.items():
            self._add(snap.items, derived((FEED_SNAPSHOTS / f"{feed_id}.json").as_posix(),
                                          "item-digest",
                                          lambda s=snap: [model_digest(i) for i in s.items]))

    def _add(self, models: Sequence[BaseModel], texts: list[str]) -> None:
        for model, text in zip(models, texts, strict=True):
            self._json[id(model)] = (model, text)

    def __call__(self, model: BaseModel) -> str:
        """Return the digest of a record or item of the sources (any other model: computed)."""
        kept = self._json.get(id(model))
        return kept[1] if kept is not None and kept[0] is model else model_digest(model)


def _digest(*parts: object) -> str:
    return hashlib.sha256("\0".join(map(repr, parts)).encode()).hexdigest()


def frame_digest(frame: pd.DataFrame | None) -> str:
    """Return the digest of a table: pandas' hash of every row (every value and the index) and
    its columns' names; a table of a year's 12,000 catalogue periods takes 70 ms."""
    import pandas as pd

    if frame is None:
        return "none"
    rows = pd.util.hash_pandas_object(frame, index=True).to_numpy().tobytes()
    return _digest(list(frame.columns), hashlib.sha256(rows).hexdigest())


def prefix_digests(items: Iterable[tuple[dt.date, str]], dates: Sequence[dt.date]) -> list[str]:
    """Return, for each of `dates` (sorted), a digest of every item dated on or before it."""
    running = hashlib.sha256()
    ordered = sorted(items)
    out, i = [], 0
    for date in dates:
        while i < len(ordered) and ordered[i][0] <= date:
            running.update(ordered[i][1].encode() + b"\0")
            i += 1
        out.append(running.hexdigest())
    return out


def price_keys(sources: Sources, dates: Sequence[dt.date],
               json: Callable[[BaseModel], str]) -> list[str]:
    """Return the key of the price part of each edition of `dates` (sorted); `json` gives a
    record's digest (RecordDigests)."""
    profiles = repr(sources.series.profiles)
    items = []
    for provider, sourced in sorted(sources.prices.items()):
        head = f"{provider} {sourced.model.name}"
        for plist in sourced.model.lists:
            lhead = f"{head} {plist.currency} {plist.unit} {plist.windows!r}"
            # Known by an edition's date: in force by then, or announced (checked) by then.
            items += [(min(r.from_.date(), r.checked), f"{lhead} {json(r)}")
                      for r in plist.records]
    rates = sources.rates
    currencies = sorted({p.currency for s in sources.prices.values() for p in s.model.lists}
                        - {"USD"})
    if rates is not None:
        for currency in currencies:
            days, values = rates.days.get(currency, ()), rates.usd_per_unit.get(currency, ())
            items += [(d, f"{currency} {d} {v!r}") for d, v in zip(days, values)]
    return [_digest("prices", profiles, d, prefix) for d, prefix in
            zip(dates, prefix_digests(items, dates))]


def hardware_key(sources: Sources,
                 file_key: Callable[[str], str | None] = lambda name: None) -> str:
    """Return the key of every edition's hardware part (without its dates). `file_key` gives
    the key under which the parse cache read a file (ParseCache.file_key), if it did."""
    # repr, not pickle: a pickled pydantic model holds a set (its fields set), whose order
    # changes from one process to the next, and so would the key.
    # Costs in another currency are converted at the ECB rates: those rates are read too.
    currencies = sorted({c.currency for c in sources.hardware.costs} - {"USD"}
                        if sources.hardware else ())
    rates = sources.rates
    fx = [(c, rates.days.get(c), rates.usd_per_unit.get(c)) for c in currencies] if rates else None
    # The rows by what they were read from: each benchmark file's key in the parse cache (its
    # bytes, its index entry, the accelerators, the code), not row by row (20,000 rows took
    # ~0.1 s a build); rows read without a cache are digested themselves.
    hardware = sources.hardware
    read_from = [file_key(report.path) for report in hardware.reports] if hardware else []
    rows = read_from if read_from and None not in read_from else sources.hardware_rows
    text = repr((hardware, fx, rows))
    return _digest("hardware", hashlib.sha256(text.encode()).hexdigest())


def feed_window_key(date: dt.date, previous: dt.date | None,
                    by_day: tuple[list[dt.date], list[str], str]) -> str:
    """Return the digest of the feed items of the window (previous, date] and the feed settings.

    `by_day`: from `feed_items_by_day`; the window is a slice of its days.
    """
    start = previous or date - dt.timedelta(days=FIRST_EDITION_DAYS)
    days, digests, settings = by_day
    window = digests[bisect.bisect_right(days, start):bisect.bisect_right(days, date)]
    return _digest("feeds", date, previous, settings, window)


def feed_items_by_day(sources: Sources, json: Callable[[BaseModel], str],
                      ) -> tuple[list[dt.date], list[str], str]:
    """Return the days feed items were published on, ascending, the digest of each day's items
    (each item's JSON, from `json`, with its feed id), and the feeds' settings as JSON.

    Digested once a day, not once a window: a window's key then digests a few day digests
    rather than its items (a year of daily editions digested ~40 MB of item JSON a build)."""
    by_day: dict[dt.date, list[str]] = {}
    for feed_id, snap in sources.snapshots.items():
        for item in snap.items:
            by_day.setdefault(item.published.date(), []).append(f"{feed_id} {json(item)}")
    days = sorted(by_day)
    digests = [hashlib.sha256("\0".join(sorted(by_day[d])).encode()).hexdigest() for d in days]
    settings = sources.feeds.model_dump_json() if sources.feeds else ""
    return days, digests, settings


def hardware_files_key(sources: Sources, as_of: dt.date, hardware_key_: str | None) -> str:
    """Return the digest of what the hardware files read: all hardware sources (the key
    composing computed), and which results and costs are public by `as_of` (not `as_of` itself:
    most new editions leave the Hardware page as it was). `hardware_key_`: `hardware_key` of the
    sources when already computed."""
    if sources.hardware is None:
        return "no hardware"
    seen = sorted({r.published for r in sources.hardware_rows
                   if r.published is not None and r.published <= as_of})
    costs = sorted({c.date for c in sources.hardware.costs if c.date <= as_of})
    key = hardware_key_ if hardware_key_ is not None else hardware_key(sources)
    return f"hardware-files {key} {seen} {costs}"


class InputDigests:
    """The inputs of each computed part of the editions of `dates`, as digests, for the store
    (store.py): each lane's items, the feed stories an edition asks for and its chart's spec.

    `parts`: the editions' tables (the catalogue lane's key reads its window's moves);
    `json`: each record's and item's digest (RecordDigests); `file_key`: the key each source
    file was read under (ParseCache.file_key)."""

    def __init__(self, sources: Sources, dates: Sequence[dt.date], parts: EditionTables,
                 json: RecordDigests | None = None,
                 file_key: Callable[[str], str | None] = lambda name: None) -> None:
        self.sources, self._parts, self._file_key = sources, parts, file_key
        self._reads: dict[str, str] = {}
        self.json = json or RecordDigests(sources)
        # One more date, after every other: the key of all price records, for the price tables.
        keys = price_keys(sources, [*dates, dt.date.max], self.json) if (
            sources.prices and sources.rates is not None) else []
        self._price = dict(zip(dates, keys))
        self.prices = keys[-1] if keys else ""
        """The digest of every price record and the rates they use."""
        self.hardware = (hardware_key(sources, file_key) if sources.hardware is not None
                         else "")
        """The digest of every hardware source and the rates they use."""
        self._feeds_by_day = (feed_items_by_day(sources, self.json) if sources.feeds
                              else ([], [], ""))
        self._windows: dict[tuple[dt.date, dt.date | None], str] = {}
        self._dates = sorted(dates)

    def lane(self, lane: Any, date: dt.date, previous: dt.date | None) -> tuple:
        """Return the inputs of `lane`'s items in the window (previous, date]: what its
        declaration's `key` reads of these digests (compose/lanes.py)."""
        return ("lane", lane.name, date, previous, lane.key(self, date, previous))

    def prices_by(self, date: dt.date) -> str:
        """Return the digest of the price records known by `date` and the rates up to it."""
        return self._price[date]

    def catalogue_window(self, date: dt.date, previous: dt.date | None) -> str:
        """Return the digest of what the catalogue moves of the window (previous, date] are
        made of: the published catalogues' histories and how they are named, when each became
        whole, and the curated prices known by `date` (their models are left to the price
        lane). Not the window's moves themselves: finding them took a second a build."""
        return _digest("catalogue-window", date, previous, self.read("price_histories"),
                       self.read("catalogues"), self.read("catalogue_health"),
                       self.prices_by(date))

    def economics_to(self, date: dt.date, previous: dt.date | None) -> str:
        """Return the digest of the index's grid up to `date`: its weeks from the histories'
        start (in `economics`) and the edition dates up to this one; a later edition changes
        no earlier one."""
        return _digest("economics-lane", self.economics(), date, previous,
                       [d for d in self._dates if d <= date], str(self.sources.series.site_url))

    def economics(self) -> str:
        """Return the digest of what the price index and the cost to serve read
        (compose/economics.py), all dates: the sources the economics page family declares."""
        return _digest("economics", [self.read(name) for name in ECONOMICS_READS])

    def read(self, name: str) -> str:
        """Return the digest of the `Sources` attribute `name` as this build read it (what a
        page family declares it reads is kept under these), computed once a build."""
        if name not in self._reads:
            digest = SOURCE_DIGESTS.get(name)
            if digest is None:
                raise KeyError(f"no digest of the source {name!r}: add one to "
                               "cache/keys.py SOURCE_DIGESTS")
            self._reads[name] = digest(self)
        return self._reads[name]

    def chart(self, date: dt.date, previous: dt.date | None) -> tuple:
        """Return the inputs of an edition's chart spec: what its price part reads."""
        return ("chart", self._price[date], previous)

    def feeds(self, date: dt.date, previous: dt.date | None, ask: FeedAsk) -> tuple:
        """Return the inputs of the feed stories an edition asks for: the window's items."""
        window = self._windows.get((date, previous))
        if window is None:  # asked for twice an edition (top and local): digest it once
            window = feed_window_key(date, previous, self._feeds_by_day)
            self._windows[(date, previous)] = window
        return ("feeds", window, ask.local, ask.limit, sorted(ask.exclude_urls))


def _histories(k: InputDigests) -> str:
    # As the parse cache read each history file (its bytes and the code), else the tables.
    names = [price_history_path(Path(), c.id).as_posix() for c in k.sources.catalogues.catalogues
             if c.id in k.sources.price_histories] if k.sources.catalogues else []
    read_as = [k._file_key(name) for name in names]
    if not names or None in read_as:
        read_as = [(c, frame_digest(h)) for c, h in sorted(k.sources.price_histories.items())]
    return _digest("price_histories", read_as)


def _rates(rates: RateTable | None) -> str:
    # Each currency's days and rates as arrays: their repr took ~0.3 s a build.
    import numpy as np

    if rates is None:
        return "no rates"
    digest = hashlib.sha256()
    for currency in sorted(rates.days):
        digest.update(currency.encode() + b"\0")
        digest.update(np.array([d.toordinal() for d in rates.days[currency]], np.int64).tobytes())
        digest.update(np.array(rates.usd_per_unit[currency], np.float64).tobytes())
    return digest.hexdigest()


def _frames(frames: dict[str, pd.DataFrame]) -> str:
    return _digest(sorted((name, frame_digest(f)) for name, f in frames.items()))


def _json(value: BaseModel | None) -> str:
    return _digest(value.model_dump_json() if value is not None else None)


ECONOMICS_READS = ("prices", "rates", "catalogues", "price_histories", "catalogue_commits",
                   "catalogue_health", "model_facts", "hardware")
"""What the market's economics read of the sources (the economics family's reads, one digest
for the hardware files and their rows)."""

SOURCE_DIGESTS: dict[str, Callable[[InputDigests], str]] = {
    "root": lambda k: _digest(str(k.sources.root)),
    "series": lambda k: _json(k.sources.series),
    "entries": lambda k: _digest([(c.path, c.entry.model_dump_json())
                                  for c in k.sources.entries]),
    "warnings": lambda k: _digest(k.sources.warnings),
    # Every record and the rates of their currencies; the hardware part's key holds its rates.
    "prices": lambda k: k.prices,
    "rates": lambda k: _rates(k.sources.rates),
    "hardware": lambda k: k.hardware,
    "hardware_rows": lambda k: k.hardware,
    "feeds": lambda k: _json(k.sources.feeds),
    "snapshots": lambda k: _digest(k._feeds_by_day),
    "catalogues": lambda k: _json(k.sources.catalogues),
    "catalogue_health": lambda k: _digest(sorted(
        (c, h.model_dump_json()) for c, h in k.sources.catalogue_health.items())),
    "price_histories": _histories,
    "catalogue_commits": lambda k: _frames(k.sources.catalogue_commits),
    "model_facts": lambda k: _frames(k.sources.model_facts),
    "held_prices": lambda k: frame_digest(k.sources.held_prices),
    "printed": lambda k: frame_digest(k.sources.printed),
    "other_modes": lambda k: _digest(sorted(k.sources.other_modes.items())),
    "other_billing": lambda k: _digest(sorted(k.sources.other_billing.items())),
}
"""How each attribute of `Sources` is digested for a key: by the digests the build already
computed of it where it has them (records, hardware, feed days), else by its value."""
