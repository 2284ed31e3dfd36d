"""Pure: what the Market page and the models' pages show as of the newest edition, as one value:
the Market's table, every model across its providers (model_groups.py), the tracked models'
pages (model_pages.py) and the quarters whose past Market the page's calculator offers."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from pipeline.compose.model_groups import (
    ModelGroup,
    group_page_slugs,
    model_groups,
    page_slug,
    row_anchors,
    shown_by,
)
from pipeline.compose.model_pages import ModelPage, model_page, tracked_models
from pipeline.models.prices import WorkloadProfile
from pipeline.models.sources import Sources
from pipeline.tables.catalogue_history import snapshot_time
from pipeline.tables.cost import day_end
from pipeline.tables.market import calculator_profiles, market_table_of, preset_figures
from pipeline.tables.price_at import with_snapshots


@dataclass(frozen=True, eq=False)
class GroupInputs:
    """What the models' pages across their providers are made of (model_groups' arguments):
    the Market's table, each row's calculator blends and anchor, the catalogues' histories and
    held listings shown by `end` (shown_by), the tracked models' page slugs."""

    table: pd.DataFrame
    blends: pd.DataFrame
    anchors: list[str]
    histories: dict[str, pd.DataFrame]
    tracked: dict[tuple[str, str], str]
    held: pd.DataFrame | None
    end: str

    def groups(self) -> list[ModelGroup]:
        """Return a group per model of the table (model_groups), before their final slugs."""
        return model_groups(self.table, self.blends, self.anchors, self.histories,
                            self.tracked, self.held, self.end)


@dataclass(frozen=True, eq=False)
class Market:
    """The Market family as of `as_of`: `table` (None: no catalogue followed and no prices),
    `changes` (every move of the published catalogues with its commit, data/changes.csv), the
    calculator's `profiles`, each row's `anchors` and model page (`row_pages`), a group per
    model under its final slug (`groups`), the tracked models' `pages`, the final slug of each
    page by its stem (`slugs`) and the quarter ends of the past Markets offered, newest first
    (`past`)."""

    as_of: dt.date
    changes: pd.DataFrame
    table: pd.DataFrame | None
    profiles: list[WorkloadProfile]
    anchors: list[str]
    row_pages: list[str]
    groups: list[ModelGroup]
    pages: list[ModelPage]
    slugs: dict[str, str]
    past: list[dt.date]

    def across(self) -> dict[tuple[str, str], str]:
        """Return the slug of the page across providers of each (provider, model) listed."""
        return {(item.provider, item.model): g.slug for g in self.groups for item in g.listings}


def market(sources: Sources, as_of: dt.date, changes: pd.DataFrame, table: pd.DataFrame | None,
           groups_of: Callable[[GroupInputs], list[ModelGroup]] = GroupInputs.groups) -> Market:
    """Return the Market family's value as of `as_of`; `table`: the Market's table then
    (market_table_of, None when nothing is listed); `groups_of` makes the groups of their
    inputs (the build's finds them kept: a year's 3,500 groups take 1.5 s)."""
    pages = [model_page(sources, provider, model, as_of)
             for provider, model in tracked_models(sources)]
    tracked = {(p.provider, p.model): p.slug for p in pages}
    profiles = calculator_profiles(sources.series.profiles)
    if table is None:
        return Market(as_of, changes, None, profiles, [], [], [], pages, {}, [])
    anchors = row_anchors(table)
    blends = preset_figures(table, profiles)[[f"{p.id}_usd_per_mtok" for p in profiles]]
    end = snapshot_time(day_end(as_of))
    histories, held = shown_by({c.name: sources.price_histories[c.id]
                                for c in sources.published_catalogues()},
                               sources.held_prices, end)
    groups = groups_of(GroupInputs(table, blends, anchors, histories, tracked, held, end))
    # A model's page never takes the path of a tracked model's (`models/<provider>-<model>`).
    final = group_page_slugs((g.slug for g in groups), tracked.values())
    groups = [dataclasses.replace(g, slug=final[g.slug]) for g in groups]
    return Market(as_of, changes, table, profiles, anchors,
                  [final[page_slug(m)] for m in table["model"]], groups, pages, final,
                  _past_days(sources, as_of))


def past_market(sources: Sources, day: dt.date, slugs: dict[str, str]
                ) -> tuple[pd.DataFrame, dict[str, str]]:
    """Return the Market's table at the end of `day` with the snapshot of each row's price
    (render/market_past.py), and today's model page of each model it has one for, by id;
    `slugs`: the model pages by their stem (Market.slugs)."""
    table = with_snapshots(market_table_of(sources, day), sources, day)
    return table, {m: slugs[s] for m in set(table["model"]) if (s := page_slug(m)) in slugs}


def quarter_ends(first: dt.date, before: dt.date) -> list[dt.date]:
    """Return the last day of each quarter from `first`'s to the last that ends before
    `before`, newest first."""
    days = pd.date_range(first, before - dt.timedelta(days=1), freq="QE")
    return [d.date() for d in reversed(days)]


def _past_days(sources: Sources, as_of: dt.date) -> list[dt.date]:
    """Return the end of each quarter the catalogues' histories cover before `as_of`."""
    histories = [sources.price_histories[c.id] for c in sources.published_catalogues()]
    # From the first version a replay read (its commit kept): a fetched history's few rows
    # seen before the replayed ones are not the market of their day.
    starts = [h.loc[h["commit"] != "", "first_seen"].min() for h in histories]
    starts = [s for s in starts if isinstance(s, str)] or [
        h["first_seen"].min() for h in histories if not h.empty]
    if not starts:
        return []
    return quarter_ends(dt.date.fromisoformat(min(starts)[:10]), as_of)
