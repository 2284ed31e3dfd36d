"""Chart drawings kept between builds under `.cache/charts/`, by the content of their spec."""

from __future__ import annotations

import hashlib
from pathlib import Path

from pipeline.cache.code import stage_code
from pipeline.cache.stamp import CHECKOUT, prune_versions
from pipeline.compose.charts import ChartSpec
from pipeline.render.chart_figures import drawn as drawn_of
from pipeline.render.charts import Chart, chart_of
from pipeline.render.drawing import NOW, Draws, ready
from pipeline.whole_files import write_whole


def spec_digest(spec: ChartSpec) -> str:
    """Return a hash of a chart's content, the key under which its drawing is cached."""
    # Its repr holds every field (floats in full): a twentieth of the time of JSON of asdict.
    return hashlib.sha256(repr(spec).encode()).hexdigest()


class ChartCache:
    """Draws charts, keeping each drawing under `folder` by content hash so it is drawn once
    (with no folder, every chart is drawn).

    The key covers the spec and `code` (the digest of the code and library versions,
    cache/code.py, the drawing code's), so a change to either draws afresh. Missing drawings go to `drawer`
    (its workers draw them while the build goes on; without one they are drawn right away).
    Entries are written whole (temporary file, then rename), so a killed build never leaves
    half an SVG to be reused; `prune` deletes the drawings a build did not ask for. Only the
    site's SVGs are kept: an e-mail's PNG is drawn when the e-mail is made.
    """

    def __init__(self, folder: Path | None, drawer: Draws = NOW,
                 code: str | None = None) -> None:
        self.root = folder
        salt = (code if code is not None else stage_code(CHECKOUT).charts)[:16]
        # One subfolder per salt: after a change to the code or to matplotlib, the drawings of
        # this version are all missing at once, and `is_empty` says so.
        self.folder = folder / salt if folder is not None else None
        self.drawer = drawer
        self.hits = 0
        self.misses = 0
        self.used: set[str] = set()

    def is_empty(self) -> bool:
        """Is no drawing of this version kept yet (a build that draws every chart)?"""
        return (self.folder is None or not self.folder.is_dir()
                or next(self.folder.glob("*.svg"), None) is None)

    def _path(self, spec: ChartSpec) -> Path | None:
        if self.folder is None:
            return None
        key = spec_digest(spec)
        self.used.add(key)
        return self.folder / f"{key}.svg"

    def _keep(self, path: Path, svg: bytes) -> None:
        try:
            write_whole(path, svg)
        except OSError:
            # A read-only checkout still builds; it only draws every time.
            pass

    def chart(self, spec: ChartSpec) -> Chart:
        """Return the chart of `spec`, read from the cache or handed to the drawer."""
        path = self._path(spec)
        if path is not None:
            try:
                svg = path.read_bytes()
                self.hits += 1
                return chart_of(spec, ready(svg))
            except OSError:
                pass
        self.misses += 1
        return chart_of(spec, self.drawer.submit(
            drawn_of, spec, then=None if path is None else lambda d: self._keep(path, d)))

    def prune(self) -> None:
        """Delete the drawings no chart of this run asked for, and those of other versions
        (after a good build: one chart an edition, and a change to the drawing code or to
        matplotlib leaves every earlier drawing behind). Half-written files of killed builds go
        too; a build writing at the same moment then only fails to keep its drawing."""
        if self.root is None or self.folder is None or not self.root.is_dir():
            return
        prune_versions(self.folder)
        try:
            for path in self.folder.iterdir() if self.folder.is_dir() else ():
                if path.stem not in self.used:
                    path.unlink(missing_ok=True)
        except OSError:
            pass  # a read-only cache: nothing was kept either
