"""The site's page families, each declared once: what it reads, how it is composed and rendered,
and, where a build reuses it whole, what it is kept under.

A family reads the sources only through a view that holds the `Sources` attributes it declares
(`SourcesView`), and the editions' tables only through one that holds the tables it declares, so
a family that reads anything else fails the build (and tests/test_families.py) instead of being
kept under a key that misses what it read. `site_files` (files.py) runs them in the order of
`FAMILIES`; the Data page comes after them all, as it describes every data file they wrote.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import types
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.cache.keys import InputDigests, hardware_files_key
from pipeline.cache.store import Store
from pipeline.compose.charts import ChartSpec
from pipeline.compose.discrepancies import discrepancies
from pipeline.compose.economics import economics_as_of
from pipeline.compose.edition_tables import EditionTables, changes_pages
from pipeline.compose.hardware import hardware_shown
from pipeline.compose.provider_pages import provider_pages
from pipeline.compose.sources_page import sources_shown
from pipeline.compose.types import Edition
from pipeline.models.sources import Sources
from pipeline.orchestrate.compose import chart_spec
from pipeline.orchestrate.editions import edition_files
from pipeline.orchestrate.models import market_model_files, market_of
from pipeline.orchestrate.prices import kept_price_files, prices_of
from pipeline.render.changes_page import changes_files
from pipeline.render.channels import editions_per_month
from pipeline.render.chart_image import ChartDrawer
from pipeline.render.charts import Chart
from pipeline.render.discrepancies_page import discrepancies_page_md
from pipeline.render.economics_page import economics_files
from pipeline.render.hardware_page import hardware_files
from pipeline.render.pages import archive_page
from pipeline.render.provider_pages import provider_files
from pipeline.render.sources_page import sources_page
from pipeline.render.subscribe_page import subscribe_page

Files = dict[str, Any]
"""A family's files by path in the docs: text, bytes, drawings, shell pages, search entries."""


class UndeclaredRead(RuntimeError):
    """A page family read a source attribute or table its declaration does not name."""


class _Unread:
    """What a family kept by its reads sees of the editions: nothing (they are made of every
    lane and entry, which its key does not name)."""

    def __init__(self, family: str) -> None:
        self._family = family

    def __getattr__(self, name: str) -> Any:
        raise UndeclaredRead(f"page family {self._family!r} is kept by what it reads and reads "
                             "the editions: read the Site's dates, or declare it kept=False")

    def __iter__(self) -> Any:
        return self.__getattr__("__iter__")

    def __getitem__(self, index: object) -> Any:
        return self.__getattr__("__getitem__")


@dataclass(frozen=True)
class Site:
    """What every family is built with besides the sources and tables: the editions and their
    dates, where kept values live, the chart drawer and the templates."""

    editions: list[Edition]
    store: Store
    keys: InputDigests
    drawer: ChartDrawer
    chart: Callable[[ChartSpec], Chart]
    templates: Path
    dates: list[dt.date] = field(default_factory=list)
    """The editions' dates, oldest first (their editions' when not given)."""

    def __post_init__(self) -> None:
        if not self.dates:
            object.__setattr__(self, "dates", [e.date for e in self.editions])

    @property
    def as_of(self) -> dt.date:
        """The newest edition's date: the pages other than the editions' show the site then."""
        return self.dates[-1]

    @property
    def previous(self) -> dt.date | None:
        """The date of the edition before the newest, if any."""
        return self.dates[-2] if len(self.dates) > 1 else None


