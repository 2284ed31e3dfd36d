"""Pure: how a figure is written, to the precision it has. Every number the pages, the feeds and
the e-mail print is written by a function here, so a rule of the site's figures is stated once.

A price as its source wrote it keeps every digit the source gave ("$0.435", never "$0.43"); a
computed price (a blend, a conversion) below $1 gets three significant figures ("$0.162"), one of
$1 or more two decimals; a count of tokens per dollar three significant figures ("6.18 M").

Thousands and fixed decimals are babel's (CLDR's English pattern, `grouped`). Babel is handed the
float's exact value as a Decimal: given the float, it rounds the float's shortest repr (2.675 to
2.68), where the site has always printed Python's rounding of the binary value (2.67).

The rest is ours, where babel's output would differ from what the site prints:
- currency signs: babel's English writes CNY as "CN¥" and other codes before the amount
  ("CHF 3.00"); the site writes "¥0.02" and "3.00 CHF" (`money`);
- significant figures (`figures`, `catalogue_usd`): babel's significant-digit patterns never
  switch to an exponent, where the site prints Python's `g` (`1e-05`);
- per cents: prose writes a true minus and a space before the sign (`−3.1 %`, `change_percent`),
  tables ASCII (`+25%`, `percent`); babel's English percent pattern gives neither signed form.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
from decimal import Decimal, localcontext

import pandas as pd
from babel.numbers import format_decimal

SYMBOLS = {"USD": "$", "CNY": "¥", "EUR": "€", "GBP": "£", "JPY": "¥"}
SOURCE_DIGITS = 6
"""A float whose shortest form has at most this many significant digits is taken as a price a
source wrote; a computed one (0.16187…) has up to 17."""
LOCALE = "en"
FLOAT_DIGITS = 310
"""More digits than the whole part of the largest float (1.8e308) has."""


def grouped(value: float, decimals: int = 0) -> str:
    """Return `value` with thousands separated and exactly `decimals` decimals: `1,234.50`.
    A value that is not finite is written as Python writes it (`nan`, `inf`)."""
    # The sign is part of the key: -0.0 == 0.0, and is written `-0`.
    return _grouped(value, decimals, value < 0 or (value == 0 and math.copysign(1, value) < 0))


@functools.lru_cache(maxsize=65_536)
def _grouped(value: float, decimals: int, negative: bool) -> str:
    """grouped, remembered: babel takes ~45 µs a figure, and a year's pages print the same
    prices 190,000 times."""
    if not math.isfinite(value):
        return f"{value:,.{decimals}f}"
    # Decimal(value) is the float's exact binary value: rounded as Python's `,.2f` rounds it.
    # Babel rounds within the current decimal context, 28 digits by default: room for any
    # float's 309 whole digits (1e300 is no price, but a page must not fail on one).
    pattern = "#,##0." + "0" * decimals if decimals else "#,##0"
    with localcontext(prec=FLOAT_DIGITS + decimals):
        return format_decimal(Decimal(value), pattern, locale=LOCALE)


def count(n: int, what: str) -> str:
    """Return `n` and the noun, plural unless one: `1 listing`, `2,000 moves`."""
    return f"{grouped(n)} {what}" if n == 1 else f"{grouped(n)} {what}s"


def fixed(value: float, decimals: int, *, signed: bool = False) -> str:
    """Return `value` to `decimals` decimals without separators, as arithmetic is shown
    (`1.0213`, `+0.0211` when `signed`)."""
    return f"{value:+.{decimals}f}" if signed else f"{value:.{decimals}f}"


def figures(value: float, digits: int) -> str:
    """Return `value` to `digits` significant figures, trailing zeros dropped: `0.0375`, `12.5`."""
    return f"{value:.{digits}g}"


def _decimals(amount: float, computed: bool) -> int:
    size = abs(amount)
    if size == 0 or not math.isfinite(size):
        return 2
    exact = Decimal(repr(size)).normalize().as_tuple()
    if not computed and len(exact.digits) <= SOURCE_DIGITS:
        return max(2, -int(exact.exponent))
    return 2 if size >= 1 else max(2, 2 - math.floor(math.log10(size)))


def money(amount: float, currency: str, *, computed: bool = False) -> str:
    """Return `amount` with its currency sign, at the precision the figure has (module doc);
    `computed`: a blend or a conversion, whatever its digits (0.39875 is "$0.399")."""
    sign = SYMBOLS.get(currency)
    digits = grouped(amount, _decimals(amount, computed))
    return f"{sign}{digits}" if sign else f"{digits} {currency}"


def computed_usd(value: float) -> str:
    """Return a computed USD price (`money`), or a dash where there is none (not a number)."""
    return money(float(value), "USD", computed=True) if math.isfinite(value) else "–"


def catalogue_usd(usd_per_mtok: float, sign: str = "$") -> str:
    """Return a listed price as the Market's tables print it: `free`, four significant figures
    below $0.10 (`$0.0375`), cents above (`$1,234.50`); `sign` "" where the column says USD."""
    if usd_per_mtok == 0:
        return "free"
    if usd_per_mtok < 0.1:
        return sign + figures(usd_per_mtok, 4)
    return sign + grouped(usd_per_mtok, 2)


def axis_usd(usd: float) -> str:
    """Return a price axis' label: cents from $0.10 and at zero, three figures below (`$0.075`)."""
    return f"${grouped(usd, 2)}" if usd >= 0.1 or usd == 0 else f"${figures(usd, 3)}"


