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
        key = info.alias or name  # as files spell it: `from`, not `from_`
        names.add(prefix + key)
        nested, _ = _nested_model(info.annotation)
        if nested is not None:
            names |= field_names(nested, f"{prefix}{key}.")
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
        # Each empty field says what to write there (issue 52: pydantic's "Input should be a
        # valid string" said neither), from the field's docstring.
        "sources/entries/2026/09-11-todo.yaml:8:1: section: empty; write which section of the "
        "edition it belongs to: `top`, `local`, `numbers` or `radar`",
        "sources/entries/2026/09-11-todo.yaml:10:1: headline: empty; write the headline, in our "
        "words",
        "sources/entries/2026/09-11-todo.yaml:14:1: summary: empty; write a paragraph in Markdown, "
        "in our words; facts from the links, never their sentences",
        "sources/entries/2026/09-11-todo.yaml:26:1: links.0.publisher: empty; write who published "
        "it, as readers know them: `SemiAnalysis`, `Sohu`, `DeepSeek API docs`",
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


def fill(text: str, values: list[tuple[str, str]]) -> str:
    """Fill the first empty `key:` line of each (key with its indent, value), as an editor would."""
    for key, value in values:
        assert f"\n{key}:\n" in text, f"no empty {key!r} in the skeleton"
        text = text.replace(f"\n{key}:\n", f"\n{key}: {value}\n", 1)
    return text


def test_new_price_file_is_checked_once_filled(tiny: Path) -> None:
    # Before issue 21: "'price' is not one of 'entry', 'series'".
    runner = CliRunner()
    made = runner.invoke(main, ["new", "price", "--root", str(tiny), "--slug", "mistral",
                                "--date", "2026-09-01"])
    assert made.exit_code == 0, made.output
    assert made.output == ("wrote sources/prices/mistral.yaml: fill in the empty fields, then "
                           "run `brief check`\n")
    path = tiny / "sources" / "prices" / "mistral.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# yaml-language-server: $schema=../../schemas/price.schema.json\n")
    assert '\nprovider: "mistral"\n' in text and "\n        from: 2026-09-01\n" in text
    assert "\n        checked: 2026-09-01\n" in text and "\n        to: null\n" in text

    check = runner.invoke(main, ["check", "--root", str(tiny)])
    assert check.exit_code == 1
    assert [line for line in check.output.splitlines() if "mistral" in line] == [
        "sources/prices/mistral.yaml:6:1: name: empty; write the provider as readers know it: "
        "`DeepSeek`",
        "sources/prices/mistral.yaml:10:1: lists.0.currency: empty; write ISO 4217 code of the "
        "list: `USD`, `CNY`, `EUR`",
        "sources/prices/mistral.yaml:35:1: lists.0.records.0.model: empty; write the model id as "
        "the provider's API spells it: `deepseek-v4-flash` (ASCII letters, digits and "
        "`._:/@+~-`)",
        "sources/prices/mistral.yaml:44:1: lists.0.records.0.prices.0.meter: empty; write what "
        "is billed: `input` (cache miss), `cached_input` (cache read), `cache_write`, `output`",
        "sources/prices/mistral.yaml:46:1: lists.0.records.0.prices.0.price: empty; write the "
        "price in the list's currency and unit, as published",
        "sources/prices/mistral.yaml:63:1: lists.0.records.0.source_url: empty; write the page "
        "the prices were read from",
    ]
    path.write_text(fill(text, [("name", "Mistral AI"), ("    currency", "EUR"),
                                ("        model", "mistral-medium-3"),
                                ("            meter", "input"), ("            price", "0.4"),
                                ("        source_url", "https://mistral.ai/pricing")]),
                    encoding="utf-8")
    check = runner.invoke(main, ["check", "--root", str(tiny)])
    assert check.exit_code == 0, check.output
    assert "mistral" not in check.output
    record = load_sources(tiny).prices["mistral"].model.lists[0].records[0]
    assert (record.model, record.from_, record.prices[0].price) == (
        "mistral-medium-3", dt.datetime(2026, 9, 1, tzinfo=dt.UTC), 0.4)


COST_FIELDS = [("    accelerator", "H100"), ("    basis", "cloud_on_demand"),
               ("    amount_per_hour", "2.99"), ("    source", "Example Cloud price list"),
               ("    source_url", "https://cloud.example.org/pricing/gpu")]


