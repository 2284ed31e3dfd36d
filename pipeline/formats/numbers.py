"""Numbers as third-party files write them: ints, floats, strings of either, or blanks."""

from __future__ import annotations

import json
import math

from pipeline.limits import MAX_CONTEXT_TOKENS, MAX_USD_PER_MTOK, MIN_USD_PER_MTOK

NOT_A_PRICE = "is not a finite price of zero or more"


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


def usd_per_mtok_problem(usd_per_mtok: float | None) -> str | None:
    """Return why a third party's price in USD per Mtok is not one to take, or None: the one
    rule for every price of every catalogue format, top-level or in a band, batch or cache.
    Not a finite number of zero or more, above MAX_USD_PER_MTOK, or a non-zero figure below
    MIN_USD_PER_MTOK, which would be published as free (a -100 % move) rather than said."""
    if usd_per_mtok is None or not usd_per_mtok >= 0:  # `not >=`: NaN too
        return NOT_A_PRICE
    if usd_per_mtok > MAX_USD_PER_MTOK:
        return (f"is above {MAX_USD_PER_MTOK:,.0f} USD per Mtok, more than any price "
                "(pipeline/limits.py)")
    if usd_per_mtok < MIN_USD_PER_MTOK and usd_per_mtok != 0:
        return (f"is too small to be told from 0 (under {MIN_USD_PER_MTOK:g} USD per Mtok it "
                "would read as 0, a free price)")
    return None


def tokens_problem(value: object, least: int) -> str | None:
    """Return why a third party's count of tokens (a band's start, a context window) is not a
    whole number from `least` to MAX_CONTEXT_TOKENS, or None."""
    number = finite(value)
    if number is None or number != int(number) or not least <= number <= MAX_CONTEXT_TOKENS:
        return (f"is not a whole number of tokens from {least:,} to {MAX_CONTEXT_TOKENS:,} "
                "(pipeline/limits.py)")
    return None


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


def load_json(data: bytes | str, repeated: list[str] | None = None) -> object:
    """Return a third-party JSON document with every number a float holds as it is written,
    and NaN where none does (json_numbers, json_int). A key given twice in one object is read
    as every JSON reader reads it, the last one winning, and its dotted path (list positions
    as integers) added to `repeated`, for the catalogue to say."""
    twice: list[tuple[dict, str]] = []

    def pairs(items: list[tuple[str, object]]) -> dict:
        obj = dict(items)
        if len(obj) < len(items):
            seen: set[str] = set()
            for key, _ in items:
                if key in seen:
                    twice.append((obj, key))
                seen.add(key)
        return obj

    doc = json.loads(data, parse_float=json_numbers, parse_int=json_int,
                     object_pairs_hook=pairs)
    if twice and repeated is not None:
        paths = _paths(doc)
        repeated += list(dict.fromkeys(
            ".".join(str(p) for p in (*paths[id(obj)], key)) for obj, key in twice))
    return doc


def _paths(doc: object) -> dict[int, tuple]:
    """Return the path of every object and list in `doc`, by its id()."""
    paths: dict[int, tuple] = {}
    stack: list[tuple[object, tuple]] = [(doc, ())]
    while stack:  # not recursive: a document may nest as deep as json reads
        node, path = stack.pop()
        paths[id(node)] = path
        children = (node.items() if isinstance(node, dict)
                    else enumerate(node) if isinstance(node, list) else ())
        stack += [(v, (*path, k)) for k, v in children if isinstance(v, (dict, list))]
    return paths
