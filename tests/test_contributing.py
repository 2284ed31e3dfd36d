"""CONTRIBUTING.md quotes real `brief` output: each quote must be exactly what the command prints,
with the exit code the guide implies (a quote of problems: 1; of warnings only: 0)."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from click.testing import CliRunner
from conftest import REPO

from pipeline.cli.main import main

GUIDE = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
PATH = "sources/entries/2026/12-03-gpu-hour-prices-fall.yaml"
HEAD = "# yaml-language-server: $schema=../../../schemas/entry.schema.json\ndate: 2026-12-03\n"


def console_blocks() -> list[list[str]]:
    """Return the lines of every ```console block of the guide, de-indented."""
    blocks = re.findall(r"^( *)```console\n(.*?)^\1```", GUIDE, re.MULTILINE | re.DOTALL)
    return [textwrap.dedent(body).splitlines() for _, body in blocks]


def quoted(lines: list[str]) -> None:
    """Assert `lines` are exactly a quoted block, or one command of a block: its `$ ` line and
    all the output up to the next `$ ` line or the block's end."""
    assert lines, "the command printed nothing"
    quotes = []
    for block in console_blocks():
        starts = [i for i, line in enumerate(block) if line.startswith("$ ")]
        quotes += [block] + [block[i:j] for i, j in zip(starts, [*starts[1:], len(block)])]
    assert lines in quotes, "CONTRIBUTING.md quotes no such output:\n" + "\n".join(lines)


def run(*args: str) -> tuple[int, list[str]]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output.splitlines()


def write(root: Path, body: str, path: str = PATH) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(body, encoding="utf-8")


CASES = [
    # A misspelt key, so a missing one, and a link without https://.
    (HEAD + "section: numbres\nheadlin: H100 hour prices fall again\nsummary: An example.\n"
     "links:\n  - url: www.example.org/h100\n    publisher: Example\n", 3),
    # A section the series does not have (checked once the file is valid).
    (HEAD + "section: numbres\nheadline: H\nsummary: s\nlinks:\n"
     "  - url: https://example.org/h100\n    publisher: Example\n", 1),
    # A date that does not exist.
    (HEAD.replace("2026-12-03", "2026-13-03") + "section: top\nheadline: x\nsummary: s\n"
     "links: [{url: 'https://e.org/a', publisher: P}]\n", 1),
    # A quote never closed.
    ('date: 2026-12-3\nsection: top\nheadline: "x\nsummary: s\n', 1),
]


def with_edition_for_the_entry(root: Path) -> Path:
    """Add the edition of 2026-12-04 (step 3 of the guide), as the error examples assume."""
    series = root / "sources" / "editions.yaml"
    text = series.read_text(encoding="utf-8")
    assert "  - 2026-11-20\n" in text
    series.write_text(text.replace("  - 2026-11-20\n", "  - 2026-11-20\n  - 2026-12-04\n"),
                      encoding="utf-8")
    return root


def test_quoted_errors_are_what_brief_check_prints(copy_repo_sources) -> None:
    root = with_edition_for_the_entry(copy_repo_sources())
    for body, count in CASES:
        write(root, body)
        code, lines = run("check", "--root", str(root))
        assert code == 1, f"brief check passed:\n{body}"
        problems = [line for line in lines if line.startswith(PATH)]
        assert len(problems) == count and lines[-1] == f"{count} problem(s) found."
        for line in problems:  # the guide quotes them alone or with others of their case
            assert line in GUIDE.splitlines(), f"CONTRIBUTING.md no longer quotes: {line}"
    write(root, CASES[0][0])
    quoted([line for line in run("check", "--root", str(root))[1] if line.startswith(PATH)]
           + ["3 problem(s) found."])


def test_quoted_github_annotation(copy_repo_sources) -> None:
    root = with_edition_for_the_entry(copy_repo_sources())
    write(root, CASES[1][0])
    code, lines = run("check", "--root", str(root), "--format", "github")
    assert code == 1
    annotations = [line for line in lines if line.startswith("::")]
    assert annotations == [
        f"::error file={PATH},line=3,title=section::unknown section 'numbres'; editions.yaml "
        "has: local, numbers, radar, top"]
    quoted(annotations)


def test_new_entry_then_check_as_quoted(copy_repo_sources) -> None:
    root = copy_repo_sources()
    code, lines = run("new", "entry", "--root", str(root), "--slug", "gpu-hour-prices-fall",
                      "--date", "2026-12-03")
    assert code == 0
    quoted(["$ brief new entry --slug gpu-hour-prices-fall --date 2026-12-03", *lines])

    code, lines = run("check", "--root", str(root))
    assert code == 1 and len(lines) == 5
    quoted(["$ brief check", *lines])

    # Filled in as the guide says, with a home page as the link: two warnings, exit 0.
    path = root / PATH
    text = path.read_text(encoding="utf-8")
    for key, value in [("section:", "section: numbers"), ("headline:", "headline: H100 hours"),
                       ("summary:", "summary: An example."), ("    publisher:", "    publisher: X")]:
        text = text.replace(f"\n{key}\n", f"\n{value}\n", 1)
    path.write_text(text.replace("    url: null\n", "    url: https://www.example.org/\n"),
                    encoding="utf-8")
    code, lines = run("check", "--root", str(root))
    assert code == 0 and len(lines) == 3
    quoted(["$ brief check", *lines])
    assert run("check", "--root", str(root), "--strict")[0] == 1

    # The two fixes the warnings name: the article's page, and an edition date on or after it.
    path.write_text(text.replace("    url: null\n", "    url: https://www.example.org/h100\n"),
                    encoding="utf-8")
    with_edition_for_the_entry(root)
    code, lines = run("check", "--root", str(root), "--strict")
    assert code == 0 and len(lines) == 1 and re.fullmatch(r"0 problems; \d+ entries checked\.",
                                                          lines[0]), lines


def test_unlinked_source_example_is_accepted(copy_repo_sources) -> None:
    root = copy_repo_sources()
    example = re.search(r"```yaml\n(\s*links:\n.*?)```", GUIDE, re.DOTALL)
    assert example is not None
    write(root, HEAD.replace("2026-12-03", "2026-11-20") + "section: local\nheadline: H\n"
          "summary: S\n" + textwrap.dedent(example[1]), "sources/entries/2026/11-20-example.yaml")
    code, lines = run("check", "--root", str(root), "--strict")
    assert code == 0, lines


def test_new_price_cost_and_benchmark_as_quoted(copy_repo_sources) -> None:
    root = copy_repo_sources()
    code, lines = run("new", "price", "--root", str(root), "--slug", "mistral",
                      "--date", "2026-12-01")
    assert code == 0
    quoted(["$ brief new price --slug mistral --date 2026-12-01", *lines])
    code, lines = run("new", "cost", "--root", str(root), "--date", "2026-12-01")
    assert code == 0
    quoted(["$ brief new cost --date 2026-12-01", *lines])
    code, lines = run("new", "benchmark", "--root", str(root))
    assert code == 0
    quoted(["$ brief new benchmark", *lines])


def test_quoted_overlap_asks_for_the_old_records_to(copy_repo_sources) -> None:
    root = copy_repo_sources()
    path = root / "sources" / "prices" / "zhipu.yaml"
    text = path.read_text(encoding="utf-8")
    new_record = ("      - model: glm-4.5-air\n        from: 2026-11-02\n"
                  "        source_url: https://open.bigmodel.cn/pricing\n"
                  "        checked: 2026-11-02\n        prices:\n"
                  "          - {meter: input, price: 0.6}\n")
    path.write_text(text.replace("    records:\n", "    records:\n" + new_record, 1),
                    encoding="utf-8")
    code, lines = run("check", "--root", str(root))
    assert code == 1 and lines[-1] == "1 problem(s) found."
    quoted(lines[:-1])
    # The fix the guide gives: the old record's `to:` at the new `from:`.
    old = "      - model: glm-4.5-air\n        from: 2026-05-23\n"
    assert old in text
    path.write_text(text.replace(old, old + "        to: 2026-11-02\n").replace(
        "    records:\n", "    records:\n" + new_record, 1), encoding="utf-8")
    assert run("check", "--root", str(root))[0] == 0


def test_claims_example_passes_and_a_mistyped_move_is_quoted(copy_repo_sources) -> None:
    root = with_edition_for_the_entry(copy_repo_sources())
    example = re.search(r"```yaml\n(claims:\n.*?)```", GUIDE, re.DOTALL)
    assert example is not None
    body = (HEAD + "section: top\nheadline: Claude Sonnet 5 at full price\nsummary: >-\n  Input "
            "went from $2 to $3 per million tokens and output from $10 to $15, so the same chat "
            "traffic costs half as much again.\nlinks:\n  - url: https://github.com/simonw/"
            "llm-prices/blob/main/data/anthropic.json\n    publisher: GitHub (simonw/llm-prices)\n"
            + example[1])
    write(root, body)
    code, lines = run("check", "--root", str(root), "--strict")
    assert code == 0, lines
    write(root, body.replace("stated_change_percent: 50", "stated_change_percent: 40"))
    code, lines = run("check", "--root", str(root))
    assert code == 1
    quoted(["$ brief check", *lines])
