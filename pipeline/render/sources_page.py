"""The Sources page as Markdown, of its value (compose/sources_page.py): every feed we follow,
its health and its items in a window, and the price catalogues with theirs."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence

from pipeline.compose.numbers import grouped
from pipeline.compose.sources_page import SourcesShown
from pipeline.models.catalogues import CatalogueHealth, CataloguesFile
from pipeline.models.feeds import Feed, Snapshot
from pipeline.normalize.feed_state import FLAG_AFTER_FAILURES, is_flagged
from pipeline.normalize.items import md_link, md_text


def _when(moment: dt.datetime | None) -> str:
    return f"{moment:%Y-%m-%d %H:%M} UTC" if moment else "never"


def feed_health(snapshot: Snapshot | None) -> str:
    """Return the feed's health in a few words: ok, failing N runs, gone, not fetched yet."""
    if snapshot is None or snapshot.health.last_attempt is None:
        return "sample data, not fetched yet" if snapshot and snapshot.note else "not fetched yet"
    h = snapshot.health
    if h.gone:
        return "gone (HTTP 410)"
    if h.consecutive_failures == 0:
        return f"ok, with a warning: {h.last_warning}" if h.last_warning else "ok"
    runs = "run" if h.consecutive_failures == 1 else "runs"
    flag = "⚠ " if is_flagged(snapshot) else ""
    return f"{flag}failing ({h.consecutive_failures} {runs} in a row)"


def sources_page_md(feeds: Sequence[Feed], snapshots: Mapping[str, Snapshot], date: dt.date,
                    previous: dt.date | None, counts: Mapping[str, int]) -> str:
    """Return the Sources page: a table of feeds, then the errors of flagged feeds; `counts`:
    each feed's items in (previous, date], by feed id (compose/sources_page.items_in_window)."""
    since = f"after {previous.isoformat()}" if previous else "in the week before"
    lines = [
        "# Sources",
        "",
        (f"The feeds this briefing follows, as of the edition of {date.isoformat()}. Items are "
         "fetched by a scheduled job and kept in the repository; a feed failing "
         f"{FLAG_AFTER_FAILURES} runs in a row is marked ⚠."),
        "",
        f"| Feed | Region | Language | Health | Last success | Items {since} |",
        "|---|---|---|---|---|---:|",
    ]
    flagged = []
    for feed in feeds:
        snap = snapshots.get(feed.id)
        health = feed_health(snap)
        last = _when(snap.health.last_success) if snap else "never"
        lines.append(f"| {md_link(feed.title, str(feed.url))} | {md_text(feed.region)} | "
                     f"{md_text(feed.language)} | {md_text(health)} | {last} | "
                     f"{counts.get(feed.id, 0)} |")
        if is_flagged(snap) and snap is not None:
            flagged.append((feed, snap))
    if flagged:
        lines += ["", "## Feeds failing repeatedly", ""]
        for feed, snap in flagged:
            lines.append(f"- **{md_text(feed.title)}**: {md_text(snap.health.last_error or '')} "
                         f"(last attempt {_when(snap.health.last_attempt)})")
    return "\n".join(lines) + "\n"


def catalogue_health(health: CatalogueHealth | None) -> str:
    """Return a catalogue's health in a few words, as feed_health does a feed's."""
    if health is None or health.last_attempt is None:
        return "not fetched yet"
    if health.consecutive_failures == 0:
        held = len(health.held)
        return f"ok, {held} price{'s' if held != 1 else ''} held back" if held else "ok"
    runs = "run" if health.consecutive_failures == 1 else "runs"
    flag = "⚠ " if health.consecutive_failures >= FLAG_AFTER_FAILURES else ""
    return f"{flag}failing ({health.consecutive_failures} {runs} in a row)"


def catalogues_md(catalogues: CataloguesFile, healths: Mapping[str, CatalogueHealth],
                  held: Mapping[str, int] | None = None) -> str:
    """Return the Sources page's section on the price catalogues: use, licence, health, and
    how many of its listings are held back as implausible (`held`, by catalogue id)."""
    held = held or {}
    lines = ["## Price catalogues", "",
             ("Public price maps fetched by the same scheduled job, each kept as a history of "
              "price periods in the repository; a price that moves more than 20-fold is held "
              "back until a second snapshot shows it. A published catalogue's prices fill the "
              "[Market](market.md) and [Changes](changes.md) pages and the editions' catalogue "
              "figures; a cross-check's appear only on the [Discrepancies](discrepancies.md) "
              "page. The curated provider files under sources/prices/ stay the editors' truth "
              "and win for the same model."),
             "", "| Catalogue | Used | Licence | Health | Last success | Its own date | "
             "Prices in force | Listings held as implausible |", "|---|---|---|---|---|---|---:|---:|"]
    failing = []
    for c in catalogues.catalogues:
        h = healths.get(c.id)
        lines.append(f"| {md_link(c.name, str(c.page))} | {md_text(c.use)} | "
                     f"{md_text(c.licence)} | {md_text(catalogue_health(h))} | "
                     f"{_when(h.last_success) if h else 'never'} | "
                     f"{h.checked.isoformat() if h and h.checked else ''} | "
                     f"{h.prices if h else 0} | {_held(held.get(c.id, 0))} |")
        if h and h.consecutive_failures >= FLAG_AFTER_FAILURES:
            failing.append((c, h))
    lines += ["", "Credits: " + " ".join(md_text(c.attribution) for c in catalogues.catalogues)]
    if failing:
        lines += ["", "### Catalogues failing repeatedly", ""]
        lines += [f"- **{md_text(c.name)}**: {md_text(h.last_error or '')} (last attempt "
                  f"{_when(h.last_attempt)}; its last good history is kept)" for c, h in failing]
    return "\n".join(lines) + "\n"


def _held(count: int) -> str:
    return f"[{grouped(count)}](discrepancies.md)" if count else "0"


def sources_page(shown: SourcesShown) -> str:
    """Return the Sources page of `shown` (compose/sources_page.py): every feed with its health,
    as of the newest edition, then the price catalogues."""
    page = ("# Sources\n\nNo feeds in this repository.\n" if shown.feeds is None else
            sources_page_md(shown.feeds, shown.snapshots, shown.date, shown.previous,
                            shown.items))
    if shown.catalogues is not None and shown.catalogues.catalogues:
        page += "\n" + catalogues_md(shown.catalogues, shown.healths, shown.held)
    return page
