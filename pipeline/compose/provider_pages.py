"""Pure: a page per provider as of the newest edition: its listings on the Market with their
prices, sources and first-seen dates, the price moves its catalogues' histories recorded, its
listings held back as implausible with why, and which catalogues list it and when each was last
read.

Provider ids come from third-party catalogues: a page's name is made from the id alone
(`provider_slug`), so the Market, the model pages and Discrepancies link to a provider without
knowing which other providers there are, and no two ids share a page.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from pipeline.compose.catalogue_moves import tier_words
from pipeline.compose.model_groups import group_page_slugs, page_slug
from pipeline.compose.model_pages import model_slug, slug, tracked_models
from pipeline.models.sources import Sources
from pipeline.tables.catalogue_history import snapshot_time
from pipeline.tables.cost import day_end

PRICE_MOVES = ("cut", "rise")
"""The moves a provider's page lists one by one; new and removed listings are counted."""
MAX_SLUG_CHARS = 80
"""A page name's length from the id before its digest: far under a file name's limit."""


def provider_slug(provider: str) -> str:
    """Return the name of a provider's page (`providers/<name>/`): the id itself where it is
    already a slug (`wandb`, `huggingface-together`), else its slug, `--` and a digest of the
    id. A slug never holds `--`, so no id's page takes another's."""
    base = slug(provider)
    if base and base == provider and len(base) <= MAX_SLUG_CHARS:
        return base
    digest = hashlib.sha256(provider.encode("utf-8")).hexdigest()[:16]
    return f"{base[:MAX_SLUG_CHARS] or 'provider'}--{digest}"


def provider_path(provider: str) -> str:
    """Return a provider page's URL within the site: `providers/wandb/`."""
    return f"providers/{provider_slug(provider)}/"


@dataclass(frozen=True)
class ProviderListing:
    """One Market row of the provider: its prices as the Market shows them."""

    model: str
    model_page: str
    """The slug of the model's page across providers (models/<slug>/)."""
    usd_per_mtok: tuple[float | None, float | None, float | None]
    """Input, cached input, output (None: not given); 0 is free."""
    currency: str
    """The currency the source lists it in (converted at the ECB rate of its record's date)."""
    source: str
    source_url: str
    first_seen: str
    since: str
    """The date of its last change."""


@dataclass(frozen=True)
class ProviderMove:
    """A price move of one of the provider's listings in a catalogue's history."""

    at: str
    """The snapshot that first showed it (UTC, as the history writes it)."""
    catalogue: str
    model: str
    price: str
    """Which price, in words (catalogue_moves.tier_words)."""
    old_usd_per_mtok: float
    new_usd_per_mtok: float


@dataclass(frozen=True)
class HeldListing:
    """A price of the provider's held back as implausible (tables/plausibility.py)."""

    catalogue: str
    catalogue_page: str
    model: str
    meter: str
    usd_per_mtok: float
    median_usd_per_mtok: float | None
    first_seen: str
    gone_seen: str
    cause: str


@dataclass(frozen=True)
class CatalogueListing:
    """A catalogue that lists the provider: how many of its models then, and how fresh."""

    name: str
    page: str
    published: bool
    """False: a cross-check, whose prices no page publishes."""
    listings: int
    """The provider's models the catalogue listed at the end of the edition's day."""
    last_read: str
    """When our last fetch read the whole catalogue (UTC; empty: never fetched)."""
    newest_snapshot: str
    """The newest version of it the histories hold by the edition's day."""


@dataclass(frozen=True)
class ProviderPage:
    provider: str
    slug: str
    name: str
    """The name our curated file gives it, else its id."""
    spellings: tuple[str, ...]
    """The ids the catalogues give it, where they differ from ours (`bedrock` for `aws`)."""
    listings: tuple[ProviderListing, ...]
    moves: tuple[ProviderMove, ...]
    """Newest first."""
    new_listings: int
    removed_listings: int
    held: tuple[HeldListing, ...]
    catalogues: tuple[CatalogueListing, ...]
    curated: str
    """Our curated price file of it (empty: none), and the last day it was checked."""


@dataclass(frozen=True, eq=False)
class ProviderPages:
    as_of: dt.date
    pages: tuple[ProviderPage, ...]
    """By provider id."""


def providers_of(sources: Sources) -> list[str]:
    """Return every provider a page may name: those of any catalogue's history (cross-checks
    too: Discrepancies names them), of our curated files and of the listings held back."""
    found = set(sources.prices)
    for history in sources.price_histories.values():
        found.update(history["provider"].astype(str))
    if sources.held_prices is not None:
        found.update(sources.held_prices["provider"].astype(str))
    return sorted(found)


