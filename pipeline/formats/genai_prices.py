"""Read pydantic/genai-prices: a provider file (`prices/providers/<id>.yml`) or the generated
feed of all providers (`prices/new_data/v2/data.json`).

Prices are USD per million tokens (`input_mtok`, `output_mtok`, `cache_read_mtok`,
`cache_write_mtok`, `cache_write_1h_mtok`); a price may be tiered by prompt size (cliff
semantics, as ours) and a model may list conditional prices with a `start_date` or a daily UTC
`start_time`/`end_time` window, where the last matching price wins.
"""

from __future__ import annotations

import datetime as dt

import yaml

from pipeline.formats.numbers import load_json
from pipeline.formats.price_map import (
    ImportedPrice,
    ImportResult,
    band_start,
    price_value,
    with_context_window,
    without_bad_ids,
)

_METERS = {"input_mtok": ("input", None), "output_mtok": ("output", None),
           "cache_read_mtok": ("cached_input", None), "cache_write_mtok": ("cache_write", 5),
           "cache_write_1h_mtok": ("cache_write", 60)}


def read_genai_prices(data: bytes) -> ImportResult:
    """Return the token prices of every model in one provider file."""
    result = ImportResult()
    _provider(yaml.safe_load(data), result)
    return _dated(result)


def read_genai_data(data: bytes) -> ImportResult:
    """Return the token prices of every model of every provider in the generated feed
    (`prices/new_data/v2/data.json`: a JSON array of provider documents)."""
    repeated: list[str] = []
    doc = load_json(data, repeated)
    if not isinstance(doc, list):
        raise ValueError("not a genai-prices data.json: expected a JSON array of providers")
    result = ImportResult(repeated_keys=repeated)
    for provider in doc:
        if isinstance(provider, dict):
            _provider(provider, result)
        else:
            result.skipped["not a provider object"] += 1
    return _dated(result)


def _dated(result: ImportResult) -> ImportResult:
    # The map's own date: the newest day its authors checked a price.
    result = without_bad_ids(result)
    result.dated = max((p.checked for p in result.prices if p.checked), default=None)
    return result


def _provider(doc: dict, result: ImportResult) -> None:
    provider = str(doc.get("id") or "unknown")
    for model in doc.get("models", []):
        model_id = str(model.get("id"))
        checked = _date(model["prices_checked"]) if model.get("prices_checked") else None
        prices = model.get("prices")
        conditional = prices if isinstance(prices, list) else [{"prices": prices}]
        starts = sorted({_date(c.get("constraint", {}).get("start_date"))
                         for c in conditional if c.get("constraint", {}).get("start_date")})
        found = []
        for item in conditional:
            constraint = item.get("constraint") or {}
            window = None
            start = end = None
            if "start_date" in constraint:
                start = _date(constraint["start_date"])
                later = [d for d in starts if d > start]
                end = later[0] if later else None
            elif starts:
                end = starts[0]  # the unconstrained price holds until the first dated one
            if "start_time" in constraint:
                window = (_time(constraint["start_time"]), _time(constraint["end_time"]))
            for extra in set(constraint) - {"start_date", "start_time", "end_time"}:
                result.unrepresented[f"constraint.{extra}"] += 1
            found += _prices(provider, model_id, item.get("prices") or {}, window, start, end,
                             result, checked)
        if found:
            result.models += 1
            result.prices += with_context_window(found, model.get("context_window"), result,
                                                 "context_window")
        else:
            result.skipped["model without token prices"] += 1


def _prices(provider: str, model: str, prices: dict, window, start, end,
            result: ImportResult, checked: dt.date | None = None) -> list[ImportedPrice]:
    out = []
    for name, value in prices.items():
        if name not in _METERS:
            result.unrepresented[name] += 1
            continue
        meter, ttl = _METERS[name]
        ttl = ttl if meter == "cache_write" and "cache_write_1h_mtok" in prices else None
        # (field of its start, start, field of its price, price): a band as the file has it.
        bands = [(None, 0, name, value)] if not isinstance(value, dict) else (
            [(None, 0, f"{name}.base", value.get("base"))]
            + [(f"{name}.tiers.{i}.start", t["start"], f"{name}.tiers.{i}.price", t["price"])
               for i, t in enumerate(value.get("tiers", []))])
        for start_field, start_tokens, price_field, written in bands:
            above = 0 if start_field is None else band_start(
                result, provider, model, start_field, start_tokens)
            if above is None:
                continue
            price = price_value(result, provider, model, price_field, written)
            if price is None:
                continue
            out.append(ImportedPrice(provider, model, meter, price, above,
                                     ttl_minutes=ttl, window_utc=window, from_date=start,
                                     to_date=end, checked=checked))
    return out


def _date(value: object) -> dt.date:
    return value if isinstance(value, dt.date) else dt.date.fromisoformat(str(value))


def _time(value: object) -> dt.time:
    # PyYAML reads 00:30:00Z as a string; some files quote it, some do not.
    text = str(value).removesuffix("Z")
    return dt.time.fromisoformat(text) if ":" in text else (
        dt.time(int(value) // 3600, int(value) % 3600 // 60))  # sexagesimal int from YAML 1.1
