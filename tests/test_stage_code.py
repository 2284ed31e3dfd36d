"""Each kept value is keyed by the code of the module that computes it and what that imports, with
the files its stage reads (cache/code.py): an edit reaches only the values whose code runs it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import REPO

from pipeline.cache.code import CodeDigests
from pipeline.cache.page_cache import MKDOCS
from pipeline.cache.parse_cache import PARSER
from pipeline.cache.stamp import Code

COMPUTED_BY = {"load": PARSER, "compose": "pipeline.compose.edition_tables",
               "render": "pipeline.orchestrate.families",
               "charts": "pipeline.render.chart_figures", "publish": MKDOCS}
"""What computes each stage's values in a build: the parser, the editions' parts, the page
families, the chart drawings and mkdocs."""


def digests(code: Code) -> dict[str, str]:
    of = CodeDigests(code)
    return {stage: of(stage, module) for stage, module in COMPUTED_BY.items()}


@pytest.fixture()
def checkout(tmp_path: Path) -> Code:
    """A copy of this checkout's code, templates and mkdocs project, to edit."""
    for name in ("pipeline", "templates", "site"):
        shutil.copytree(REPO / name, tmp_path / name,
                        ignore=shutil.ignore_patterns("__pycache__"))
    return Code(tmp_path)


def changed_by(code: Code, path: str, text: str = "\n# edited\n") -> set[str]:
    """Return the stages whose digest an edit of `path` (appending `text`) changes."""
    before = digests(code)
    with (code.root / path).open("a", encoding="utf-8") as f:
        f.write(text)
    after = digests(code)
    return {stage for stage in before if before[stage] != after[stage]}


def test_a_template_reaches_rendering_alone(checkout: Code) -> None:
    template = sorted(p.name for p in (checkout.root / "templates").iterdir())[0]
    assert changed_by(checkout, f"templates/{template}", "{# edited #}\n") == {"render"}


def test_a_compose_module_leaves_the_parsed_sources(checkout: Code) -> None:
    # The editions are put together afresh every build: only the pages made of them change.
    assert changed_by(checkout, "pipeline/compose/edition.py") == {"render"}
    assert changed_by(checkout, "pipeline/compose/prices.py") == {"compose", "render"}


def test_a_page_renderer_leaves_parsing_composing_and_drawing(checkout: Code) -> None:
    assert changed_by(checkout, "pipeline/render/market_page.py") == {"render"}


def test_the_drawing_code_redraws_and_rerenders(checkout: Code) -> None:
    assert changed_by(checkout, "pipeline/render/charts.py") >= {"charts", "render"}
    assert "load" not in changed_by(checkout, "pipeline/render/charts.py")


def test_a_parser_reaches_every_stage_that_imports_it(checkout: Code) -> None:
    # The YAML reader is load's alone; a model is read by every stage that computes from the
    # sources, not by mkdocs, which turns Markdown into pages.
    assert changed_by(checkout, "pipeline/load/yaml_lines.py") == {"load"}
    assert changed_by(checkout, "pipeline/models/prices.py") == {"load", "compose", "render"}


def test_the_mkdocs_project_reaches_publishing_alone(checkout: Code) -> None:
    assert changed_by(checkout, "site/mkdocs.yml") == {"publish"}


def test_an_import_inside_a_function_counts(checkout: Code) -> None:
    # load/sources.py puts the parsed files together every build: not part of load's key...
    assert changed_by(checkout, "pipeline/load/sources.py") == set()
    # ...until a parser imports it, even inside a function.
    module = checkout.root / "pipeline" / "load" / "yaml_lines.py"
    module.write_text(module.read_text() + "\n\ndef _late():\n    from pipeline.load import sources\n")
    assert "load" in changed_by(checkout, "pipeline/load/sources.py")
