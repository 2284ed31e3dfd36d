"""`brief new` and `brief schema`: the commands that help editors write source files (the `brief`
group imports this module only when one of them runs: see cli/main.py)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import click

from pipeline.cli.terminal import ROOT, failed, reports_errors
from pipeline.models import KINDS, SourceKind
from pipeline.problems import BuildError


@click.command()
@click.argument("kind", type=click.Choice(sorted(KINDS)))
@click.option("--slug", default=None, metavar="SLUG",
              help="Short name, lower-case with hyphens: an entry's (deepseek-price-cut) or a "
              "price file's provider id (mistral).")
@click.option("--date", "date_", default=None, metavar="YYYY-MM-DD",
              help="Date of the new item, for its file name and date fields [default: today].")
@ROOT
@reports_errors
def new(kind: str, slug: str | None, date_: str | None, root: Path) -> None:
    """Write a new source file of KIND with every field and a comment per field.

    entry: a news item; price: a provider's price file with its first record; cost: one more
    hourly cost, added at the end of sources/hardware/costs.yaml; benchmark: the record of one
    more benchmark file (its suite, round, publication date, where it came from), added at the
    end of sources/benchmarks/index.yaml; series: editions.yaml.

    A new file starts with a `# yaml-language-server: $schema=…` line, so editors with a YAML
    plugin get completion and errors as they type. An existing file is never overwritten.
    """
    import re

    from pipeline.models.skeletons import skeleton_text

    source_kind = KINDS[kind]
    try:
        date = dt.date.fromisoformat(date_) if date_ else dt.date.today()
    except ValueError:
        raise click.BadParameter(f"{date_!r} is not a date like 2026-09-12 (YYYY-MM-DD)",
                                 param_hint="--date") from None
    if "{slug}" in source_kind.new_path:
        if not slug:
            raise click.UsageError(f"`brief new {kind}` needs --slug, e.g. --slug my-news-item")
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", slug):
            raise click.BadParameter(f"{slug!r}: use lower-case letters, digits and hyphens",
                                     param_hint="--slug")
    rel_path = source_kind.new_path.format(date=date, slug=slug)
    options = {"date": date, "slug": slug}
    values = {key: options[option] for key, option in source_kind.prefill}
    target = root / rel_path
    if source_kind.appends_to and target.exists():
        _append_record(target, rel_path, source_kind, values)
        click.echo(f"added a record at the end of {rel_path}: fill in its empty fields, then "
                   "run `brief check`")
        return
    text = skeleton_text(source_kind, rel_path, values)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        with target.open("x", encoding="utf-8") as fh:
            fh.write(text)
    except FileExistsError:
        click.echo(f"{rel_path} already exists; not overwritten (choose another --slug, or edit "
                   "it)", err=True)
        raise failed() from None
    click.echo(f"wrote {rel_path}: fill in the empty fields, then run `brief check`")


def _append_record(target: Path, rel_path: str, kind: SourceKind,
                   values: dict[str, object]) -> None:
    """Add a new record of `kind` at the end of the file's list, indented like its items."""
    from pipeline.load.yaml_lines import parse_yaml
    from pipeline.models.skeletons import record_text

    data = target.read_bytes()
    doc, lines, problems = parse_yaml(data, rel_path)
    key = kind.appends_to
    if problems or not isinstance(doc, dict):
        raise BuildError(f"{rel_path} cannot be read as YAML; fix what `brief check` reports, "
                         "then run `brief new` again")
    # Appending at the end of the file adds to the list only when the list ends the file, and
    # is written in block style (`- ` items), whose indent the new item must repeat.
    if not isinstance(doc.get(key), list) or not doc[key] or list(doc)[-1] != key:
        raise BuildError(f"{rel_path}: `{key}:` must be the file's last key and hold at least one "
                         f"`- ` item for `brief new` to add one; add the record by hand")
    text = data.decode("utf-8")
    first_item = text.splitlines()[lines[(key, 0)] - 1]
    indent = len(first_item) - len(first_item.lstrip(" "))
    if not first_item.lstrip(" ").startswith("-"):
        raise BuildError(f"{rel_path}: `{key}:` is written in flow style ([...]); add the "
                         "record by hand")
    addition = ("" if text.endswith("\n") else "\n") + record_text(kind, values, indent)
    with target.open("a", encoding="utf-8") as fh:
        fh.write(addition)


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
