"""Files written whole: beside their name, then renamed over it, so a reader (or the next build,
after one killed midway) finds the old file or the new one, never half of one. I/O at the edge:
the pure core never sees it."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path


def write_whole(path: Path, data: bytes | Sequence[bytes], *, durable: bool = False) -> None:
    """Write `data` (bytes, or parts written one after the other) to `path` whole, making its
    folder if missing; OSError when it cannot.

    `durable`: on disk, the rename too, before this returns (what a fetch stores for an editor
    to commit); caches need not be, the next build computes again what a crash lost."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as err:  # named for the file meant, not the temporary one
        raise OSError(err.errno, err.strerror, str(path)) from err
    try:
        with os.fdopen(fd, "wb") as f:
            f.writelines([data] if isinstance(data, bytes) else data)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as err:
        Path(tmp).unlink(missing_ok=True)
        if err.filename in (None, tmp):  # name the file being written, not its stand-in
            raise OSError(err.errno, err.strerror, str(path)) from err
        raise
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if durable:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
