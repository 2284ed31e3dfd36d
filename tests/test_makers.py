"""Who makes each model, and whether its weights are published: the editors' patterns
(`makers:` in sources/catalogues.yaml), the lookup on the ids hosts use (normalize/makers.py),
and `brief check` refusing a model two makers claim (load/catalogues.py)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner
from conftest import REPO
from pydantic import ValidationError

from pipeline.cli.main import main
from pipeline.models.catalogues import CataloguesFile, Maker
from pipeline.normalize.makers import clashes, model_maker, models_makers

CATALOGUES = REPO / "sources" / "catalogues.yaml"


@pytest.fixture(scope="module")
def bundled() -> CataloguesFile:
    return CataloguesFile.model_validate(yaml.safe_load(CATALOGUES.read_text(encoding="utf-8")))


@pytest.mark.parametrize(("model", "maker", "open_weight"), [
    ("meta-llama/Llama-3.3-70B-Instruct-Turbo", "meta", True),
    ("us.meta.llama3-3-70b-instruct-v1:0", "meta", True),
    ("gpt-5", "openai", False),
    ("gpt-oss-120b", "openai", True),
    ("accounts/fireworks/models/gpt-oss-20b", "openai", True),
    ("deepseek-ai/DeepSeek-R1-0528", "deepseek", True),
    ("deepseek-ai/DeepSeek-R1-Distill-Llama-70B", "deepseek", True),
    ("anthropic.claude-3-5-sonnet-20240620-v1:0", "anthropic", False),
    ("google/gemma-3-27b-it", "google", True),
    ("gemini-2.5-pro", "google", False),
    ("Qwen/Qwen3-235B-A22B-Instruct-2507", "alibaba", True),
    ("qwen-max", "alibaba", False),
    ("zai-org/GLM-4.5", "zhipu", True),
    ("glm-4-plus", "zhipu", False),
    ("moonshotai/Kimi-K2-Instruct", "moonshot", True),
    ("mistralai/Mixtral-8x7B-Instruct-v0.1", "mistral", True),
    ("mistral-large-2402", "mistral", False),
    ("mistral-large", "mistral", False),
    ("nvidia/Llama-3.1-Nemotron-70B-Instruct", "nvidia", True),
    ("perplexity/llama-3.1-sonar-large-128k-online", "perplexity", False),
    ("command-r-plus", "cohere", True),
    ("command-light", "cohere", False),
    ("grok-4", "xai", False),
    ("some-lab/unheard-of-7b", None, False),
])
def test_the_maker_of_real_ids(bundled, model, maker, open_weight):
    assert model_maker(model, bundled.makers) == (maker, open_weight)


def test_many_ids_at_once_give_what_one_at_a_time_gives(bundled):
    ids = ["gpt-5", "gpt-5", "meta-llama/Llama-3.3-70B-Instruct-Turbo", "nobody/x"]
    assert models_makers(ids, bundled.makers) == {m: model_maker(m, bundled.makers) for m in ids}


def test_an_open_pattern_wins_within_its_maker_and_the_first_maker_across():
    makers = {"a": Maker(models=["m-*"], open_weight=["m-open"]), "b": Maker(models=["m-*"])}
    assert model_maker("m-open", makers) == ("a", True)
    assert model_maker("m-closed", makers) == ("a", False)
    # One clash per pair of patterns, each with the canonical ids it covers.
    found = clashes(["m-open", "vendor/M-closed", "m-other"], makers)
    assert [(c.first, c.first_at, c.second, c.second_at, c.models) for c in found] == [
        ("a", ("models", 0), "b", ("models", 0), ("m-closed", "m-other")),
        ("a", ("open_weight", 0), "b", ("models", 0), ("m-open",))]


@pytest.mark.parametrize(("pattern", "message"), [
    ("", "a pattern must not be empty"),
    ("  ", "a pattern must not be empty"),
    ("Llama-*", "patterns match canonical model ids, which are lower-case: write 'llama-*'"),
    ("llama 3*", "patterns match canonical model ids, which hold no spaces (a space becomes `-`)"),
])
def test_a_pattern_that_can_match_no_canonical_id_is_refused(pattern, message):
    with pytest.raises(ValidationError) as err:
        CataloguesFile.model_validate({"makers": {"meta": {"open_weight": [pattern]}}})
    error, = err.value.errors()
    assert error["loc"] == ("makers", "meta", "open_weight", 0)
    assert error["msg"] == f"Value error, {message}"


def test_a_maker_without_patterns_is_refused():
    with pytest.raises(ValidationError, match="a maker needs at least one pattern"):
        CataloguesFile.model_validate({"makers": {"meta": {}}})


def test_the_schema_accepts_the_bundled_file():
    # catalogues.yaml is no kind `brief schema` writes a file for; its JSON Schema, generated
    # from the same model, must still accept what the model accepts.
    doc = yaml.safe_load(CATALOGUES.read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(CataloguesFile.model_json_schema())
    assert [e.message for e in validator.iter_errors(doc)] == []
    assert doc["makers"]


def test_the_bundled_file_names_makers_by_our_provider_ids(bundled):
    # The makers that also sell are named as their listings are, so "the seller is the maker"
    # is a comparison of two ids.
    for maker in ("openai", "anthropic", "google", "deepseek", "zhipu", "meta", "mistral",
                  "alibaba", "xai", "moonshot", "cohere", "aws", "minimax"):
        assert maker in bundled.makers


def check(root: Path) -> tuple[int, list[str]]:
    result = CliRunner().invoke(main, ["check", "--root", str(root)])
    return result.exit_code, result.output.splitlines()


def test_brief_check_passes_on_the_bundled_sources(tmp_path):
    shutil.copytree(REPO / "sources", tmp_path / "sources")
    assert check(tmp_path) == (0, ["0 problems; 35 entries checked."])


def test_a_model_two_makers_claim_is_an_error_naming_both(tmp_path):
    shutil.copytree(REPO / "sources", tmp_path / "sources")
    path = tmp_path / "sources" / "catalogues.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text + '  acme:\n    models: ["gpt-oss-120b", "acme-*"]\n', encoding="utf-8")
    lines = path.read_text(encoding="utf-8").splitlines()
    acme = len(lines)
    openai_open = next(i for i, line in enumerate(lines, 1)
                       if line.startswith('    open_weight: ["gpt-oss-*"'))
    code, out = check(tmp_path)
    assert code == 1
    assert out == [
        f"sources/catalogues.yaml:{acme}:1: makers.acme.models.0: acme `gpt-oss-120b` and "
        f"openai `gpt-oss-*` (line {openai_open}) both match gpt-oss-120b: a model has one "
        "maker; narrow one of the patterns",
        "1 problem(s) found."]


def test_a_broad_clash_names_a_few_models_and_counts_the_rest(tmp_path):
    shutil.copytree(REPO / "sources", tmp_path / "sources")
    path = tmp_path / "sources" / "catalogues.yaml"
    path.write_text(path.read_text(encoding="utf-8") + '  acme:\n    models: ["llama-3.3-70b*"]\n',
                    encoding="utf-8")
    code, out = check(tmp_path)
    assert code == 1 and len(out) == 2
    assert re.fullmatch(
        r"sources/catalogues.yaml:\d+:1: makers.acme.models.0: acme `llama-3.3-70b\*` and meta "
        r"`llama-3.3-70b\*` \(line \d+\) both match llama-3.3-70b, llama-3.3-70b-"
        r"[a-z0-9.,\- ]+ and \d+ more: a model has one maker; narrow one of the patterns", out[0])
