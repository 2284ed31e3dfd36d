"""Pure: how a figure is written, to the precision it has.

A price as its source wrote it keeps every digit the source gave ("$0.435", never "$0.43"); a
computed price (a blend, a conversion) below $1 gets three significant figures ("$0.162"), one of
$1 or more two decimals; a count of tokens per dollar three significant figures ("6.18 M")."""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal

SYMBOLS = {"USD": "$", "CNY": "¥", "EUR": "€", "GBP": "£", "JPY": "¥"}
SOURCE_DIGITS = 6
"""A float whose shortest form has at most this many significant digits is taken as a price a
source wrote; a computed one (0.16187…) has up to 17."""


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
    digits = f"{amount:,.{_decimals(amount, computed)}f}"
    return f"{sign}{digits}" if sign else f"{digits} {currency}"


def three_figures(count: float) -> str:
    """Return a large count to three significant figures with its scale: `6.18 M`, `14.8 M`,
    `873 k`; counts below a thousand as whole numbers."""
    for scale, suffix in ((1e9, " bn"), (1e6, " M"), (1e3, " k")):
        if abs(count) >= scale * 0.9995:
            value = count / scale
            decimals = max(0, 2 - math.floor(math.log10(abs(round(value, 2)))))
            return f"{value:,.{decimals}f}{suffix}"
    return f"{count:,.0f}"


def since_words(date: dt.date, previous: dt.date | None, lookback: dt.timedelta) -> str:
    """Return an edition's window in words: `since 2026-09-04`, the previous edition's date; the
    first edition, which has none, looks back `lookback`: `in the 7 days to 2026-08-21
    (first edition)`, never a "since" naming a day with no edition."""
    if previous is not None:
        return f"since {previous.isoformat()}"
    return f"in the {lookback.days} days to {date.isoformat()} (first edition)"
