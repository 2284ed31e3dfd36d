"""The Market page and the models' pages: a page per model across its providers (put into a
shell, render/shell_page.py), the tracked models' dated histories, the index of them all, and
their charts, each drawn again only when what it shows changed (by its value)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from functools import partial

import pandas as pd

from pipeline.cache.keys import frame_digest
from pipeline.cache.store import Store
from pipeline.compose.model_groups import (
    group_page_slugs,
    model_groups,
    page_slug,
    row_anchors,
    shown_by,
)
from pipeline.compose.model_pages import model_page, tracked_models
from pipeline.models.sources import Sources
from pipeline.render.drawing import NOW, Drawing, Draws
from pipeline.render.market_page import market_files
from pipeline.render.market_past import file_path, past_market_json, quarter_ends
from pipeline.render.model_group_page import chart_path as group_chart_path
from pipeline.render.model_group_page import group_page, groups_index_md, page_path
from pipeline.render.model_page import chart_path, chart_svg, model_page_md, tracked_table_md
from pipeline.render.shell_page import SearchEntry, ShellPage
from pipeline.render.step_chart import step_svg
from pipeline.tables.catalogue_history import snapshot_time
from pipeline.tables.cost import day_end
from pipeline.tables.market import (
    calculator_profiles,
    curated_rows,
    market_table_of,
    preset_figures,
)
from pipeline.tables.price_at import with_snapshots

Files = dict[str, str | bytes | Drawing | ShellPage | SearchEntry]


def market_model_files(sources: Sources, as_of: dt.date, changes: pd.DataFrame, store: Store,
                       drawer: Draws = NOW) -> Files:
    """Return the Market page and its data, every model's page across its providers and its
    chart, each tracked model's page and chart, and `models/index.md`, as of `as_of`."""
    pages = [model_page(sources, provider, model, as_of)
             for provider, model in tracked_models(sources)]
    tracked = {(p.provider, p.model): p.slug for p in pages}
    table = market_table_of(sources, as_of)
    profiles = calculator_profiles(sources.series.profiles)
    groups, anchors, row_pages, past = [], [], [], {}
    if table is not None:
        anchors = row_anchors(table)
        blends = preset_figures(table, profiles)[[f"{p.id}_usd_per_mtok" for p in profiles]]
        end = snapshot_time(day_end(as_of))
        histories, held = shown_by({c.name: sources.price_histories[c.id]
                                    for c in sources.published_catalogues()},
                                   sources.held_prices, end)
        # By what they are made of, not the date: a new edition with no newer snapshot keeps
        # a year's 3,500 groups (1.5 s to make).
        groups = store.cached(
            "compose", partial(model_groups, table, blends, anchors, histories, tracked, held,
                               end),
            ("model-groups", frame_digest(table), frame_digest(blends),
             frame_digest(pd.DataFrame({"anchor": anchors})),
             sorted((name, frame_digest(h)) for name, h in histories.items()),
             sorted(tracked.items()), frame_digest(held), end))
        # A model's page never takes the path of a tracked model's (`models/<provider>-<model>`).
        final = group_page_slugs((g.slug for g in groups), tracked.values())
        groups = [dataclasses.replace(g, slug=final[g.slug]) for g in groups]
        row_pages = [final[page_slug(m)] for m in table["model"]]
        past = _past_markets(sources, as_of, final, store)
    files: Files = dict(market_files(sources, as_of, changes, table, row_pages, anchors,
                                     sorted(past, reverse=True)))
    files.update({file_path(day): body for day, body in past.items()})
    if table is not None:
        files["market/"] = SearchEntry(
            "Market: every model with a token price",
            f"{len(table):,} models from {table['provider'].nunique()} providers: input, "
            "cached input and output prices per million tokens, context, batch, and a "
            "calculator of a workload's cost and tokens per dollar.")
    files["models/index.md"] = groups_index_md(groups, tracked_table_md(pages))
    across = {(item.provider, item.model): g.slug for g in groups for item in g.listings}
    for page in pages:
        # By the page's value (its repr holds every price, date and link it shows): a year's
        # 1,200 pages took 2.4 s a build to render, most of them unchanged.
        link = across.get((page.provider, page.model))
        files[f"models/{page.slug}.md"] = store.cached(
            "render", partial(model_page_md, page, link), ("model-page", page, link))
        if page.lists:
            files[chart_path(page)] = store.cached(
                "charts", partial(drawer.submit, chart_svg, page.chart), ("model", page.chart))
    for group in groups:
        files[page_path(group)] = group_page(group, profiles, as_of)
        if group.paths is not None:
            # Written directly, not by matplotlib's workers: over a thousand pages have a chart
            # (render/step_chart.py), each well under a millisecond to write.
            files[group_chart_path(group)] = step_svg(group.paths)
    return files


def _past_markets(sources: Sources, as_of: dt.date, slugs: dict[str, str],
                  store: Store) -> dict[dt.date, bytes]:
    """Return the Market's table at the end of each quarter the catalogues' histories cover
    before `as_of`, as the page's calculator loads it (render/market_past.py); `slugs`: the
    model pages by their stem (compose/model_groups.page_slug). Each kept by what it reads:
    the histories, the curated prices as of then, the model facts and today's page names."""
    published = sources.published_catalogues()
    histories = [sources.price_histories[c.id] for c in published]
    # From the first version a replay read (its commit kept): a fetched history's few rows
    # seen before the replayed ones are not the market of their day.
    starts = ([h.loc[h["commit"] != "", "first_seen"].min() for h in histories] or [])
    starts = [s for s in starts if isinstance(s, str)] or [
        h["first_seen"].min() for h in histories if not h.empty]
    if not starts:
        return {}
    inputs = (sorted((c.id, repr(c), frame_digest(sources.price_histories[c.id]))
                     for c in published),
              sorted((k, frame_digest(f)) for k, f in sources.model_facts.items()),
              frame_digest(sources.held_prices), sorted(slugs.items()))
    out = {}
    for day in quarter_ends(dt.date.fromisoformat(min(starts)[:10]), as_of):
        curated = (curated_rows(sources.prices, sources.rates, day)
                   if sources.prices and sources.rates is not None else None)

        def body(day: dt.date = day) -> bytes:
            table = with_snapshots(market_table_of(sources, day), sources, day)
            pages = {m: slugs[s] for m in set(table["model"])
                     if (s := page_slug(m)) in slugs}
            return past_market_json(table, day, pages, published)

        out[day] = store.cached("render", body, ("market-on", day, frame_digest(curated),
                                                 inputs))
    return out
