"""Editions → Markdown pages and text editions, through the jinja2 templates in `templates/`."""

from __future__ import annotations

import datetime as dt
import itertools
from functools import cache
from pathlib import Path

import jinja2

from pipeline.compose import Edition, Story
from pipeline.models.series import Series
from pipeline.render.escape import md_editor, md_text, plain_text

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


@cache
def environment(templates: Path = TEMPLATES) -> jinja2.Environment:
    """Return the jinja2 environment; Markdown and text are not autoescaped, so filters escape."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html", "xml"),
                                            default_for_string=False),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=False,
    )
    env.filters.update(md=md_text, safe_md=md_editor, plain=plain_text)
    return env


def _numbers(edition: Edition) -> dict[str, int]:
    return {c.url: i for i, c in enumerate(edition.sources, start=1)}


def _neighbours(editions: list[Edition], edition: Edition) -> tuple[dt.date | None, dt.date | None]:
    dates = [e.date for e in editions]
    i = dates.index(edition.date)
    return (dates[i - 1] if i > 0 else None, dates[i + 1] if i + 1 < len(dates) else None)


def edition_page(edition: Edition, series: Series, editions: list[Edition], *, home: bool) -> str:
    """Return the Markdown page of an edition (`home=True`: the site's front page)."""
    previous, following = _neighbours(editions, edition)
    return environment().get_template("briefing.md.j2").render(
        edition=edition, series=series, numbers=_numbers(edition),
        previous=previous, following=following, source_url=str(series.source_url),
        link_prefix="briefings/" if home else "../", root_prefix="" if home else "../../",
    )


def text_edition(edition: Edition) -> str:
    """Return the plain-text edition, laid out like the editions we publish by e-mail."""
    text = environment().get_template("briefing.txt.j2").render(edition=edition)
    # Collapse runs of blank lines the template's conditionals leave behind.
    lines = [line.rstrip() for line in text.splitlines()]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip() + "\n"


def headline_of(edition: Edition) -> str:
    """Return the edition's lead headline for listings: its first story, else its title."""
    for section in edition.sections:
        for item in section.items:
            if isinstance(item, Story):
                return item.headline
    return edition.title


def archive_page(editions: list[Edition]) -> str:
    """Return the archive page: every edition, newest first, grouped by month."""
    newest = sorted(editions, key=lambda e: e.date, reverse=True)
    months = [(f"{month:%B %Y}", list(group)) for month, group in
              itertools.groupby(newest, key=lambda e: e.date.replace(day=1))]
    return environment().get_template("archive.md.j2").render(
        editions=newest, months=months, headline_of=headline_of)
