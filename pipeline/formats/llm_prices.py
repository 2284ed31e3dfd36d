"""Read a vendor file of simonw/llm-prices (`data/<vendor>.json`): USD per million tokens, dated.

`price_history` items carry `input`, `output`, `input_cached` (null when none), `from_date`
(inclusive) and `to_date` (exclusive). Long-context prices are separate model ids (`…-272k`),
which we cannot tie to a band of their base model: they are imported as models and counted.
"""

from __future__ import annotations

import datetime as dt
import re

from pipeline.formats.numbers import load_json
from pipeline.formats.price_map import ImportedPrice, ImportResult, price_value, without_bad_ids

_LONG_CONTEXT_ID = re.compile(r"-\d+k$")
_KNOWN = {"input", "output", "input_cached", "from_date", "to_date"}


def read_llm_prices(data: bytes) -> ImportResult:
    """Return the dated token prices of every model in one vendor file, or in a JSON array of
    vendor files (how `brief ingest prices` reads the catalogue's files as one snapshot)."""
    repeated: list[str] = []
    doc = load_json(data, repeated)
    result = ImportResult(repeated_keys=repeated)
    for vendor_doc in doc if isinstance(doc, list) else [doc]:
        if not isinstance(vendor_doc, dict) or not isinstance(vendor_doc.get("models"), list):
            raise ValueError("not an llm-prices vendor file: expected an object with models")
        _vendor(vendor_doc, result)
    return without_bad_ids(result)


def _vendor(doc: dict, result: ImportResult) -> None:
    vendor = str(doc.get("vendor") or "unknown")
    for model in doc.get("models", []):
        model_id = str(model.get("id"))
        if _LONG_CONTEXT_ID.search(model_id):
            result.unrepresented["long-context price as a separate model id"] += 1
        found = False
        for item in model.get("price_history", []):
            start = _day(item.get("from_date"))
            end = _day(item.get("to_date"))
            for name, meter in (("input", "input"), ("output", "output"),
                                ("input_cached", "cached_input")):
                value = price_value(result, vendor, model_id, name, item.get(name))
                if value is not None:
                    found = True
                    result.prices.append(ImportedPrice(vendor, model_id, meter, value,
                                                       from_date=start, to_date=end))
            for extra in set(item) - _KNOWN:
                result.unrepresented[f"price_history.{extra}"] += 1
        if found:
            result.models += 1
        else:
            result.skipped["model without token prices"] += 1


def _day(value: object) -> dt.date | None:
    return dt.date.fromisoformat(value) if isinstance(value, str) else None
