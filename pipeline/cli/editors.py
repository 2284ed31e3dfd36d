"""`brief new` and `brief schema`: the commands that help editors write source files (the `brief`
group imports this module only when one of them runs: see cli.py)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import click

from pipeline.cli.terminal import ROOT, failed, reports_errors
from pipeline.models import KINDS


@click.command()
@click.argument("kind", type=click.Choice(sorted(KINDS)))
@click.option("--slug", default=None, metavar="SLUG",
              help="Short name for the file, lower-case with hyphens (e.g. deepseek-price-cut).")
@click.option("--date", "date_", default=None, metavar="YYYY-MM-DD",
              help="Date of the new item, for its file name and `date` field [default: today].")
@ROOT
@reports_errors
def new(kind: str, slug: str | None, date_: str | None, root: Path) -> None:
    """Write a new source file of KIND with every field and a comment per field.

    The file starts with a `# yaml-language-server: $schema=…` line, so editors with a YAML
    plugin get completion and errors as they type. An existing file is never overwritten.
    """
    import re

    from pipeline.models.skeletons import skeleton_text

    source_kind = KINDS[kind]
    try:
        date = dt.date.fromisoformat(date_) if date_ else dt.date.today()
    except ValueError:
        raise click.BadParameter(f"{date_!r} is not a date like 2026-09-12",
                                 param_hint="--date") from None
    if "{slug}" in source_kind.new_path:
        if not slug:
            raise click.UsageError(f"`brief new {kind}` needs --slug, e.g. --slug my-news-item")
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", slug):
            raise click.BadParameter(f"{slug!r}: use lower-case letters, digits and hyphens",
                                     param_hint="--slug")
    rel_path = source_kind.new_path.format(date=date, slug=slug)
    values = {name: date for name in source_kind.prefill if name == "date"}
    text = skeleton_text(source_kind, rel_path, values)
    target = root / rel_path
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        with target.open("x", encoding="utf-8") as fh:
            fh.write(text)
    except FileExistsError:
        click.echo(f"{rel_path} already exists; not overwritten (choose another --slug, or edit "
                   "it)", err=True)
        raise failed() from None
    click.echo(f"wrote {rel_path}: fill in the empty fields, then run `brief check`")


@click.command()
@ROOT
@reports_errors
def schema(root: Path) -> None:
    """Write schemas/<kind>.schema.json for every kind of source file, from the models."""
    from pipeline.models.schemas import schema_files

    for rel_path, text in schema_files(KINDS).items():
        target = root / rel_path
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists() and target.read_text(encoding="utf-8") == text:
            click.echo(f"{rel_path}: up to date")
            continue
        target.write_text(text, encoding="utf-8")
        click.echo(f"wrote {rel_path}")
