"""The Market family's value (compose/market.py) → its files: the Market page and its data, the
past Markets' files, `models/index.md`, and a page per model across its providers (put into a
shell, render/shell_page.py) with its price-path chart."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

from pipeline.compose.market import Market
from pipeline.compose.numbers import grouped
from pipeline.models.sources import Sources
from pipeline.render.chart_image import ChartImage
from pipeline.render.market_page import market_files
from pipeline.render.market_past import file_path
from pipeline.render.model_group_page import chart_path, group_page, groups_index_md, page_path
from pipeline.render.model_page import tracked_table_md
from pipeline.render.shell_page import SearchEntry, ShellPage
from pipeline.render.step_chart import step_svg

Files = dict[str, str | bytes | ChartImage | ShellPage | SearchEntry]


def market_family_files(sources: Sources, market: Market, past: Mapping[dt.date, bytes],
                        tracked: Mapping[str, str | ChartImage]) -> Files:
    """Return the files of `market`: `past`, each past Market's file by its day
    (market_past.past_market_json); `tracked`, the tracked models' pages and charts by path
    (model_page.py)."""
    table = market.table
    files: Files = dict(market_files(sources, market.as_of, market.changes, table,
                                     market.row_pages, market.anchors, market.past))
    files.update({file_path(day): past[day] for day in market.past})
    if table is not None:
        files["market/"] = SearchEntry(
            "Market: every model with a token price",
            f"{grouped(len(table))} models from {table['provider'].nunique()} providers: input, "
            "cached input and output prices per million tokens, context, batch, and a "
            "calculator of a workload's cost and tokens per dollar. Providers: "
            # Each provider once, so a search for one finds the Market (and its own page).
            + ", ".join(sorted(set(table["provider"].astype(str)))) + ".")
    files["models/index.md"] = groups_index_md(market.groups, tracked_table_md(market.pages))
    files.update(tracked)
    for group in market.groups:
        files[page_path(group)] = group_page(group, market.profiles, market.as_of)
        if group.paths is not None:
            # Written directly, not by matplotlib's workers: over a thousand pages have a chart
            # (render/step_chart.py), each well under a millisecond to write.
            files[chart_path(group)] = step_svg(group.paths)
    return files
