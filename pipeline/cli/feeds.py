"""Commands of the feeds lane: `brief ingest feeds`, `brief candidates`, `brief add`.

The only place in the lane that prints or exits. `ingest_feeds` is a plain click command for the
lead's `ingest` group; `register(group)` adds `candidates` and `add` to the top-level group.
"""

from __future__ import annotations

import datetime as dt
import re
import sys
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING

import click

from pipeline.cli.terminal import ALLOW_NETWORK, ROOT, failed, reports_errors
from pipeline.paths import ENTRIES, FEED_SNAPSHOTS, FEEDS, SERIES
from pipeline.problems import Problem

# The lane's modules are imported by the commands that use them: `brief` imports this module to
# register its commands, and `brief build` of an unchanged site must not pay for the models.
if TYPE_CHECKING:
    from pipeline.compose.rank import Candidate
    from pipeline.ingest.feeds import Outcome
    from pipeline.models.feeds import FeedsFile, Snapshot

def _load(root: Path, strict: bool) -> tuple[FeedsFile, dict[str, Snapshot]]:
    from pipeline.load.feeds import load_feeds

    feeds, snapshots, problems = load_feeds(root)
    _print_problems(problems)
    errors = [p for p in problems if p.severity == "error" or strict]
    if feeds is None and not errors:
        raise click.ClickException(f"no {FEEDS.as_posix()}: there are no feeds to read")
    if errors or feeds is None:
        raise failed()
    return feeds, snapshots


def _print_problems(problems: list[Problem]) -> None:
    for p in sorted(problems, key=lambda p: (p.path, p.line or 0, p.field)):
        click.echo(p.located(), err=True)


@click.command("feeds")
@ROOT
@click.option("--only", multiple=True, metavar="FEED_ID", help="Fetch only these feeds.")
@click.option("--strict", is_flag=True, help="Exit 1 when any feed fails.")
@ALLOW_NETWORK
@reports_errors
def ingest_feeds(root: Path, only: tuple[str, ...], strict: bool, allowed: tuple[str, ...]) -> None:
    """Fetch every feed in sources/feeds.yaml and update sources/snapshots/feeds/."""
    from pipeline.ingest.feeds import ingest_feeds as run_ingest
    from pipeline.ingest.http import FetchSettings

    feeds_file, snapshots = _load(root, strict=False)
    feeds = [f for f in feeds_file.feeds if not only or f.id in only]
    unknown = sorted(set(only) - {f.id for f in feeds_file.feeds})
    if unknown:
        raise click.BadParameter(f"no feed with id {', '.join(unknown)}", param_hint="--only")
    tty = sys.stderr is not None and sys.stderr.isatty()  # None: started with it closed

    def progress(done: int, total: int, o: Outcome) -> None:
        mark = "ok " if o.ok else "-- " if o.skipped else "ERR"
        line = f"[{done:>{len(str(total))}}/{total}] {mark} {o.feed_id}: {o.message}"
        if tty:
            click.echo("\r\x1b[2K" + line[:200], err=True, nl=done == total or not o.ok)
        else:
            click.echo(line, err=True)

    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    report = run_ingest(root, feeds, snapshots, now=now,
                        settings=FetchSettings(allowed_networks=allowed), progress=progress)
    failed = report.failed
    click.echo(f"{len(feeds)} feeds in {report.seconds:.1f} s: "
               f"{len(feeds) - len(failed)} ok or skipped, {len(failed)} failed", err=True)
    if strict and failed:
        raise failed()


def _previous_edition(root: Path, date: dt.date) -> dt.date | None:
    from pipeline.load.parse import read_model
    from pipeline.models.series import Series

    path = root / SERIES
    if not path.exists():
        return None
    sourced, problems = read_model(path, Series, root)
    if sourced is None:
        _print_problems(problems)
        raise failed()
    earlier = [d for d in sourced.model.edition_dates(date) if d < date]
    return earlier[-1] if earlier else None


def _curated_urls(root: Path) -> set[str]:
    from pipeline.load.parse import read_model
    from pipeline.models.entries import Entry

    urls = set()
    for path in (root / ENTRIES).rglob("*.y*ml"):
        sourced, _ = read_model(path, Entry, root)
        if sourced:
            urls |= {str(link.url) for link in sourced.model.links if link.url}
    return urls


@click.command("candidates")
@ROOT
@click.option("--date", "date", type=click.DateTime(["%Y-%m-%d"]), required=True,
              help="The edition date (YYYY-MM-DD); its window starts after the edition before.")
@click.option("--limit", type=click.IntRange(1, 500), default=20, show_default=True)
def candidates(root: Path, date: dt.datetime, limit: int) -> None:
    """List the top uncurated feed items for the edition of --date."""
    from pipeline.compose.rank import rank_candidates

    feeds_file, snapshots = _load(root, strict=False)
    day = date.date()
    previous = _previous_edition(root, day)
    ranked = rank_candidates(feeds_file.feeds, snapshots, feeds_file.topics, day, previous,
                             _curated_urls(root))
    window = f"({previous or 'the week before'}, {day}]"
    click.echo(f"{len(ranked)} candidates in {window}; top {min(limit, len(ranked))}:")
    for c in ranked[:limit]:
        click.echo(_candidate_line(c))