def test_new_cost_is_added_to_costs_yaml_and_checked_once_filled(copy_repo_sources) -> None:
    root = copy_repo_sources()
    path = root / "sources" / "hardware" / "costs.yaml"
    before = path.read_text(encoding="utf-8")
    runner = CliRunner()
    made = runner.invoke(main, ["new", "cost", "--root", str(root), "--date", "2026-11-02"])
    assert made.exit_code == 0, made.output
    assert made.output == ("added a record at the end of sources/hardware/costs.yaml: fill in its "
                           "empty fields, then run `brief check`\n")
    text = path.read_text(encoding="utf-8")
    assert text.startswith(before)  # the file's records are untouched
    added = text[len(before):]
    assert added.startswith("  # A new record: fill in every empty field, then run `brief "
                            "check`.\n  - # Canonical accelerator name")
    assert "\n    date: 2026-11-02\n    # When we last read the source.\n    checked: 2026-11-02\n" \
        in added
    n = len(before.split("\n  - accelerator:")) - 1  # the new record's position in `costs`
    at = {key: before.count("\n") + added.splitlines().index(f"    {key}:") + 1
          for key in ("accelerator", "basis", "amount_per_hour", "source", "source_url")}
    check = runner.invoke(main, ["check", "--root", str(root)])
    assert check.exit_code == 1
    assert [line for line in check.output.splitlines() if "costs.yaml" in line] == [
        f"sources/hardware/costs.yaml:{at['accelerator']}:1: costs.{n}.accelerator: empty; "
        "write canonical accelerator name, as in accelerators.yaml",
        f"sources/hardware/costs.yaml:{at['basis']}:1: costs.{n}.basis: empty; write "
        "`cloud_on_demand` (a cloud's list price), `rental_contract` (a term rental) or "
        "`owner_tco` (what owning and running it costs per hour, all in)",
        f"sources/hardware/costs.yaml:{at['amount_per_hour']}:1: costs.{n}.amount_per_hour: "
        "empty; write price of one accelerator for one hour, in `currency`",
        f"sources/hardware/costs.yaml:{at['source']}:1: costs.{n}.source: empty; write who "
        "published the figure: `SemiAnalysis InferenceX (constants.ts)`",
        f"sources/hardware/costs.yaml:{at['source_url']}:1: costs.{n}.source_url: empty; write "
        "where the figure can be read",
    ]
    path.write_text(before + fill(added, COST_FIELDS), encoding="utf-8")
    check = runner.invoke(main, ["check", "--root", str(root), "--strict"])
    assert check.exit_code == 0, check.output
    cost = load_sources(root).hardware.costs[n]
    assert (cost.accelerator, cost.amount_per_hour, cost.date) == ("H100", 2.99,
                                                                  dt.date(2026, 11, 2))


def test_new_cost_without_costs_yaml_writes_the_file(tiny: Path) -> None:
    from pipeline.load.parse import read_model
    from pipeline.models.hardware import CostsFile

    made = CliRunner().invoke(main, ["new", "cost", "--root", str(tiny), "--date", "2026-11-02"])
    assert made.exit_code == 0 and made.output.startswith("wrote sources/hardware/costs.yaml")
    path = tiny / "sources" / "hardware" / "costs.yaml"
    path.write_text(fill(path.read_text(encoding="utf-8"), COST_FIELDS), encoding="utf-8")
    sourced, problems = read_model(path, CostsFile, tiny)
    assert problems == [] and sourced is not None
    assert sourced.model.costs[0].checked == dt.date(2026, 11, 2)


@pytest.mark.parametrize(("body", "why"), [
    ("costs: [{accelerator: H100}]\n", "is written in flow style"),
    ("costs:\n  - accelerator: H100\nnote: x\n", "must be the file's last key"),
    ("costs: [\n", "cannot be read as YAML"),
])
def test_new_cost_refuses_a_file_it_cannot_extend(tiny: Path, body: str, why: str) -> None:
    path = tiny / "sources" / "hardware" / "costs.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(body, encoding="utf-8")
    made = CliRunner().invoke(main, ["new", "cost", "--root", str(tiny)])
    assert made.exit_code == 1 and why in made.output
    assert path.read_text(encoding="utf-8") == body


BENCHMARK_FIELDS = [("    path", "mlperf-inference/v6.0/summary.json"),
                    ("    suite", "mlperf-inference"), ("    round", "v6.0"),
                    ("    published", "2026-04-01"),
                    ("    source_url", "https://github.com/mlcommons/inference_results_v6.0/blob/"
                     "main/summary.json")]


def test_new_benchmark_is_added_to_the_index_and_checked_once_filled(copy_repo_sources) -> None:
    # Issue 40: CONTRIBUTING said `brief new benchmark` writes the file describing a benchmark
    # file; the command did not exist.
    root = copy_repo_sources()
    results = root / "sources" / "benchmarks" / "mlperf-inference" / "v6.0" / "summary.json"
    results.parent.mkdir()
    results.write_bytes((root / "sources" / "benchmarks" / "mlperf-inference" / "v6.1"
                         / "summary.json").read_bytes())
    index = root / "sources" / "benchmarks" / "index.yaml"
    before = index.read_text(encoding="utf-8")
    runner = CliRunner()
    made = runner.invoke(main, ["new", "benchmark", "--root", str(root)])
    assert made.exit_code == 0, made.output
    assert made.output == ("added a record at the end of sources/benchmarks/index.yaml: fill in "
                           "its empty fields, then run `brief check`\n")
    text = index.read_text(encoding="utf-8")
    assert text.startswith(before)
    added = text[len(before):]
    n = before.count("\n  - path:")  # the new record's position in `files`
    line = {key: before.count("\n") + added.splitlines().index(f"    {key}:") + 1
            for key in ("path", "suite", "round", "source_url")}
    check = runner.invoke(main, ["check", "--root", str(root)])
    assert check.exit_code == 1
    index_name = "sources/benchmarks/index.yaml"
    assert check.stderr.splitlines() == [
        f"{index_name}:{line['path']}:1: files.{n}.path: empty; write file path relative to "
        "`sources/benchmarks/`",
        f"{index_name}:{line['suite']}:1: files.{n}.suite: empty; write which publisher's "
        "format: `mlperf-inference` (the MLPerf schema, v5.1 array or v6.1 object, is detected) "
        "or `inferencex`",
        f"{index_name}:{line['round']}:1: files.{n}.round: empty; write round or release: "
        "`v5.1`, `v6.1`, `v2`",
        f"{index_name}:{line['source_url']}:1: files.{n}.source_url: empty; write the "
        "publisher's copy of the results",
        "4 problem(s) found.",
    ]
    index.write_text(before + fill(added, BENCHMARK_FIELDS), encoding="utf-8")
    check = runner.invoke(main, ["check", "--root", str(root), "--strict"])
    assert check.exit_code == 0, check.output
    listed = load_sources(root).hardware.files[n]
    assert (listed.path, listed.round, listed.published) == (
        "mlperf-inference/v6.0/summary.json", "v6.0", dt.date(2026, 4, 1))
