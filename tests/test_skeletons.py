"""`brief new`: a file with every field, a comment per field, the schema line; never overwrites."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from pydantic import BaseModel

from pipeline.cli.main import main
from pipeline.load.sources import load_sources
from pipeline.load.yaml_lines import parse_yaml
from pipeline.models import KINDS
from pipeline.models.entries import Entry
from pipeline.models.skeletons import skeleton_text


def field_names(model: type[BaseModel], prefix: str = "") -> set[str]:
    """Return the dotted names of every field a new file carries, nested models included (not
    the excluded ones: Entry.draft is only ever written by `brief add`)."""
    from pipeline.models.skeletons import _nested_model

    names = set()
    for name, info in model.model_fields.items():
        if info.exclude:
            continue
        names.add(prefix + name)
        nested, _ = _nested_model(info.annotation)
        if nested is not None:
            names |= field_names(nested, f"{prefix}{name}.")
    return names


MARKER = "(optional: remove the leading `# ` of the lines below to use it)"


def enable_optional_blocks(text: str) -> str:
    """Return the skeleton with its commented-out optional blocks turned on, as an editor would."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if line.strip() != f"# {MARKER}":
            continue
        pad = line[: len(line) - len(line.lstrip())]
        # The block is the `# name:` line and the deeper-indented lines after it.
        block = [lines[i]]
        i += 1
        while i < len(lines) and lines[i].startswith(pad + "#   "):
            block.append(lines[i])
            i += 1
        out += [pad + b[len(pad) + 2:] for b in block]
    return "\n".join(out) + "\n"


def keys_of(doc: object, prefix: str = "") -> set[str]:
    """Return the dotted keys of a parsed document (the first item of each list)."""
    if isinstance(doc, list) and doc:
        return keys_of(doc[0], prefix)
    if not isinstance(doc, dict):
        return set()
    found = set()
    for key, value in doc.items():
        found.add(prefix + key)
        found |= keys_of(value, f"{prefix}{key}.")
    return found


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_skeleton_has_every_field_with_a_comment(kind: str) -> None:
    source_kind = KINDS[kind]
    path = source_kind.new_path.format(date=dt.date(2026, 12, 1), slug="x")
    text = skeleton_text(source_kind, path, {})
    assert text.splitlines()[0].startswith("# yaml-language-server: $schema=")
    doc, _, problems = parse_yaml(text.encode(), path)
    assert problems == [] and isinstance(doc, dict)

    enabled = enable_optional_blocks(text)
    doc, _, problems = parse_yaml(enabled.encode(), path)
    assert problems == []
    assert keys_of(doc) == field_names(source_kind.model)
    lines = enabled.splitlines()
    for i, line in enumerate(lines):
        key_line = re.match(r"^ *(- )?[a-z_]+:", line)
        if key_line and not key_line.group(1):
            above = lines[i - 1].strip()
            assert above.startswith(("#", "- #")), f"no comment above line {i + 1}: {line!r}"


def test_new_entry_writes_then_refuses_to_overwrite(tiny: Path) -> None:
    runner = CliRunner()
    args = ["new", "entry", "--root", str(tiny), "--slug", "price-cut", "--date", "2026-09-11"]
    first = runner.invoke(main, args)
    assert first.exit_code == 0, first.output
    assert first.output == ("wrote sources/entries/2026/09-11-price-cut.yaml: fill in the empty "
                            "fields, then run `brief check`\n")
    path = tiny / "sources" / "entries" / "2026" / "09-11-price-cut.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# yaml-language-server: $schema=../../../schemas/entry.schema.json\n")
    assert "\ndate: 2026-09-11\n" in text

    path.write_text(text + "# edited\n", encoding="utf-8")
    again = runner.invoke(main, args)
    assert again.exit_code == 1
    assert again.output == ("sources/entries/2026/09-11-price-cut.yaml already exists; not "
                            "overwritten (choose another --slug, or edit it)\n")
    assert path.read_text(encoding="utf-8").endswith("# edited\n")


def test_new_entry_lists_what_is_left_to_fill(tiny: Path) -> None:
    runner = CliRunner()
    runner.invoke(main, ["new", "entry", "--root", str(tiny), "--slug", "todo",
                         "--date", "2026-09-11"])
    check = runner.invoke(main, ["check", "--root", str(tiny)])
    assert check.exit_code == 1
    problems = [line for line in check.output.splitlines()
                if line.startswith("sources/entries/2026/09-11-todo.yaml")]
    assert problems == [
        "sources/entries/2026/09-11-todo.yaml: section: Input should be a valid string",
        "sources/entries/2026/09-11-todo.yaml: headline: Input should be a valid string",
        "sources/entries/2026/09-11-todo.yaml: summary: Input should be a valid string",
        "sources/entries/2026/09-11-todo.yaml: links.0.publisher: Input should be a valid string",
    ]


def test_filled_skeleton_loads(tiny: Path) -> None:
    CliRunner().invoke(main, ["new", "entry", "--root", str(tiny), "--slug", "filled",
                              "--date", "2026-09-11"])
    path = tiny / "sources" / "entries" / "2026" / "09-11-filled.yaml"
    text = path.read_text(encoding="utf-8")
    for key, value in [("section:", "section: top"), ("headline:", "headline: Filled in"),
                       ("summary:", "summary: A paragraph."),
                       ("    url: null", "    url: https://example.org/a"),
                       ("    publisher:", "    publisher: Example")]:
        text = text.replace(f"\n{key}\n", f"\n{value}\n", 1)
    path.write_text(text, encoding="utf-8")
    sources = load_sources(tiny)
    new = [c for c in sources.entries if c.id == "filled"]
    assert len(new) == 1 and isinstance(new[0].entry, Entry)


def test_new_needs_a_slug_and_a_real_date(tiny: Path) -> None:
    runner = CliRunner()
    no_slug = runner.invoke(main, ["new", "entry", "--root", str(tiny)])
    assert no_slug.exit_code == 2 and "needs --slug" in no_slug.output
    bad_date = runner.invoke(main, ["new", "entry", "--root", str(tiny), "--slug", "a",
                                    "--date", "2026-13-01"])
    assert bad_date.exit_code == 2 and "'2026-13-01' is not a date" in bad_date.output
    bad_kind = runner.invoke(main, ["new", "recipe", "--root", str(tiny)])
    assert bad_kind.exit_code == 2


def test_new_series_refuses_the_existing_file(tiny: Path) -> None:
    before = (tiny / "sources" / "editions.yaml").read_bytes()
    result = CliRunner().invoke(main, ["new", "series", "--root", str(tiny)])
    assert result.exit_code == 1 and "already exists; not overwritten" in result.output
    assert (tiny / "sources" / "editions.yaml").read_bytes() == before
