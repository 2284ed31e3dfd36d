"""Numbers as third-party files write them: ints, floats, strings of either, or blanks."""

from __future__ import annotations

import json
import math


def as_float(value: object) -> float | None:
    """Return `value` as a finite float (`8`, `8.0`, `"8"`, `" 8.0 "` all work), or None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        try:
            number = float(value)
        except OverflowError:  # an int of hundreds of digits
            return None
    elif isinstance(value, str):
        text = value.strip().replace(",", "")
        if not text:
            return None
        try:
            number = float(text)
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def finite(value: object) -> float | None:
    """Return `value` when it is a finite JSON number (not a bool, a string, NaN or an infinity:
    Python's json reads `NaN`, `Infinity` and `1e400` as floats), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:  # an int of hundreds of digits: no float holds it
        return None
    return number if math.isfinite(number) else None


def json_numbers(text: str) -> float:
    """Return a JSON number's float for `json.loads(parse_float=…, parse_int=…)`, NaN where no
    float holds it: `1e-400` (which Python reads as 0.0, a price it is not) or an int of
    hundreds of digits (which float() refuses with OverflowError). NaN is then refused as any
    non-finite number is (`finite`), and said, never taken for zero."""
    try:
        number = float(text)
    except OverflowError:
        return math.nan
    if number == 0 and any(c in "123456789" for c in text.lower().split("e")[0]):
        return math.nan
    return number


def as_count(value: object) -> int | None:
    """Return `value` as a positive whole number (`8.0` → 8), or None for 8.5, 0, blanks."""
    number = as_float(value)
    if number is None or number <= 0 or number != int(number):
        return None
    return int(number)


def as_flag(value: object) -> bool | None:
    """Return a 0/1/true/false flag as a bool, or None when it is something else."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("0", "1", "true", "false"):
        return value.strip().lower() in ("1", "true")
    return None


def json_int(text: str) -> int | float:
    """Return a JSON integer for `json.loads(parse_int=…)`; NaN for one longer than any float
    holds (json_numbers)."""
    return int(text) if len(text) <= 300 else math.nan


def load_json(data: bytes | str) -> object:
    """Return a third-party JSON document with every number a float holds as it is written,
    and NaN where none does (json_numbers, json_int)."""
    return json.loads(data, parse_float=json_numbers, parse_int=json_int)
