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

import os
import struct
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.whole_files import write_whole

DEAD_SHARE = 0.25
"""Rewrite a file once this share of what it holds is values no build used last."""

_HEADER = struct.Struct("<4sQI")
"""A frame's header: a tag, the length of its payload and the payload's CRC-32. A torn frame
(a killed build) followed by another build's frame fails its CRC, so reading stops there rather
than read one frame's bytes as part of the other."""
_TAG = b"BRF1"


@dataclass
class Log:
    """What a log file held when it was read."""

    values: dict[str, Any] = field(default_factory=dict)
    whole: bool = False
    """Every frame was read in full (False when the file was missing, torn or unreadable)."""


def read_log(path: Path | None, loads: Callable[[bytes], Any]) -> Log:
    """Return the values of every whole frame of `path`, later frames winning, up to the first
    damaged one. `loads` turns a frame's payload into its dict (pickle.loads, marshal.loads)."""
    if path is None:
        return Log()
    try:
        data = memoryview(path.read_bytes())
    except OSError:
        return Log()
    values: dict[str, Any] = {}
    at = 0
    while at < len(data):
        if len(data) - at < _HEADER.size:
            return Log(values, whole=False)
        tag, size, crc = _HEADER.unpack_from(data, at)
        payload = data[at + _HEADER.size:at + _HEADER.size + size]
        if tag != _TAG or len(payload) != size or zlib.crc32(payload) != crc:
            return Log(values, whole=False)
        try:
            frame = loads(payload)
        except Exception:  # a payload from other code: whatever its loader makes of it
            return Log(values, whole=False)
        if not isinstance(frame, dict):
            return Log(values, whole=False)
        values.update(frame)
        at += _HEADER.size + size
    return Log(values, whole=True)


def frame(payload: bytes) -> tuple[bytes, bytes]:
    """Return `payload` as one frame of a log file: its header, then the payload itself.

    Two parts, written one after the other: joined, a cold year's 50 MB of page HTML would be
    copied once more only to be prefixed, 50 MiB more at the build's peak memory."""
    return _HEADER.pack(_TAG, len(payload), zlib.crc32(payload)), payload


def save_log(path: Path | None, before: Log, used: Mapping[str, Any],
             dumps: Callable[[Any], bytes]) -> None:
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
                _append(path, frame(dumps(added)))
            return
        write_whole(path, frame(dumps(used if isinstance(used, dict) else dict(used))))
    except OSError:
        pass


def _append(path: Path, parts: tuple[bytes, bytes]) -> None:
    # One system call, as one write of the joined frame would be: another build appending to the
    # same file (two --out folders share .cache/) cannot land between header and payload. Cut
    # short (a full disk), it leaves a torn frame, as a killed build does.
    with path.open("ab", buffering=0) as f:
        os.writev(f.fileno(), parts)
