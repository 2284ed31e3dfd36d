"""Numbers as third-party files write them: ints, floats, strings of either, or blanks."""

from __future__ import annotations

import math


def as_float(value: object) -> float | None:
    """Return `value` as a finite float (`8`, `8.0`, `"8"`, `" 8.0 "` all work), or None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        number = float(value)
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
    number = float(value)
    return number if math.isfinite(number) else None


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
