"""CONTRIBUTING.md quotes real `brief check` output: the quotes must stay true."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from conftest import REPO

from pipeline.cli.main import main

GUIDE = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
PATH = "sources/entries/2026/12-03-gpu-hour-prices-fall.yaml"


def check_output(root: Path, body: str) -> list[str]:
    target = root / PATH
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(body, encoding="utf-8")
    result = CliRunner().invoke(main, ["check", "--root", str(root)])
    assert result.exit_code == 1
    return result.output.splitlines()


def test_quoted_errors_are_what_brief_check_prints(copy_repo_sources) -> None:
    root = copy_repo_sources()
    head = "# yaml-language-server: $schema=../../../schemas/entry.schema.json\ndate: 2026-12-03\n"
    cases = [
        head + "section: numbres\nheadlin: H100 hour prices fall again\nsummary: An example.\n"
        "links:\n  - url: www.example.org/h100\n    publisher: Example\n",
        head + "section: numbres\nheadline: H\nsummary: s\nlinks:\n"
        "  - url: https://example.org/h100\n    publisher: Example\n",
        head.replace("2026-12-03", "2026-13-03") + "section: top\nheadline: x\nsummary: s\n"
        "links: [{url: 'https://e.org', publisher: P}]\n",
        'date: 2026-12-3\nsection: top\nheadline: "x\nsummary: s\n',
    ]
    for body in cases:
        problems = [line for line in check_output(root, body) if line.startswith("sources/")]
        assert problems, f"brief check printed no problem for:\n{body}"
        for line in problems:
            assert line in GUIDE, f"CONTRIBUTING.md no longer matches: {line}"


def test_new_entry_output_is_quoted(copy_repo_sources) -> None:
    root = copy_repo_sources()
    result = CliRunner().invoke(main, ["new", "entry", "--root", str(root), "--slug",
                                       "gpu-hour-prices-fall", "--date", "2026-12-03"])
    assert result.exit_code == 0 and result.output.strip()
    assert result.output.strip() in GUIDE
    check = CliRunner().invoke(main, ["check", "--root", str(root)])
    assert check.exit_code == 1 and check.output.count("\n") >= 3
    assert "\n   ".join(check.output.strip().splitlines()) in GUIDE
