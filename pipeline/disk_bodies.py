"""A file of the site kept on disk until its bytes are needed (beside bytes in memory and drawings
still being drawn, render/chart_image.py). Below every stage: the store opens these, render and
publish read them, and neither side may import the other."""

from __future__ import annotations

import os
from pathlib import Path


class DiskBody:
    """A file of the site whose bytes stay on disk until something needs them: the large data
    files the store keeps under `.cache/store/blobs/` (cache/store.py), ~165 MB at a year's scale, which
    every build read back and then compared with the published copies, read too. Their digest is
    known, so the publisher links the published copy without reading either when the last build
    published this very digest there (`link_unchanged`).

    The file is opened at once and held open: another build may prune it meanwhile, and an open
    file outlives its name."""

    def __init__(self, path: Path, digest: str, size: int) -> None:
        self.path = path
        self.digest = digest
        self.size = size
        self._file = path.open("rb")  # OSError when gone: the caller computes the value again
        if os.fstat(self._file.fileno()).st_size != size:
            self._file.close()
            raise OSError(f"{path} is not {size} bytes")

    def read(self) -> bytes:
        return os.pread(self._file.fileno(), self.size, 0)

    def close(self) -> None:
        self._file.close()

    def head(self, size: int) -> bytes:
        return os.pread(self._file.fileno(), min(size, self.size), 0)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DiskBody) and self.digest == other.digest

    def __hash__(self) -> int:
        return hash(self.digest)
