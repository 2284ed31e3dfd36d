"""Pure: an edition cut to one topic, for the per-topic feeds (`topics:` in editions.yaml)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from pipeline.compose.edition import numbered_sources
from pipeline.compose.types import Edition, Item, SectionContent
from pipeline.models.series import Topic
from pipeline.models.sourced import CuratedEntry


def entry_tags(entries: list[CuratedEntry]) -> dict[str, frozenset[str]]:
    """Return each curated entry's tags by its id (the id its edition item carries)."""
    return {c.id: frozenset(c.entry.tags) for c in entries}


def belongs(item: Item, section: str, topic: Topic, tags: Mapping[str, frozenset[str]]) -> bool:
    """Is `item`, in `section`, part of `topic`? Its section, its lane, or its entry's tags."""
    return (section in topic.sections or (item.lane != "" and item.lane in topic.lanes)
            or bool(tags.get(item.id, frozenset()) & set(topic.tags)))


def topic_edition(edition: Edition, topic: Topic,
                  tags: Mapping[str, frozenset[str]]) -> Edition | None:
    """Return `edition` with only the items of `topic` (its sources numbered again), or None
    when it has none: a topic's feed lists only the editions that say something about it."""
    sections = tuple(SectionContent(s.id, s.title, tuple(i for i in s.items
                                                          if belongs(i, s.id, topic, tags)))
                     for s in edition.sections)
    if not any(s.items for s in sections):
        return None
    kept = {i.id for s in sections for i in s.items}
    corrections = tuple(c for c in edition.corrections if c[1] in kept)
    return dataclasses.replace(edition, sections=sections, corrections=corrections,
                               sources=numbered_sources(sections))
