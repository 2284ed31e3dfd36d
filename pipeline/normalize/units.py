"""Pure: token units and meter names, normalized to per-million tokens and the time tiers' names."""

from __future__ import annotations

TOKENS_PER_UNIT: dict[str, int] = {"per_token": 1, "per_1k_tokens": 1_000, "per_1m_tokens": 1_000_000}
"""How many tokens a published price is for, by the list's `unit`."""

METER_TITLES: dict[str, str] = {"input": "input", "cached_input": "cached input",
                                "cache_write": "cache write", "output": "output"}


def per_mtok(price: float, unit: str) -> float:
    """Return the price per million tokens of a price published per `unit`."""
    return price * 1_000_000 / TOKENS_PER_UNIT[unit]


def meter_label(meter: str, ttl_minutes: int | None = None) -> str:
    """Return the meter as tables name it: `cache_write` or `cache_write_60m` when TTLs differ."""
    return f"{meter}_{ttl_minutes}m" if ttl_minutes else meter
