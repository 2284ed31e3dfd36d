"""Read the ECB's euro reference-rate history (eurofxref-hist.zip / .csv): bytes in, rates out."""

from __future__ import annotations

import csv
import datetime as dt
import io
import math
import zipfile


class EcbFormatError(ValueError):
    """The bytes are not the ECB's reference-rate history."""


def parse_ecb_history(data: bytes) -> dict[str, dict[dt.date, float]]:
    """Return {currency: {date: units of currency per euro}} from the zip or the CSV inside it."""
    if data[:2] == b"PK":
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                names = [n for n in archive.namelist() if n.lower().endswith(".csv")]
                if not names:
                    raise EcbFormatError("the zip holds no CSV file")
                data = archive.read(names[0])
        except zipfile.BadZipFile as err:
            raise EcbFormatError(f"not a readable zip: {err}") from None
    rows = csv.reader(io.StringIO(data.decode("utf-8-sig")))
    header = next(rows, None)
    if not header or header[0].strip() != "Date":
        raise EcbFormatError("expected a CSV whose first column is `Date`")
    currencies = [c.strip() for c in header[1:]]
    rates: dict[str, dict[dt.date, float]] = {c: {} for c in currencies if c}
    for row in rows:
        if not row or not row[0].strip():
            continue
        day = dt.date.fromisoformat(row[0].strip())
        for currency, cell in zip(currencies, row[1:]):
            cell = cell.strip()
            # The ECB writes N/A for currencies it did not quote that day (or any more).
            if currency and cell and cell != "N/A":
                try:
                    rate = float(cell)
                except ValueError:
                    rate = math.nan
                if not (math.isfinite(rate) and rate > 0):
                    raise EcbFormatError(f"{day} {currency}: {cell!r} is not a rate (a finite "
                                         "number above 0)")
                rates[currency][day] = rate
    return rates
