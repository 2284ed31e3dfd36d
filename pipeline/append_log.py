"""Values by key kept between builds in one file that each build appends to (`.cache/`).

A year of editions keeps tens of MB of computed values: each edition's parts and HTML, each
page's HTML for mkdocs. Rewriting all of it to keep the handful a new edition adds took 0.15 s of
a 2.7 s rebuild. So a file is a series of frames, each a dict of values by key, a later frame
winning over an earlier one; a build appends one frame with the values it added, and rewrites the
file with only the values it used once dead ones (replaced, or needed by no build any more) would
pass a quarter of it. A key is a digest of what its value is computed from, so a key read back
always stands for the same value.

A build killed while appending leaves a torn last frame: reading stops at the last whole frame and
the next save rewrites the file. This module is I/O at the edge: the pure core never sees it.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

DEAD_SHARE = 0.25
"""Rewrite a file once this share of what it holds is values no build used last."""

LOAD_ERRORS = (EOFError, ValueError, TypeError, AttributeError, ImportError, IndexError,
               KeyError, MemoryError)
"""What reading a torn or foreign frame raises; a loader's own error class (pickle's
UnpicklingError) is passed to read_log."""


@dataclass
class Log:
    """What a log file held when it was read."""

    values: dict[str, Any] = field(default_factory=dict)
    whole: bool = False
    """Every frame was read in full (False when the file was missing, torn or unreadable)."""


def read_log(path: Path | None, load: Callable[[IO[bytes]], Any],
             errors: tuple[type[BaseException], ...] = ()) -> Log:
    """Return the values of every whole frame of `path`, later frames winning.

    `load` reads one frame from a binary stream (pickle.load, marshal.load); `errors` are what
    it raises on a damaged frame besides the usual ones."""
    if path is None:
        return Log()
    try:
        data = path.read_bytes()
    except OSError:
        return Log()
    values: dict[str, Any] = {}
    stream = io.BytesIO(data)
    while stream.tell() < len(data):
        try:
            frame = load(stream)
        except (*LOAD_ERRORS, *errors):
            return Log(values, whole=False)
        if not isinstance(frame, dict):
            return Log(values, whole=False)
        values.update(frame)
    return Log(values, whole=True)


def save_log(path: Path | None, before: Log, used: Mapping[str, Any],
             dump: Callable[[Any, IO[bytes]], None]) -> None:
    """Keep `used` (what this build used, by key) for the next build: append the values `before`
    lacks, or rewrite the file with `used` alone when it is damaged or mostly dead.

    A read-only cache is no error: the next build computes again."""
    if path is None:
        return
    added = {key: value for key, value in used.items() if key not in before.values}
    on_file = len(before.values) + len(added)
    dead = on_file - len(used)
    try:
        if before.whole and dead <= DEAD_SHARE * on_file and path.is_file():
            if added:
                frame = io.BytesIO()
                dump(added, frame)
                with path.open("ab") as f:  # one write: a frame is whole or torn, never mixed
                    f.write(frame.getbuffer())
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        scratch = path.with_suffix(f".{os.getpid()}.tmp")
        with scratch.open("wb") as f:  # streamed: a large log is not held twice in memory
            dump(used if isinstance(used, dict) else dict(used), f)
        os.replace(scratch, path)
    except OSError:
        pass
