"""What an edition is called wherever it is listed: its page, its search result, later its feed
entry and e-mail subject (one function, so they all agree)."""

from __future__ import annotations

from pipeline.compose.types import Edition, Story


def lead_story(edition: Edition) -> Story | None:
    """Return the edition's lead: its first story (Top developments first), or None."""
    for section in edition.sections:
        for item in section.items:
            if isinstance(item, Story):
                return item
    return None


def edition_title(edition: Edition) -> str:
    """Return the edition's title as plain text: its date and lead headline ("2026-09-12: DeepSeek
    takes Flash prices close to zero"); without a story, its date and first item's label, and
    the series title of its date when it has no item at all.

    Not the series title: with it, every edition's title carries the same words ("MLPerf",
    "Hardware"), which Material's search weighs a thousand times a word of text, so a search
    for one of them lists every edition alike (issue 21)."""
    lead = lead_story(edition)
    if lead is not None:
        return f"{edition.date.isoformat()}: {' '.join(lead.headline.split())}"
    # No story (a topic's cut of an edition may have only figures): its first item's label.
    first = next((i for s in edition.sections for i in s.items), None)
    if first is None:
        return edition.title
    return f"{edition.date.isoformat()}: {' '.join(first.label.split())}"