@dataclass(frozen=True)
class Family:
    """One page family: `reads`, the `Sources` attributes it reads (its compose, render and key
    alike; a method of Sources reads through the view, so it names what the method reads);
    `tables`, the editions' tables it reads (compose/parts.EditionTables methods), whose own reads of
    the sources its `reads` name too; `compose`, its value (None: its render/ module still
    composes what it shows); `render`, that value → its files.

    Its files are kept whole in the store under the digests of what it reads and the edition
    dates (`family_key`), so an edit of anything else keeps them; `key`, when given, narrows
    that to the digests it returns (the hardware page: not by the newest date but by what is
    public then); `kept=False`, a family made of the editions themselves, made every build."""

    name: str
    reads: frozenset[str]
    render: Callable[[Sources, Any, Site], Files]
    compose: Callable[[Sources, EditionTables, Site], Any] | None = None
    tables: frozenset[str] = frozenset()
    key: Callable[[Sources, Site], tuple] | None = None
    kept: bool = True


class _View:
    """`of`'s attributes named by `allowed`, and nothing else: any other raises UndeclaredRead,
    naming the family and the attribute. Each attribute read is noted in `read` (the test that
    every declared read is used)."""

    __slots__ = ("_of", "_family", "_allowed", "_kind", "read")

    def __init__(self, of: object, family: str, allowed: Collection[str], kind: str) -> None:
        self._of, self._family, self._allowed, self._kind = of, family, allowed, kind
        self.read: set[str] = set()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        method = getattr(type(self._of), name, None)
        if self._kind == "source" and isinstance(method, types.FunctionType):
            # A method of Sources (published_catalogues) reads through this view.
            return types.MethodType(method, self)
        if name in self._allowed:
            self.read.add(name)
            return getattr(self._of, name)
        field = "reads" if self._kind == "source" else "tables"
        raise UndeclaredRead(
            f"page family {self._family!r} reads {self._kind} {name!r}, which its declaration "
            f"does not name: add it to the family's {field} in orchestrate/families.py")


def sources_view(sources: Sources, family: Family) -> Any:
    """Return `sources` as `family` may read them (its declared attributes only)."""
    return _View(sources, family.name, family.reads, "source")


def tables_view(parts: EditionTables, family: Family) -> Any:
    """Return the editions' tables as `family` may read them (its declared tables only)."""
    return _View(parts, family.name, family.tables, "table")


def family_key(family: Family, sources: Any, site: Site) -> tuple:
    """Return what `family`'s files are kept under: the digest of each source it declares it
    reads (cache/keys.py SOURCE_DIGESTS) and the edition dates, or its own `key`."""
    if family.key is not None:
        return ("family", family.name, family.key(sources, site))
    return ("family", family.name, site.dates,
            [(name, site.keys.read(name)) for name in sorted(family.reads)])


def family_files(family: Family, sources: Any, tables: Any, site: Site) -> Files:
    """Return `family`'s files: composed, then rendered; kept whole under its key unless it is
    made of the editions. `sources` and `tables`: the family's views (sources_view,
    tables_view)."""
    if not family.kept:
        value = family.compose(sources, tables, site) if family.compose else None
        return family.render(sources, value, site)

    unread = dataclasses.replace(site, editions=_Unread(family.name))

    def made() -> Files:
        value = family.compose(sources, tables, unread) if family.compose else None
        return family.render(sources, value, unread)

    return site.store.cached("render", made, family_key(family, sources, unread))


def _edition_specs(s: Sources, t: EditionTables, site: Site) -> dict[dt.date, ChartSpec]:
    # Each edition's chart (the most tokens per dollar then), kept by what its price part reads.
    if not s.prices or s.rates is None:
        return {}
    return {e.date: chart_spec(t, site.store, site.keys, e.date, e.previous)
            for e in site.editions}


def _edition_files(s: Sources, specs: dict[dt.date, ChartSpec], site: Site) -> Files:
    charts = {e.date: [site.chart(specs[e.date])] if e.date in specs else []
              for e in site.editions}
    files = edition_files(s, site.editions, charts, site.store, site.templates)
    for chart in (c for drawn in charts.values() for c in drawn):
        files.update(chart.files())
    return files


def _archive_files(s: Sources, value: None, site: Site) -> Files:
    chart = site.chart(editions_per_month(site.editions))
    return {"archive.md": archive_page(site.editions, [chart], site.templates),
            **chart.files()}