def provider_pages(sources: Sources, changes: pd.DataFrame, as_of: dt.date,
                   table: pd.DataFrame | None) -> ProviderPages:
    """Return a page per provider as of the end of `as_of`; `changes`: every move of the
    published catalogues (compose/edition_tables.EditionTables.committed_changes); `table`:
    the Market's table then (EditionTables.market_table)."""
    end = snapshot_time(day_end(as_of))
    listings = _listings(sources, table) if table is not None else {}
    shown = changes[(changes["at"] <= end) & (changes["provider"] != "")]
    moves = _moves(shown[shown["kind"].isin(PRICE_MOVES)], sources)
    kinds = shown.groupby(["provider", "kind"]).size()
    held = _held(sources, end)
    catalogues, spellings = _catalogues(sources, end)
    pages = []
    for provider in providers_of(sources):
        curated = sources.prices.get(provider)
        pages.append(ProviderPage(
            provider, provider_slug(provider),
            curated.model.name if curated is not None else provider,
            tuple(sorted(spellings.get(provider, set()) - {provider})),
            tuple(listings.get(provider, ())), tuple(moves.get(provider, ())),
            int(kinds.get((provider, "new"), 0)), int(kinds.get((provider, "removed"), 0)),
            tuple(held.get(provider, ())), tuple(catalogues.get(provider, ())),
            _curated_words(curated, as_of) if curated is not None else ""))
    return ProviderPages(as_of, tuple(pages))


def _curated_words(curated, as_of: dt.date) -> str:
    checked = [r.checked for plist in curated.model.lists for r in plist.records
               if r.checked <= as_of]
    last = f", last checked at the provider on {max(checked).isoformat()}" if checked else ""
    return f"{curated.path}{last}"


def _number(value: object) -> float | None:
    return None if value is None or pd.isna(value) else float(value)


def _listings(sources: Sources, table: pd.DataFrame) -> dict[str, list[ProviderListing]]:
    """Return the Market's rows of each provider, by model id, each with its model's page as
    the Market names it (compose/market.py: a tracked model's page keeps its own name)."""
    tracked = [model_slug(p, m) for p, m in tracked_models(sources)]
    keys = table["model"].map(page_slug)
    final = group_page_slugs(set(keys), tracked)
    rows = table.assign(page=keys.map(final)).sort_values(["provider", "model"], kind="stable")
    out: dict[str, list[ProviderListing]] = {}
    for r in rows.itertuples(index=False):
        out.setdefault(str(r.provider), []).append(ProviderListing(
            str(r.model), str(r.page),
            (_number(r.input_usd_per_mtok), _number(r.cached_input_usd_per_mtok),
             _number(r.output_usd_per_mtok)),
            str(r.currency), str(r.source), str(r.source_url),
            "" if pd.isna(r.first_seen) else str(r.first_seen),
            "" if pd.isna(r.last_change) else str(r.last_change)))
    return out


def _names(sources: Sources) -> dict[str, tuple[str, str]]:
    """Return each catalogue's name and page by its id."""
    listed = sources.catalogues.catalogues if sources.catalogues else []
    return {c.id: (c.name, str(c.page)) for c in listed}


def _moves(moves: pd.DataFrame, sources: Sources) -> dict[str, list[ProviderMove]]:
    names = _names(sources)
    ordered = moves.sort_values(["at", "catalogue", "model", "meter"],
                                ascending=[False, True, True, True], kind="stable")
    out: dict[str, list[ProviderMove]] = {}
    for r in ordered.itertuples(index=False):
        out.setdefault(str(r.provider), []).append(ProviderMove(
            str(r.at), names.get(str(r.catalogue), (str(r.catalogue),))[0], str(r.model),
            tier_words(r), float(r.old_usd_per_mtok), float(r.new_usd_per_mtok)))
    return out


def _held(sources: Sources, end: str) -> dict[str, list[HeldListing]]:
    held = sources.held_prices
    out: dict[str, list[HeldListing]] = {}
    if held is None or held.empty:
        return out
    names = _names(sources)
    shown = held[held["first_seen"] <= end].sort_values(
        ["provider", "model", "meter", "first_seen"], kind="stable")
    for r in shown.itertuples(index=False):
        gone = str(r.gone_seen) if r.gone_seen and str(r.gone_seen) <= end else ""
        out.setdefault(str(r.provider), []).append(HeldListing(
            *names.get(str(r.catalogue), (str(r.catalogue), "")), str(r.model), str(r.meter),
            float(r.usd_per_mtok), _number(r.median_usd_per_mtok), str(r.first_seen), gone,
            str(r.cause)))
    return out


def _catalogues(sources: Sources, end: str
                ) -> tuple[dict[str, list[CatalogueListing]], dict[str, set[str]]]:
    """Return the catalogues that list each provider at `end`, in catalogues.yaml's order, and
    the ids each provider is listed under in any of them."""
    listed = sources.catalogues.catalogues if sources.catalogues else []
    health: Mapping = sources.catalogue_health
    out: dict[str, list[CatalogueListing]] = {}
    spellings: dict[str, set[str]] = {}
    for c in listed:
        h = sources.price_histories.get(c.id)
        if h is None or h.empty:
            continue
        for provider, names in h.groupby("provider")["catalogue_provider"]:
            spellings.setdefault(str(provider), set()).update(names.astype(str))
        seen = h[h["first_seen"] <= end]
        live = seen[(seen["gone_seen"] == "") | (seen["gone_seen"] > end)]
        counts = live.groupby("provider")["model"].nunique()
        newest = max((seen["first_seen"].max() or ""), (seen["gone_seen"][
            seen["gone_seen"] <= end].max() or "")) if not seen.empty else ""
        read = health.get(c.id)
        last_read = (snapshot_time(read.last_success)
                     if read is not None and read.last_success is not None else "")
        for provider, n in counts.items():
            out.setdefault(str(provider), []).append(CatalogueListing(
                c.name, str(c.page), c.use == "published", int(n), last_read, str(newest)))
    return out, spellings
