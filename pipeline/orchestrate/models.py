"""The Market family kept between builds: its value (compose/market.py) with the groups kept by
what they are made of, each past Market's file and each tracked model's page and chart kept by
what it shows, and the value rendered (render/market_family.py)."""

from __future__ import annotations

import datetime as dt
from functools import partial

import pandas as pd

from pipeline.cache.keys import frame_digest
from pipeline.cache.store import Store
from pipeline.compose.market import GroupInputs, Market, market, past_market
from pipeline.compose.model_groups import ModelGroup
from pipeline.models.sources import Sources
from pipeline.render.chart_image import IN_PROCESS, ChartDrawer
from pipeline.render.market_family import Files, market_family_files
from pipeline.render.market_past import past_market_json
from pipeline.render.model_page import chart_path, chart_svg, model_page_md
from pipeline.tables.market import curated_rows


def market_of(sources: Sources, as_of: dt.date, changes: pd.DataFrame, table: pd.DataFrame | None,
              store: Store) -> Market:
    """Return the Market family's value as of `as_of` from its table then, its groups kept in
    `store`."""
    def groups(made: GroupInputs) -> list[ModelGroup]:
        # By what they are made of, not the date: a new edition with no newer snapshot keeps
        # a year's 3,500 groups (1.5 s to make).
        return store.cached(
            "compose", made.groups,
            ("model-groups", frame_digest(made.table), frame_digest(made.blends),
             frame_digest(pd.DataFrame({"anchor": made.anchors})),
             sorted((name, frame_digest(h)) for name, h in made.histories.items()),
             sorted(made.tracked.items()), frame_digest(made.held), made.end))

    return market(sources, as_of, changes, table, groups)


def market_model_files(sources: Sources, value: Market, store: Store,
                       drawer: ChartDrawer = IN_PROCESS) -> Files:
    """Return the Market family's files of `value`, reusing the past Markets' files and the
    tracked models' pages and charts an earlier build made of the same."""
    tracked: Files = {}
    across = value.across()
    for page in value.pages:
        # By the page's value (its repr holds every price, date and link it shows): a year's
        # 1,200 pages took 2.4 s a build to render, most of them unchanged.
        link = across.get((page.provider, page.model))
        tracked[f"models/{page.slug}.md"] = store.cached(
            "render", partial(model_page_md, page, link), ("model-page", page, link))
        if page.lists:
            tracked[chart_path(page)] = store.cached(
                "charts", partial(drawer.submit, chart_svg, page.chart), ("model", page.chart),
                by=chart_svg)
    return market_family_files(sources, value, _past_markets(sources, value, store), tracked)


def _past_markets(sources: Sources, value: Market, store: Store) -> dict[dt.date, bytes]:
    """Return the file of the Market at each of `value.past`, each kept by what it reads: the
    histories, the curated prices as of then, the model facts and today's page names."""
    published = sources.published_catalogues()
    inputs = (sorted((c.id, repr(c), frame_digest(sources.price_histories[c.id]))
                     for c in published),
              sorted((k, frame_digest(f)) for k, f in sources.model_facts.items()),
              frame_digest(sources.held_prices), sorted(value.slugs.items()))
    out = {}
    for day in value.past:
        curated = (curated_rows(sources.prices, sources.rates, day)
                   if sources.prices and sources.rates is not None else None)

        def body(day: dt.date = day) -> bytes:
            table, pages = past_market(sources, day, value.slugs)
            return past_market_json(table, day, pages, published)

        out[day] = store.cached("render", body, ("market-on", day, frame_digest(curated),
                                                 inputs))
    return out