FAMILIES: tuple[Family, ...] = (
    Family("editions", frozenset({"series", "entries", "prices", "rates"}),
           compose=_edition_specs, tables=frozenset({"cheapest_spec"}), render=_edition_files,
           kept=False),
    Family("archive", frozenset(), render=_archive_files, kept=False),
    Family("subscribe", frozenset({"series"}),
           render=lambda s, value, site: {"subscribe.md": subscribe_page(s.series)}),
    # By all hardware sources and which results and costs are public by the newest edition:
    # most new editions leave the Hardware page as it was.
    Family("hardware", frozenset({"hardware", "hardware_rows", "rates"}),
           compose=lambda s, t, site: hardware_shown(s, site.as_of),
           render=lambda s, shown, site: hardware_files(shown, site.drawer),
           key=lambda s, site: hardware_files_key(s, site.as_of, site.keys.hardware)),
    Family("prices", frozenset({"prices", "rates", "series"}), tables=frozenset({"quotes"}),
           compose=lambda s, t, site: prices_of(s, site.dates, t.quotes(*site.dates)),
           render=lambda s, page, site: kept_price_files(page, site.store, site.keys,
                                                         site.drawer)),
    Family("sources", frozenset({"feeds", "snapshots", "catalogues", "catalogue_health",
                                 "held_prices"}),
           compose=lambda s, t, site: sources_shown(s, site.as_of, site.previous),
           render=lambda s, shown, site: {"sources.md": sources_page(shown)}),
    Family("market", frozenset({"prices", "rates", "series", "catalogues", "price_histories",
                                "held_prices", "model_facts", "other_modes", "other_billing",
                                "catalogue_commits", "catalogue_health"}),
           tables=frozenset({"committed_changes", "market_table"}),
           compose=lambda s, t, site: market_of(s, site.as_of, t.committed_changes(),
                                                t.market_table(site.as_of), site.store),
           render=lambda s, market, site: market_model_files(s, market, site.store, site.drawer)),
    # Each page in the navigation is written, saying so where the repository has nothing for it.
    Family("changes", frozenset({"catalogues", "price_histories", "prices", "catalogue_commits",
                                 "catalogue_health"}),
           tables=frozenset({"committed_changes"}),
           compose=lambda s, t, site: changes_pages(s, t.committed_changes(), site.as_of),
           render=lambda s, v, site: changes_files(v.moves, v.catalogues, v.curated,
                                                   site.as_of)),
    Family("discrepancies", frozenset({"catalogues", "price_histories", "prices", "held_prices"}),
           compose=lambda s, t, site: discrepancies(s, site.as_of),
           render=lambda s, v, site: {"discrepancies.md": discrepancies_page_md(v)}),
    Family("providers", frozenset({"prices", "rates", "catalogues", "price_histories",
                                   "held_prices", "catalogue_health", "model_facts",
                                   "catalogue_commits"}),
           tables=frozenset({"committed_changes", "market_table"}),
           compose=lambda s, t, site: provider_pages(s, t.committed_changes(), site.as_of,
                                                     t.market_table(site.as_of)),
           render=lambda s, pages, site: provider_files(pages)),
    # By what the index and the cost to serve read and the edition dates: an entry's edit keeps
    # the page, its charts and data files.
    Family("economics", frozenset({"prices", "rates", "catalogues", "price_histories",
                                   "catalogue_commits", "catalogue_health", "model_facts",
                                   "hardware", "hardware_rows"}),
           tables=frozenset({"market_economics", "cost_table"}),
           compose=lambda s, t, site: economics_as_of(t.market_economics(), t.cost_table,
                                                      site.as_of),
           render=lambda s, v, site: economics_files(*v, site.as_of, site.previous, site.drawer)),
)
"""Every page family, in the order their files are added (the Data page comes after them)."""