def _candidate_line(c: Candidate) -> str:
    also = f"  (also: {', '.join(c.also_reported_by)})" if c.also_reported_by else ""
    topics = ",".join(c.topics) or "-"
    return (f"{c.score:7.3f}  {c.item.id}  {c.item.published:%Y-%m-%d}  [{c.feed.id}] "
            f"{c.item.title}  <{c.item.url}>  topics={topics}{also}")


def _slug(text: str, fallback: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    words = re.findall(r"[a-z0-9]+", ascii_text.lower())[:8]
    slug = "-".join(words)[:60].strip("-")
    return slug if len(slug) >= 3 else f"item-{fallback[:10]}"


def entry_from_item(feeds_file: FeedsFile, snapshots: dict[str, Snapshot],
                    item_id: str) -> tuple[str, dict]:
    """Return (relative path, document) of a curated entry pre-filled from feed item `item_id`."""
    from pydantic import ValidationError

    from pipeline.models.entries import Entry
    from pipeline.models.links import link_scheme
    from pipeline.render.escape import md_text

    found = [(f, i) for f in feeds_file.feeds for i in (snapshots[f.id].items
             if f.id in snapshots else []) if i.id == item_id or i.id.startswith(item_id)]
    if not found:
        raise click.ClickException(f"no feed item with id {item_id!r}; "
                                   "`brief candidates --date D` lists them")
    if len({i.id for _, i in found}) > 1:
        raise click.ClickException(f"{item_id!r} matches several items; give more of the id")
    feed, item = found[0]
    if not item.url:
        raise click.ClickException(f"item {item.id} has no link to cite")
    if link_scheme(item.url) not in ("http", "https"):
        # Ingest stores only http(s) links: this snapshot was changed by other hands.
        raise click.ClickException(
            f"item {item.id} links to {item.url[:100]!r}, not an http or https page, so an "
            f"entry cannot cite it; check {(FEED_SNAPSHOTS / f'{feed.id}.json').as_posix()}")
    day = item.published.date()
    local = feed.region != "global"
    language = item.language or feed.language
    doc: dict = {"date": day, "section": "local" if local else "top",
                 "headline": item.title[:200] or "TODO: headline in our words"}
    if local and not language.startswith("en"):
        doc["original_headline"] = item.title
        doc["headline"] = "TODO: headline in English, in our words"
    # The feed's words are third-party text: escaped, so whatever Markdown they hold (a link,
    # an image) reads as the characters it is, as everywhere else we show feed text.
    doc["summary"] = ("TODO: one paragraph in our own words; facts from the link, not its "
                      f"sentences. Feed summary: {md_text(item.summary_text)}")
    doc["links"] = [{"url": item.url, "publisher": feed.title,
                     **({"title": item.title} if item.title else {}),
                     "region": feed.region, "language": language.split("-")[0]
                     if not re.fullmatch(r"[a-z]{2,3}(-[A-Za-z0-9]+)*", language) else language}]
    try:
        Entry.model_validate(doc)  # what we write must load; the TODOs are for the editor
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        where = ".".join(map(str, first["loc"]))
        raise click.ClickException(f"item {item.id} does not make an entry: {where}: "
                                   f"{first['msg']}; check "
                                   f"{(FEED_SNAPSHOTS / f'{feed.id}.json').as_posix()}") from None
    doc["draft"] = True  # and `brief check` refuses it until the editor removes this
    path = (ENTRIES / f"{day:%Y}" / f"{day:%m-%d}-{_slug(item.title, item.id)}.yaml").as_posix()
    return path, doc


@click.command("add")
@ROOT
@click.argument("item")
@reports_errors
def add(root: Path, item: str) -> None:
    """Write a curated entry pre-filled from feed item ITEM (its id) for an editor to finish."""
    from pipeline.load.yaml_lines import dump_yaml
    from pipeline.models import KINDS
    from pipeline.models.schemas import schema_comment

    feeds_file, snapshots = _load(root, strict=False)
    rel_path, doc = entry_from_item(feeds_file, snapshots, item)
    path = root / rel_path
    if path.exists():
        raise click.ClickException(f"{rel_path} exists already; edit it instead")
    path.parent.mkdir(parents=True, exist_ok=True)
    # As `brief new` starts an entry: the schema line for editors' YAML plugins.
    text = f"{schema_comment(KINDS['entry'], rel_path)}\n{dump_yaml(doc, width=100)}"
    path.write_text(text, encoding="utf-8")
    click.echo(f"wrote {rel_path}: a draft; write it in our own words, delete its "
               "`draft: true` line, then run `brief check`")


def register(group: click.Group) -> None:
    """Add `candidates` and `add` to the top-level command group."""
    group.add_command(candidates)
    group.add_command(add)
