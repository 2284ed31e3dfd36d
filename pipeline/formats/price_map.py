"""The common shape of imported public price maps (LiteLLM, llm-prices, genai-prices), and how
it becomes our provider files. Pure: rows in, documents out."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ImportedPrice:
    """One USD price per million tokens read from a public price map."""

    provider: str
    model: str
    meter: str
    usd_per_mtok: float
    context_above_tokens: int = 0
    mode: str = "realtime"
    ttl_minutes: int | None = None
    window_utc: tuple[dt.time, dt.time] | None = None
    """A daily UTC time-of-day window [start, end) when the map has one (genai-prices)."""
    from_date: dt.date | None = None
    to_date: dt.date | None = None
    checked: dt.date | None = None
    """When the map's authors last checked the price, where the map says (genai-prices)."""
    entry: str = ""
    """The map's own key of the entry the price came from (LiteLLM: `openai/gpt-4o`)."""


@dataclass
class ImportResult:
    """What an importer read, and what it could not represent, with counts (never dropped)."""

    prices: list[ImportedPrice] = field(default_factory=list)
    models: int = 0
    """Models read with at least one token price."""
    unrepresented: Counter[str] = field(default_factory=Counter)
    """Field or feature → how many times it was met and left out."""
    skipped: Counter[str] = field(default_factory=Counter)
    """Reason → how many entries were not models with token prices."""
    dated: dt.date | None = None
    """The map's own date of the whole file, where it has one (LiteLLM mirror: last_updated)."""


def _window_name(window: tuple[dt.time, dt.time]) -> str:
    return f"utc-{window[0]:%H%M}-{window[1]:%H%M}"


def provider_documents(result: ImportResult, source_url: str, checked: dt.date,
                       since: dt.date) -> dict[str, dict]:
    """Return {provider: document} in the `sources/prices/<provider>.yaml` schema (USD lists).

    `since` stands in for a missing start date: the map does not say when a price began.
    """
    grouped: dict[str, dict[tuple, list[ImportedPrice]]] = {}
    for p in result.prices:
        key = (p.model, p.from_date or since, p.to_date)
        grouped.setdefault(p.provider, {}).setdefault(key, []).append(p)
    docs = {}
    for provider, periods in sorted(grouped.items()):
        windows: dict[str, dict] = {}
        records = []
        for (model, start, end), prices in sorted(periods.items(), key=lambda kv: (
                kv[0][0], kv[0][1])):
            record: dict = {"model": model, "from": start.isoformat()}
            if end:
                record["to"] = end.isoformat()
            record |= {"source_url": source_url, "checked": checked.isoformat(), "prices": []}
            rest = [p.usd_per_mtok for p in prices if p.window_utc is None]
            for p in prices:
                item: dict = {"meter": p.meter, "price": p.usd_per_mtok}
                if p.window_utc:
                    name = _window_name(p.window_utc)
                    dearer = bool(rest) and p.usd_per_mtok > min(rest)
                    windows.setdefault(name, {
                        "name": name, "tier": "peak" if dearer else "off-peak", "timezone": "UTC",
                        "spans": [{"start": f"{p.window_utc[0]:%H:%M}",
                                   "end": f"{p.window_utc[1]:%H:%M}"}]})
                    item["window"] = name
                if p.context_above_tokens:
                    item["context_above_tokens"] = p.context_above_tokens
                if p.mode != "realtime":
                    item["mode"] = p.mode
                if p.ttl_minutes:
                    item["ttl_minutes"] = p.ttl_minutes
                record["prices"].append(item)
            records.append(record)
        doc: dict = {"provider": provider, "name": provider, "lists": [
            {"currency": "USD", "unit": "per_1m_tokens", "records": records}]}
        if windows:
            doc["lists"][0]["windows"] = list(windows.values())
        docs[provider] = doc
    return docs


def per_mtok_from_per_token(value: float) -> float:
    """Return a per-token USD float as USD per million tokens, without float noise (5e-06 → 5)."""
    return round(value * 1_000_000, 9)
