"""JSON of flat rows (objects whose values are strings, numbers, booleans or null), byte for byte
as `json.dumps(..., indent=1, ensure_ascii=False)` writes them, but by json's C encoder.

With `indent`, the json module falls back to its pure-Python encoder: writing prices.json took
0.8 s of every build that changed a price at a year's scale, and hardware.json (94 MB) much of a
cold build. Without `indent` the C encoder writes the same text when the item separator carries
the newline and the indentation, which for a flat object is all an indent changes.

Strict JSON: a figure that is not a finite number (tokens per dollar of a free price) is written
as null, never as the `NaN` or `Infinity` that strict parsers refuse.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping

_SCALARS = (str, int, float, bool, type(None))


def row_json(row: Mapping[str, object], level: int) -> str:
    """Return `row` as json.dumps(indent=1) writes an object nested `level` deep (0 at the top).

    A row with a list or object among its values is written by json.dumps itself."""
    if not row:
        return "{}"
    if any(isinstance(v, float) and not math.isfinite(v) for v in row.values()):
        row = {k: None if isinstance(v, float) and not math.isfinite(v) else v
               for k, v in row.items()}
    pad = " " * (level + 1)
    if not all(isinstance(v, _SCALARS) for v in row.values()):
        return json.dumps(row, indent=1, ensure_ascii=False,
                          allow_nan=False).replace("\n", "\n" + " " * level)
    inner = json.dumps(row, ensure_ascii=False, allow_nan=False,
                       separators=(",\n" + pad, ": "))
    return "{\n" + pad + inner[1:-1] + "\n" + " " * level + "}"


def rows_json(rows: Iterable[Mapping[str, object]], level: int = 0) -> str:
    """Return a list of rows as json.dumps(indent=1) writes a list nested `level` deep."""
    pad = " " * (level + 1)
    items = [pad + row_json(row, level + 1) for row in rows]
    if not items:
        return "[]"
    return "[\n" + ",\n".join(items) + "\n" + " " * level + "]"
