"""The FX edge: refresh the snapshot of the ECB reference rates when online (`brief ingest fx`)."""

from __future__ import annotations

from pathlib import Path

from pipeline.formats.ecb import EcbFormatError, parse_ecb_history
from pipeline.paths import FX_SNAPSHOT
from pipeline.whole_files import write_whole

ECB_HISTORY_URL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.zip"
SNAPSHOT = FX_SNAPSHOT
MAX_BYTES = 20 * 1024 * 1024
"""The history zip is about 0.6 MB; refuse anything far larger rather than fill the disk."""


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
