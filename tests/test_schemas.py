"""JSON Schemas: committed files match the models, and every bundled source file satisfies them."""

from __future__ import annotations

import json
import posixpath
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from conftest import REPO

from pipeline.cli.main import main
from pipeline.load.yaml_lines import parse_yaml
from pipeline.models import KINDS
from pipeline.models.schemas import schema_comment, schema_files

BUNDLED = [(kind.name, path.relative_to(REPO).as_posix())
           for kind in KINDS.values() for path in sorted(REPO.glob(kind.glob))]


def test_committed_schemas_are_up_to_date(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["schema", "--root", str(tmp_path)])
    assert result.exit_code == 0, result.output
    fresh = sorted(p.relative_to(tmp_path).as_posix() for p in (tmp_path / "schemas").iterdir())
    committed = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "schemas").iterdir())
    assert fresh == committed, "run `brief schema` and commit schemas/"
    for name in fresh:
        assert (tmp_path / name).read_bytes() == (REPO / name).read_bytes(), (
            f"{name} is behind the models: run `brief schema` and commit it")


def test_schema_generation_is_deterministic() -> None:
    assert schema_files(KINDS) == schema_files(KINDS)


def test_schema_carries_field_docs() -> None:
    entry = json.loads(schema_files(KINDS)["schemas/entry.schema.json"])
    assert entry["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert entry["additionalProperties"] is False
    assert entry["properties"]["headline"]["description"] == "The headline, in our words."
    assert " ".join(entry["$defs"]["Link"]["properties"]["url"]["description"].split()) == (
        "The address of the page that states the claim (http or https), not the publisher's "
        "home page; leave it out when no such page is known, and give `published` instead.")
    assert "site itself" in entry["$defs"]["Link"]["properties"]["site"]["description"]


def test_schema_wants_a_page_or_a_day_per_link() -> None:
    schema = json.loads((REPO / "schemas" / "entry.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema,
                                                format_checker=jsonschema.FormatChecker())
    entry = {"date": "2026-09-12", "section": "top", "headline": "H", "summary": "S"}
    assert validator.is_valid({**entry, "links": [{"publisher": "Sohu", "published": "2026-09-11"}]})
    assert validator.is_valid({**entry, "links": [{"publisher": "X", "url": "https://x.org/a"}]})
    assert not validator.is_valid({**entry, "links": [{"publisher": "Sohu"}]})


def test_every_kind_has_bundled_files() -> None:
    assert {name for name, _ in BUNDLED} == set(KINDS)


@pytest.mark.parametrize(("kind", "path"), BUNDLED, ids=[p for _, p in BUNDLED])
def test_bundled_file_validates_and_points_at_its_schema(kind: str, path: str) -> None:
    source_kind = KINDS[kind]
    data = (REPO / path).read_bytes()
    first_line = data.decode("utf-8").splitlines()[0]
    assert first_line == schema_comment(source_kind, path)
    target = posixpath.normpath(posixpath.join(posixpath.dirname(path),
                                               first_line.split("$schema=", 1)[1]))
    assert target == source_kind.schema_file and (REPO / target).is_file()
    doc, _, problems = parse_yaml(data, path)
    assert problems == []
    schema = json.loads((REPO / source_kind.schema_file).read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema,
                                                format_checker=jsonschema.FormatChecker())
    errors = [f"{'.'.join(map(str, e.absolute_path))}: {e.message}"
              for e in validator.iter_errors(doc)]
    assert errors == []


def test_schema_rejects_what_check_rejects() -> None:
    schema = json.loads((REPO / "schemas" / "entry.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema,
                                                format_checker=jsonschema.FormatChecker())
    bad = {"date": "2026-02-30", "section": "top", "headlin": "H", "summary": "S",
           "links": [{"url": "https://example.org", "publisher": "X"}]}
    messages = sorted(e.message for e in validator.iter_errors(bad))
    assert messages == [
        "'2026-02-30' is not a 'date'",
        "'headline' is a required property",
        "Additional properties are not allowed ('headlin' was unexpected)",
    ]


def test_schema_comment_is_relative_to_the_file() -> None:
    assert schema_comment(KINDS["entry"], "sources/entries/2026/09-12-x.yaml") == (
        "# yaml-language-server: $schema=../../../schemas/entry.schema.json")
    assert schema_comment(KINDS["series"], "sources/editions.yaml") == (
        "# yaml-language-server: $schema=../schemas/series.schema.json")
