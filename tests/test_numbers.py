"""How the pages, feeds and e-mail write a number (compose/numbers.py): babel's grouping gives
what Python's formatting gave (the site's output stays as it was), digits are never split,
what is written reads back (formats/numbers.py) as the figure, and the site's own styles."""

from __future__ import annotations

import math
import re
from decimal import Decimal

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from pipeline.compose.numbers import (
    axis_usd,
    catalogue_usd,
    change_percent,
    change_words,
    computed_usd,
    context_tokens,
    count,
    figures,
    grouped,
    money,
    percent,
    plain_number,
    share_percent,
    units_per_usd,
)
from pipeline.formats.numbers import as_float

finite = st.floats(allow_nan=False, allow_infinity=False)
decimals = st.integers(min_value=0, max_value=8)
GROUPED = re.compile(r"-?\d{1,3}(?:,\d{3})*(?:\.\d+)?")
"""A whole part in groups of three, none split or empty, then the decimals."""


@given(finite, decimals)
@example(2.675, 2)  # babel given the float would round its repr "2.675" up: the site printed 2.67
@example(0.125, 2)  # a tie in binary too: to even, as Python rounds it
@example(1e300, 2)  # past babel's 28-digit default context
@example(-0.0, 0)
def test_grouped_writes_what_python_wrote(value: float, places: int) -> None:
    assert grouped(value, places) == f"{value:,.{places}f}"


@given(st.integers(min_value=-10**18, max_value=10**18))
def test_whole_numbers_are_grouped_in_threes(n: int) -> None:
    text = grouped(n)
    assert GROUPED.fullmatch(text) and int(text.replace(",", "")) == n


@given(finite.filter(lambda v: abs(v) < 1e15), decimals)
def test_grouped_never_splits_digits_and_reads_back_as_the_figure(value: float, places: int) -> None:
    text = grouped(value, places)
    assert GROUPED.fullmatch(text), text
    assert len(text.partition(".")[2]) == places
    # The parser of third-party numbers reads it as the value rounded to those places.
    assert as_float(text) == float(f"{value:.{places}f}")


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_a_value_that_is_not_finite_is_written_as_python_writes_it(value: float) -> None:
    # Pages check for a missing figure before formatting it; should one slip through, the page
    # still builds (babel would write "NaN" and "∞", Python "nan" and "inf").
    assert grouped(value, 2) == f"{value:,.2f}"
    assert computed_usd(value) == "–"


source_prices = st.decimals(min_value=Decimal("0.000001"), max_value=Decimal("99999"),
                            places=6).map(lambda d: float(d.normalize())).filter(
    lambda v: len(Decimal(repr(v)).normalize().as_tuple().digits) <= 6)


@given(source_prices)
def test_a_source_price_reads_back_exactly_as_the_source_wrote_it(usd: float) -> None:
    text = money(usd, "USD")
    assert text.startswith("$") and as_float(text[1:]) == usd


@given(st.floats(min_value=1e-6, max_value=1e5))
def test_a_computed_price_has_three_figures_below_a_dollar_and_cents_above(usd: float) -> None:
    text = money(usd, "USD", computed=True)
    whole, _, cents = text[1:].partition(".")
    read = as_float(text[1:])
    if usd >= 1:
        assert len(cents) == 2 and abs(read - usd) <= 0.005 + usd * 1e-12
    else:
        assert len((whole + cents).strip("0")) <= 3  # 0.99999 rounds up to $1.000
        assert abs(read - usd) <= usd * 0.005 * (1 + 1e-9)  # three figures: within half of one


def test_the_sites_styles() -> None:
    # The catalogue tables: free, four figures below ten cents, cents above, grouped.
    assert [catalogue_usd(v) for v in (0, 0.0375, 0.1, 1234.5)] == [
        "free", "$0.0375", "$0.10", "$1,234.50"]
    assert catalogue_usd(0.0375, sign="") == "0.0375"
    assert [axis_usd(v) for v in (0, 0.075, 2.5)] == ["$0.00", "$0.075", "$2.50"]
    assert [context_tokens(v) for v in (None, math.nan, 0, 512, 128_000, 1_000_000, 1_048_576)] == [
        "", "", "", "512", "128K", "1M", "1.05M"]
    assert [count(n, "listing") for n in (0, 1, 2, 12_345)] == [
        "0 listings", "1 listing", "2 listings", "12,345 listings"]
    # Prose per cents: a true minus and a space; the index's change says when it did not move.
    assert [change_percent(c) for c in (-0.97, 0.25, 0)] == ["−97 %", "+25 %", "+0 %"]
    assert [change_words(c) for c in (-0.031, 0.004, 0.0004, -0.0004)] == [
        "−3.1 %", "+0.4 %", "unchanged", "unchanged"]
    assert share_percent(0.97) == "97 %"
    # Table per cents: ASCII.
    assert [percent(0.2), percent(0.25, signed=True), percent(-0.031, 1, signed=True)] == [
        "20%", "+25%", "-3.1%"]
    assert units_per_usd(1 / 7.1234, "CNY") == "7.1234 CNY per USD"
    assert [plain_number(v) for v in (1234.0, 1234.5678, 0.0123)] == [
        "1,234", "1,234.57", "0.0123"]
    assert figures(0.00001, 3) == "1e-05"  # as the site printed it; babel would not
    assert money(1234.5, "CNY") == "¥1,234.50" and money(3.0, "CHF") == "3.00 CHF"


@given(finite, st.integers(min_value=1, max_value=6))
def test_figures_are_pythons_significant_figures(value: float, digits: int) -> None:
    text = figures(value, digits)
    assert text == f"{value:.{digits}g}" and float(text) == float(f"{value:.{digits - 1}e}")
