"""Pure: USD per unit of a currency on a date, at the ECB reference rate, with the rate's own date.

The ECB quotes every currency against the euro on working days. A USD rate for currency C on day
D is (USD per EUR) / (C per EUR) of that day. On a day without a quote (weekend, TARGET holiday)
we take the last earlier quote, as a reference rate is meant, not an interpolation
(currencyconverter interpolates unless told `last_known`: ARCHITECTURE.md).
"""

from __future__ import annotations

import bisect
import datetime as dt
from dataclasses import dataclass

from pipeline.models.rates import RateTable

ECB_CURRENCIES: frozenset[str] = frozenset(
    ["USD", "JPY", "BGN", "CYP", "CZK", "DKK", "EEK", "GBP", "HUF", "LTL", "LVL", "MTL", "PLN", "ROL", "RON", "SEK", "SIT", "SKK", "CHF", "ISK", "NOK", "HRK", "RUB", "TRL", "TRY", "AUD", "BRL", "CAD", "CNY", "HKD", "IDR", "ILS", "INR", "KRW", "MXN", "MYR", "NZD", "PHP", "SGD", "THB", "ZAR", "EUR"])  # noqa: E501 (the ECB list, one line to compare with its source)
"""Currencies the ECB history has ever quoted, plus the euro itself."""


class RateNotFound(LookupError):
    """No rate for the currency on or before the date."""


@dataclass(frozen=True)
class FxRate:
    """A conversion rate and the day it was fixed."""

    usd_per_unit: float
    date: dt.date
    """The ECB fixing day the rate comes from (on or before the day asked for)."""


def table_from_eur_rates(eur_rates: dict[str, dict[dt.date, float]], origin: str = "") -> RateTable:
    """Return a RateTable from {currency: {date: units per euro}} (ECB's form)."""
    usd = eur_rates.get("USD", {})
    days: dict[str, tuple[dt.date, ...]] = {}
    values: dict[str, tuple[float, ...]] = {}
    for currency, series in [*eur_rates.items(), ("EUR", {d: 1.0 for d in usd})]:
        if currency == "USD":
            continue
        common = sorted(d for d in series if d in usd and series[d] > 0)
        days[currency] = tuple(common)
        values[currency] = tuple(usd[d] / series[d] for d in common)
    return RateTable(days, values, origin)


def rate_on(table: RateTable, currency: str, day: dt.date) -> FxRate:
    """Return USD per unit of `currency` on `day`: that day's rate or the last earlier one."""
    if currency == "USD":
        return FxRate(1.0, day)
    if currency not in table.days:
        raise RateNotFound(f"no ECB rates for {currency}")
    days = table.days[currency]
    i = bisect.bisect_right(days, day) - 1
    if i < 0:
        raise RateNotFound(f"no ECB rate for {currency} on or before {day.isoformat()}")
    return FxRate(table.usd_per_unit[currency][i], days[i])


def to_usd(amount: float, currency: str, table: RateTable, day: dt.date) -> tuple[float, FxRate]:
    """Return (amount in USD, the rate used) at the reference rate of `day`."""
    rate = rate_on(table, currency, day)
    return amount * rate.usd_per_unit, rate

