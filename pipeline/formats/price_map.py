"""The common shape of imported public price maps (LiteLLM, llm-prices, genai-prices), and how
it becomes our provider files. Pure: rows in, documents out."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from pipeline.formats.numbers import finite, tokens_problem, usd_per_mtok_problem
from pipeline.models.ids import ID_CHARACTERS, id_problem


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
    context_window_tokens: int | None = None
    """The model's context window (input tokens) where the map gives one: the model's, repeated
    on each of its prices."""


@dataclass(frozen=True)
class ModelFacts:
    """What a price map says about a model beside its prices (models.dev): its name, family,
    dates and whether its weights are published, None where the map does not say."""

    provider: str
    model: str
    name: str | None = None
    family: str | None = None
    release_date: dt.date | None = None
    open_weights: bool | None = None
    last_updated: dt.date | None = None
    """When the map's authors last updated the model's entry."""


class Unreadable(NamedTuple):
    """A number of the map that breaks the rule for it (formats/numbers.py): where, as written,
    and why."""

    provider: str
    model: str
    field: str
    """The field as the map nests it (`tiered_pricing.1.input_cost_per_token`)."""
    value: str
    why: str


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
    invalid: list[Unreadable] = field(default_factory=list)
    """Each price, band start or context window that breaks its rule (formats/numbers.py): the
    catalogue's fault, said, and the model's last good prices kept rather than read as
    delisted or free."""
    refused_ids: list[str] = field(default_factory=list)
    """Each model left out for an id outside the id characters: `provider model: why`, the
    ids as `repr` shows them (for a catalogue's recorded problems)."""
    repeated_keys: list[str] = field(default_factory=list)
    """The dotted path of each key the map gives twice in one object (the last one read)."""
    facts: list[ModelFacts] = field(default_factory=list)
    """What the map says of each priced model beside its prices, where it says it (models.dev;
    the other maps leave this empty)."""


def price_value(result: ImportResult, provider: str, model: str, name: str,
                value: object, scale: float = 1.0) -> float | None:
    """Return a price field's value when, times `scale` (per token → per Mtok), it is a price
    (numbers.usd_per_mtok_problem); else None, and the field is recorded in `result.invalid`
    (an absent or null field is no price, not an invalid one)."""
    if value is None:
        return None
    number = finite(value)
    why = usd_per_mtok_problem(None if number is None else number * scale)
    if why is None:
        return number
    result.invalid.append(Unreadable(provider, model, name, str(value)[:40], why))
    return None


def band_start(result: ImportResult, provider: str, model: str, name: str,
               value: object) -> int | None:
    """Return the prompt size a band's prices apply above when it is a whole number of tokens
    within MAX_CONTEXT_TOKENS; else None, and the field is recorded in `result.invalid`."""
    why = tokens_problem(value, 0)
    if why is None:
        return int(value)
    result.invalid.append(Unreadable(provider, model, name, str(value)[:40], why))
    return None


BAD_ID = f"provider or model id outside the id characters ({ID_CHARACTERS})"
"""The reason `skipped` counts a model whose id is not an id (models/ids.py) under."""


def without_bad_ids(result: ImportResult) -> ImportResult:
    """Return `result` without the models whose provider or model id is not an id, each
    counted in `skipped` (one per entry of the map) and named in `refused_ids`: never copied
    into a file or a history, where it would reach pages, feeds and data files."""
    bad: dict[tuple[str, str], str] = {}
    for pair in dict.fromkeys((p.provider, p.model) for p in result.prices):  # in map order
        why = id_problem(pair[0]) or id_problem(pair[1])
        if why is not None:
            bad[pair] = why
    if not bad:
        return result
    entries = {(p.provider, p.model, p.entry) for p in result.prices
               if (p.provider, p.model) in bad}
    result.prices = [p for p in result.prices if (p.provider, p.model) not in bad]
    result.facts = [f for f in result.facts if (f.provider, f.model) not in bad]
    result.models -= len(entries)
    result.skipped[BAD_ID] += len(entries)
    result.refused_ids += [f"{provider[:80]!r} {model[:80]!r}: {why}"
                           for (provider, model), why in bad.items()]
    return result


def _window_name(window: tuple[dt.time, dt.time]) -> str:
    return f"utc-{window[0]:%H%M}-{window[1]:%H%M}"


def provider_documents(result: ImportResult, source_url: str, dated: dt.date,
                       provider_id: Callable[[str], str] = str) -> dict[str, dict]:
    """Return {provider: document} in the `sources/prices/<provider>.yaml` schema (USD lists).

    `dated` is the map's own date: the start of prices the map does not date, and the checked
    date of those it gives none for. `provider_id` gives our id of the map's. Left out, and
    counted in `result.skipped`: zero prices (free is not a price to rank), an undated price
    the map says ended by `dated` (its start is unknown), and a price an alias repeats (the
    entry under the model's own name wins, else the first in the map).
    """
    grouped: dict[str, dict[tuple, dict[tuple, ImportedPrice]]] = {}
    for p in sorted(result.prices, key=lambda p: p.entry not in ("", p.model)):  # own names first
        start = p.from_date or dated
        if p.to_date is not None and p.to_date <= start:
            result.skipped["price that ends on or before it starts (an undated one: by the "
                           "map's date)"] += 1
            continue
        period = grouped.setdefault(provider_id(p.provider), {}).setdefault(
            (p.model, start, p.to_date), {})
        tier = (p.meter, p.ttl_minutes, p.context_above_tokens, p.mode, p.window_utc)
        if tier in period:
            result.skipped["the same price under an alias (the model's own entry kept)"] += 1
            continue
        period[tier] = p
    for periods in grouped.values():
        for key, tiers in list(periods.items()):
            # After the alias rule, so a free own entry is not replaced by an alias's price.
            for tier in [t for t, p in tiers.items() if p.usd_per_mtok == 0]:
                del tiers[tier]
                result.skipped["zero price (free), not a price to rank"] += 1
            if not tiers:
                del periods[key]
    grouped = {k: v for k, v in grouped.items() if v}
    docs = {}
    for provider, periods in sorted(grouped.items()):
        windows: dict[str, dict] = {}
        records = []
        for (model, start, end), tiers in sorted(periods.items(), key=lambda kv: (
                kv[0][0], kv[0][1])):
            prices = list(tiers.values())
            record: dict = {"model": model, "from": start.isoformat()}
            if end:
                record["to"] = end.isoformat()
            checked = max((p.checked for p in prices if p.checked), default=dated)
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


def with_context_window(prices: list[ImportedPrice], tokens: object, result: ImportResult,
                        name: str) -> list[ImportedPrice]:
    """Return `prices` (one model's) carrying its context window, field `name` of the map,
    when `tokens` is one (context_window)."""
    if not prices:
        return prices
    window = context_window(result, prices[0].provider, prices[0].model, name, tokens)
    if window is None:
        return prices
    return [replace(p, context_window_tokens=window) for p in prices]


def context_window(result: ImportResult, provider: str, model: str, name: str,
                   tokens: object) -> int | None:
    """Return `tokens` as a context window when it is a whole number of tokens from 1 to
    MAX_CONTEXT_TOKENS; None for none (absent, null or 0, as LiteLLM writes an unknown one),
    and for anything else, recorded in `result.invalid`."""
    if tokens is None or tokens is False or tokens == 0:
        return None
    why = tokens_problem(tokens, 1)
    if why is None:
        return int(tokens)
    result.invalid.append(Unreadable(provider, model, name, str(tokens)[:40], why))
    return None