def units_per_usd(usd_per_unit: float, currency: str) -> str:
    """Return an exchange rate as the figures cite it: `7.1234 CNY per USD`."""
    return f"{fixed(1 / usd_per_unit, 4)} {currency} per USD"


def three_figures(count: float) -> str:
    """Return a large count to three significant figures with its scale: `6.18 M`, `14.8 M`,
    `873 k`; counts below a thousand as whole numbers."""
    for scale, suffix in ((1e9, " bn"), (1e6, " M"), (1e3, " k")):
        if abs(count) >= scale * 0.9995:
            value = count / scale
            decimals = max(0, 2 - math.floor(math.log10(abs(round(value, 2)))))
            return f"{grouped(value, decimals)}{suffix}"
    return grouped(count)


def context_tokens(tokens: float | None) -> str:
    """Return a context window: `128K`, `1M`, `1.05M` tokens; empty when unknown."""
    if tokens is None or pd.isna(tokens) or tokens <= 0:
        return ""
    if tokens >= 1e6:
        return f"{figures(tokens / 1e6, 3)}M"
    return f"{figures(tokens / 1e3, 4)}K" if tokens >= 1e3 else fixed(tokens, 0)


def plain_number(value: float) -> str:
    """Return a number as alt text and CSV read it: no trailing zeros, thousands separated."""
    if float(value).is_integer():
        return grouped(int(value))
    return f"{value:,.6g}" if abs(value) >= 1 else figures(value, 4)


def percent(fraction: float, decimals: int = 0, *, signed: bool = False) -> str:
    """Return a fraction as the tables print a per cent: `20%`, `+25%`, `-3.1%` (ASCII)."""
    return f"{fraction:+.{decimals}%}" if signed else f"{fraction:.{decimals}%}"


def change_percent(change: float, decimals: int = 0) -> str:
    """Return a change as the prose prints it: `−97 %`, `+0.4 %` (a true minus sign, a space)."""
    return f"{change * 100:+.{decimals}f} %".replace("-", "−")


def change_words(change: float) -> str:
    """Return a change of the index as the editions print it: `−3.1 %`, `+0.4 %`, `unchanged`."""
    if round(change * 100, 1) == 0:
        return "unchanged"
    return change_percent(change, 1)


def share_percent(fraction: float) -> str:
    """Return a share in whole per cent as the prose prints it: `97 %`."""
    return f"{fraction * 100:.0f} %".replace("-", "−")


def since_words(date: dt.date, previous: dt.date | None, lookback: dt.timedelta) -> str:
    """Return an edition's window in words: `since 2026-09-04`, the previous edition's date; the
    first edition, which has none, looks back `lookback`: `in the 7 days to 2026-08-21
    (first edition)`, never a "since" naming a day with no edition."""
    if previous is not None:
        return f"since {previous.isoformat()}"
    return f"in the {lookback.days} days to {date.isoformat()} (first edition)"
