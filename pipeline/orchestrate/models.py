"""The tracked models' pages and charts, each rendered or drawn again only when what it shows
changed (by its value, as the Prices page's rarely changing charts)."""

from __future__ import annotations

import datetime as dt
from functools import partial

from pipeline.cache.store import Store
from pipeline.compose.model_pages import model_page, tracked_models
from pipeline.models.sources import Sources
from pipeline.render.drawing import NOW, Drawing, Draws
from pipeline.render.model_page import chart_path, chart_svg, model_page_md, models_index_md


def model_files(sources: Sources, as_of: dt.date, store: Store,
                drawer: Draws = NOW) -> dict[str, str | bytes | Drawing]:
    """Return `models/index.md`, each tracked model's page and its chart, as of `as_of`."""
    pages = [model_page(sources, provider, model, as_of)
             for provider, model in tracked_models(sources)]
    files: dict[str, str | bytes | Drawing] = {"models/index.md": models_index_md(pages)}
    for page in pages:
        # By the page's value (its repr holds every price, date and link it shows): a year's
        # 1,200 pages took 2.4 s a build to render, most of them unchanged.
        files[f"models/{page.slug}.md"] = store.cached("render", partial(model_page_md, page),
                                                       ("model-page", page))
        if page.lists:
            files[chart_path(page)] = store.cached(
                "charts", partial(drawer.submit, chart_svg, page.chart), ("model", page.chart))
    return files
