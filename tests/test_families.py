"""Each page family reads exactly what its declaration names (orchestrate/families.py): anything
else fails, naming the family and what it read, and nothing it declares goes unread on the
bundled sources (their histories cut to a few models: conftest.few_models_site, which reads as
much of them as the whole, in 2 s rather than 7), so a family kept by what it declares is kept
by what it reads."""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

import pytest

from pipeline.cache.keys import InputDigests
from pipeline.cache.store import Store
from pipeline.compose.edition import compose_editions
from pipeline.compose.edition_tables import EditionTables
from pipeline.load.sources import load_sources
from pipeline.models.sources import Sources
from pipeline.orchestrate.charts import ChartCache
from pipeline.orchestrate.families import (
    FAMILIES,
    Family,
    Site,
    UndeclaredRead,
    family_files,
    sources_view,
    tables_view,
)
from pipeline.paths import TEMPLATES
from pipeline.render.chart_image import ready

TODAY = dt.date(2026, 11, 30)


class Undrawn:
    """A drawer that draws nothing: what a family reads does not depend on its drawings."""

    def submit(self, fn, *args, then=None):
        return ready(b"")


class Anything:
    """Every name, as a family's reads or tables: the test records which it reads."""

    def __contains__(self, name: object) -> bool:
        return True

    def __iter__(self):  # nothing to key by: the test's store keeps nothing
        return iter(())


@pytest.fixture(scope="module")
def bundled(few_models_site: Path) -> tuple[Sources, EditionTables, Site]:
    sources = load_sources(few_models_site)
    editions = compose_editions(sources, sources.series.edition_dates(TODAY))
    dates = [e.date for e in editions]
    parts = EditionTables(sources, dates)
    charts = ChartCache(drawer=Undrawn())
    site = Site(editions, Store(None, {}), InputDigests(sources, dates, parts), charts.drawer,
                charts.chart, TEMPLATES)
    return sources, parts, site


def family(name: str) -> Family:
    return next(f for f in FAMILIES if f.name == name)


def views(declared: Family, bundled: tuple[Sources, EditionTables, Site]) -> tuple:
    """Return the family's views, its tables built over its view of the sources: what its
    tables read of them counts as its reads."""
    sources, _, site = bundled
    seen = sources_view(sources, declared)
    return seen, tables_view(EditionTables(seen, site.dates), declared)


def files_of(declared: Family, bundled: tuple[Sources, EditionTables, Site]) -> dict:
    return family_files(declared, *views(declared, bundled), bundled[2])


@pytest.mark.parametrize(("name", "reads", "tables", "read"), [
    ("subscribe", frozenset(), frozenset(), "source 'series'"),
    # Sources.published_catalogues reads through the view: its price_histories too.
    ("changes", frozenset({"catalogues", "prices"}), None, "source 'price_histories'"),
    ("economics", None, frozenset({"cost_table"}), "table 'market_economics'"),
])
def test_a_family_that_reads_what_it_does_not_declare_fails_naming_both(
        bundled, name: str, reads: frozenset | None, tables: frozenset | None,
        read: str) -> None:
    declared = family(name)
    undeclared = dataclasses.replace(declared, reads=declared.reads if reads is None else reads,
                                     tables=declared.tables if tables is None else tables)
    with pytest.raises(UndeclaredRead) as raised:
        files_of(undeclared, bundled)
    field = "reads" if read.startswith("source") else "tables"
    assert str(raised.value) == (
        f"page family {name!r} reads {read}, which its declaration does not name: add it to "
        f"the family's {field} in orchestrate/families.py")


def test_every_family_reads_all_it_declares_on_the_bundled_sources(bundled) -> None:
    site = bundled[2]
    read = {}
    for declared in FAMILIES:
        # Allowed everything, each records what it reads: its compose, render and key, and
        # its tables.
        open_ = dataclasses.replace(declared, reads=Anything(), tables=Anything())
        s, t = views(open_, bundled)
        family_files(open_, s, t, site)
        read[declared.name] = (s.read, t.read)
    assert read == {f.name: (set(f.reads), set(f.tables)) for f in FAMILIES}


def test_family_names_are_unique() -> None:
    names = [f.name for f in FAMILIES]
    assert len(names) == len(set(names))
