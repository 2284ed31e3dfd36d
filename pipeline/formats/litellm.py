"""Read LiteLLM's model_prices_and_context_window.json: per-token USD prices of chat models.

Fields: `input_cost_per_token`, `output_cost_per_token`, `cache_read_input_token_cost`,
`cache_creation_input_token_cost` (`_above_1hr`: the 1-hour cache), the legacy DeepSeek alias
`input_cost_per_token_cache_hit`, context bands `_above_<N>k_tokens`, service tiers `_batches`
(our batch mode), `_priority` and `_flex` (which we cannot represent), and `tiered_pricing`.
"""

from __future__ import annotations

import datetime as dt
import re

from pipeline.formats.numbers import load_json
from pipeline.formats.price_map import (
    ImportedPrice,
    ImportResult,
    band_start,
    per_mtok_from_per_token,
    price_value,
    with_context_window,
    without_bad_ids,
)

_FIELD = re.compile(
    r"^(?P<base>input_cost_per_token_cache_hit|input_cost_per_token|output_cost_per_token|"
    r"cache_read_input_token_cost|cache_creation_input_token_cost_above_1hr|"
    r"cache_creation_input_token_cost)"
    r"(?:_above_(?P<k>\d+)k_tokens)?(?:_(?P<tier>batches|priority|flex))?$")
_METER = {"input_cost_per_token": ("input", None), "output_cost_per_token": ("output", None),
          "cache_read_input_token_cost": ("cached_input", None),
          "input_cost_per_token_cache_hit": ("cached_input", None),
          "cache_creation_input_token_cost": ("cache_write", None),
          "cache_creation_input_token_cost_above_1hr": ("cache_write", 60)}


def read_litellm(data: bytes) -> ImportResult:
    """Return the token prices of every chat model in the map, and counts of what was left out."""
    repeated: list[str] = []
    doc = load_json(data, repeated)
    if not isinstance(doc, dict):
        raise ValueError("not a LiteLLM price map: expected a JSON object of model entries")
    result = ImportResult(dated=_stamp(doc.get("last_updated")), repeated_keys=repeated)
    for key, entry in doc.items():
        if not isinstance(entry, dict) or key == "sample_spec":
            result.skipped["not a model entry"] += 1
            continue
        if entry.get("mode") != "chat":
            result.skipped[f"mode {entry.get('mode') or 'missing'}"] += 1
            continue
        provider = str(entry.get("litellm_provider") or "unknown")
        model = key.removeprefix(f"{provider}/")
        prices = with_context_window(_entry_prices(provider, model, entry, result, key),
                                     entry.get("max_input_tokens"), result, "max_input_tokens")
        if not prices:
            result.skipped["chat model without token prices"] += 1
            continue
        result.models += 1
        result.prices += prices
    return without_bad_ids(result)


def _stamp(value: object) -> dt.date | None:
    # The mirror's `last_updated` (an ISO date-time); the upstream file has none.
    try:
        return dt.datetime.fromisoformat(str(value)).date() if value else None
    except ValueError:
        return None


def _entry_prices(provider: str, model: str, entry: dict, result: ImportResult,
                  key_in_map: str = "") -> list[ImportedPrice]:
    prices: dict[tuple, ImportedPrice] = {}
    for name, value in entry.items():
        if name == "tiered_pricing" and isinstance(value, list):
            for i, band in enumerate(value):
                _tiered(provider, model, band, f"{name}.{i}", prices, result, key_in_map)
            continue
        match = _FIELD.match(name)
        if match is None:
            if "cost" in name and value is not None:
                result.unrepresented[name] += 1
            continue
        value = price_value(result, provider, model, name, value, 1e6)
        if value is None:
            continue
        if match["tier"] in ("priority", "flex"):
            result.unrepresented[f"*_{match['tier']} (service tier)"] += 1
            continue
        meter, ttl = _METER[match["base"]]
        if meter == "cache_write" and value == 0 and ttl is None:
            continue  # LiteLLM writes 0.0 where a provider has no cache-write charge
        band = band_start(result, provider, model, name,
                          int(match["k"]) * 1000) if match["k"] else 0
        if band is None:
            continue
        mode = "batch" if match["tier"] == "batches" else "realtime"
        key = (meter, ttl, band, mode)
        if match["base"] == "input_cost_per_token_cache_hit" and key in prices:
            continue  # the legacy alias repeats cache_read_input_token_cost
        prices[key] = ImportedPrice(provider, model, meter, per_mtok_from_per_token(value),
                                    band, mode, ttl, entry=key_in_map)
    return list(prices.values())


def _tiered(provider: str, model: str, band: object, where: str, prices: dict,
            result: ImportResult, key_in_map: str) -> None:
    span = band.get("range") if isinstance(band, dict) else None
    if not isinstance(band, dict) or not (isinstance(span, list) and span):
        result.unrepresented["tiered_pricing without a range"] += 1
        return
    above = band_start(result, provider, model, f"{where}.range", span[0])
    if above is None:
        return
    for field_name, meter in (("input_cost_per_token", "input"),
                              ("output_cost_per_token", "output")):
        value = price_value(result, provider, model, f"{where}.{field_name}",
                            band.get(field_name), 1e6)
        if value is not None:
            prices.setdefault((meter, None, above, "realtime"), ImportedPrice(
                provider, model, meter, per_mtok_from_per_token(value), above,
                entry=key_in_map))
    for extra in set(band) - {"range", "input_cost_per_token", "output_cost_per_token"}:
        result.unrepresented[f"tiered_pricing.{extra}"] += 1
