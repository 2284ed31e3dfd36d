"""Load `sources/prices/<provider>.yaml` and apply the data-quality gates of issue 3.

Schema errors come from `read_model`; the gates here need several records at once: overlapping
periods, a 100x jump from the previous record (a per-1K vs per-1M slip), an unknown currency, a
window without a time zone, windows of one record that overlap, a negative price.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from pathlib import Path

from pipeline.load.read import FRESH, Parses, read_model
from pipeline.models.prices import PriceFile, PriceList
from pipeline.models.sourced import Sourced, line_of
from pipeline.normalize.fx import ECB_CURRENCIES
from pipeline.normalize.windows import overlap, record_windows
from pipeline.paths import PRICES
from pipeline.problems import Problem

JUMP_FACTOR = 100.0


def load_prices(root: Path, cache: Parses = FRESH,
                ) -> tuple[dict[str, Sourced[PriceFile]], list[Problem]]:
    """Return {provider: validated price file} and every problem found in `sources/prices/`."""
    files: dict[str, Sourced[PriceFile]] = {}
    problems: list[Problem] = []
    for path in sorted((root / PRICES).glob("*.y*ml")):
        # The gates read only the file (and its name, part of the cache key): a file the cache
        # kept passed them, and is not checked again (~0.05 s a build for a year of prices).
        sourced, found = read_model(path, PriceFile, root, cache, prepare=_indexed,
                                    check=lambda s, file=path: _file_problems(s, file))
        problems += found
        if sourced is not None and not any(p.severity == "error" for p in found):
            files[sourced.model.provider] = sourced
    return files, problems


def _file_problems(sourced: Sourced[PriceFile], path: Path) -> list[Problem]:
    found = price_file_problems(sourced)
    if sourced.model.provider != path.stem:
        found.append(Problem(sourced.path, "provider", f"provider is "
                             f"{sourced.model.provider!r} but the file is {path.name}; "
                             "name the file after the provider",
                             line=line_of(sourced.lines, ("provider",))))
    return found


def _indexed(price_file: PriceFile) -> None:
    """Fill the indexes the cost core uses, so a parse cache keeps them with the file."""
    _ = price_file.quote_lists  # fills each list's periods too


def price_file_problems(sourced: Sourced[PriceFile],
                        known_currencies: frozenset[str] = ECB_CURRENCIES) -> list[Problem]:
    """Return the data-quality problems of one validated price file."""
    problems: list[Problem] = []
    for i, plist in enumerate(sourced.model.lists):
        loc = ("lists", i)
        problems += _list_problems(plist, sourced.path, sourced.lines, loc, known_currencies)
    return problems


def _list_problems(plist: PriceList, path: str, lines: Mapping[tuple, int], loc: tuple,
                   known_currencies: frozenset[str]) -> list[Problem]:
    out: list[Problem] = []

    def problem(where: tuple, message: str) -> None:
        full = (*loc, *where)
        out.append(Problem(path, ".".join(map(str, full)), message, line=line_of(lines, full)))

    if plist.currency not in known_currencies:
        problem(("currency",), f"unknown currency {plist.currency!r}: the ECB publishes no "
                "rate for it, so its prices cannot be shown in USD; use an ISO 4217 code "
                "such as USD, CNY, EUR")
    for j, window in enumerate(plist.windows):
        if window.timezone is None:
            problem(("windows", j, "timezone"), f"window {window.name!r} has no timezone; add "
                    "the IANA name its hours are written in, such as Asia/Shanghai or UTC")
    by_model: dict[str, list[int]] = {}
    for j, record in enumerate(plist.records):
        by_model.setdefault(record.model, []).append(j)
        for k, price in enumerate(record.prices):
            if price.price < 0:
                problem(("records", j, "prices", k, "price"),
                        f"price is negative ({price.price:g}); prices are zero or more")
    for model, indexes in by_model.items():
        ordered = sorted(indexes, key=lambda j: plist.records[j].from_)
        for before, after in itertools.pairwise(ordered):
            a, b = plist.records[before], plist.records[after]
            if a.to is None or a.to > b.from_:
                problem(("records", after, "from"),
                        f"{model}: this period overlaps records.{before} "
                        f"(from {a.from_:%Y-%m-%d %H:%M}Z, "
                        f"{'open-ended' if a.to is None else f'to {a.to:%Y-%m-%d %H:%M}Z'}); "
                        f"give records.{before} a `to` at or before this `from`")
        out.extend(_jumps(plist, ordered, path, lines, loc))
    checked: set[tuple[str, str]] = set()
    names = [w.name for w in plist.windows]
    for j, record in enumerate(plist.records):
        used = record_windows(plist, record)
        for x, wa in enumerate(used):
            for wb in used[x + 1:]:
                pair = (wa.name, wb.name)
                if pair in checked or wa.timezone is None or wb.timezone is None:
                    continue
                checked.add(pair)
                both = overlap(wa, wb, record.from_)
                if both:
                    problem(("windows", names.index(wb.name)),
                            f"windows {wa.name!r} and {wb.name!r} overlap (both hold "
                            f"{both[0][0]:%a %H:%M} UTC) and records.{j} uses both; an hour "
                            "must fall in one window only")
    return out


def _jumps(plist: PriceList, ordered: list[int], path: str, lines: Mapping[tuple, int],
           loc: tuple) -> list[Problem]:
    """Return a problem for each price over 100× or under 1/100 of the same tier's price before
    it, in one model's records `ordered` by start. A price that jumped is not what the next one
    is compared with: a single slip names its own record, not the one after it too."""
    reference: dict[tuple, tuple[float, int]] = {}  # tier → (price, record index)
    out = []
    for j in ordered:
        record = plist.records[j]
        for k, price in enumerate(record.prices):
            tier = (price.meter, price.ttl_minutes, price.window, price.context_above_tokens,
                    price.mode)
            old, before = reference.get(tier, (0.0, -1))
            ratio = price.price / old if old > 0 and price.price > 0 else 1.0
            if not record.jump_is_real and (ratio > JUMP_FACTOR or ratio < 1 / JUMP_FACTOR):
                where = (*loc, "records", j, "prices", k, "price")
                word = "over 100×" if ratio > 1 else "under 1/100 of"
                out.append(Problem(path, ".".join(map(str, where)),
                                   f"{price.price:g} is {word} the previous {price.meter} price "
                                   f"({old:g}, records.{before}); check the unit ({plist.unit}) "
                                   "for a per-1K vs per-1M slip, or set `jump_is_real: true` on "
                                   "this record", line=line_of(lines, where)))
                continue
            reference[tier] = (price.price, j)
    return out
