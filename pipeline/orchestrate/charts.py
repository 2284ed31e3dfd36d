"""Edition charts, each drawn once: its drawing kept in the store (cache/store.py) by its spec."""

from __future__ import annotations

import hashlib
from functools import partial

from pipeline.cache.store import Store
from pipeline.compose.charts import ChartSpec
from pipeline.render.chart_figures import spec_svg
from pipeline.render.chart_image import IN_PROCESS, ChartDrawer, ChartImage, ready
from pipeline.render.charts import Chart, chart_of


def spec_digest(spec: ChartSpec) -> str:
    """Return a hash of a chart's content, the key under which its drawing is kept."""
    # Its repr holds every field (floats in full): a twentieth of the time of JSON of asdict.
    return hashlib.sha256(repr(spec).encode()).hexdigest()


class ChartCache:
    """ChartDrawer charts, each drawing kept in `store`'s charts stage under the digest of its spec
    (and of the drawing code, which the store adds to every key), so it is drawn once.

    A missing drawing goes to `drawer` (its workers draw it while the build goes on; without one
    it is drawn right away) and is kept, as its bytes, when the store is kept (after the site is
    built); what no build asked for is pruned with the rest of the store. Only the site's SVGs
    are kept: an e-mail's PNG is drawn when the e-mail is made."""

    def __init__(self, store: Store | None = None, drawer: ChartDrawer = IN_PROCESS) -> None:
        self.store = store if store is not None else Store(None, {})
        self.drawer = drawer

    def is_empty(self) -> bool:
        """Is no drawing of this code kept yet (a build that draws every chart)?"""
        return self.store.is_empty("charts")

    def chart(self, spec: ChartSpec) -> Chart:
        """Return the chart of `spec`, its drawing kept or handed to the drawer."""
        drawing = self.store.cached("charts", partial(self.drawer.submit, spec_svg, spec),
                                    ("edition-chart", spec_digest(spec)), by=spec_svg)
        return chart_of(spec, drawing if isinstance(drawing, ChartImage) else ready(drawing))
