"""models.dev: its api.json read into prices and model facts, and its repository's TOML files put
together as its build does (base_model merged, base_model_omit removed, both layouts)."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from pipeline.formats.models_dev import (
    link_target,
    read_models_dev,
    read_models_dev_doc,
    toml_document,
    tree_document,
)
from pipeline.formats.numbers import NOT_A_PRICE
from pipeline.formats.price_map import BAD_ID, ImportedPrice, ModelFacts

HISTORY = os.environ.get("MODELS_DEV_HISTORY")
"""A clone of models.dev to read instead of the bundle in ../shared (optional)."""


def _price(model: str, meter: str, usd: float, above: int = 0, window: int | None = None,
           provider: str = "openai") -> ImportedPrice:
    return ImportedPrice(provider, model, meter, usd, above, entry=model,
                         context_window_tokens=window)


def test_api_json_prices_meters_and_context_window() -> None:
    data = json.dumps({"openai": {"id": "openai", "name": "OpenAI", "models": {"gpt-4o": {
        "id": "gpt-4o", "name": "GPT-4o", "family": "gpt", "release_date": "2024-05-13",
        "last_updated": "2024-08-06", "open_weights": False,
        "cost": {"input": 2.5, "output": 10, "cache_read": 1.25, "cache_write": 3,
                 "reasoning": 12, "input_audio": 40, "output_audio": 80, "per_image": 1},
        "limit": {"context": 128000, "output": 16384}}}}}).encode()
    result = read_models_dev(data)
    assert result.prices == [
        _price("gpt-4o", "input", 2.5, window=128000),
        _price("gpt-4o", "output", 10.0, window=128000),
        _price("gpt-4o", "cached_input", 1.25, window=128000),
        _price("gpt-4o", "cache_write", 3.0, window=128000)]
    assert result.models == 1
    assert result.unrepresented == Counter({"cost.reasoning": 1, "cost.input_audio": 1,
                                            "cost.output_audio": 1, "cost.per_image": 1})
    assert result.facts == [ModelFacts("openai", "gpt-4o", "GPT-4o", "gpt",
                                       dt.date(2024, 5, 13), False, dt.date(2024, 8, 6))]
    assert not result.skipped and not result.invalid


def test_context_tiers_are_bands_and_win_over_the_legacy_field() -> None:
    # api.json repeats a single tier of 200k or more as context_over_200k: read once.
    doc = {"anthropic": {"models": {"claude-x": {"cost": {
        "input": 3, "output": 15,
        "tiers": [{"tier": {"type": "context", "size": 200000}, "input": 6, "output": 22.5},
                  {"tier": {"size": 1000000}, "input": 9}],
        "context_over_200k": {"input": 6, "output": 22.5}}}}}}
    result = read_models_dev_doc(doc)
    assert [(p.meter, p.usd_per_mtok, p.context_above_tokens) for p in result.prices] == [
        ("input", 3.0, 0), ("output", 15.0, 0), ("input", 6.0, 200000),
        ("output", 22.5, 200000), ("input", 9.0, 1000000)]


def test_legacy_context_over_200k_is_a_band_at_200k() -> None:
    doc = {"google": {"models": {"gemini-2.5-pro": {"cost": {
        "input": 1.25, "output": 10, "context_over_200k": {"input": 2.5, "output": 15}}}}}}
    result = read_models_dev_doc(doc)
    assert [(p.meter, p.usd_per_mtok, p.context_above_tokens) for p in result.prices] == [
        ("input", 1.25, 0), ("output", 10.0, 0), ("input", 2.5, 200000),
        ("output", 15.0, 200000)]


def test_tiers_it_cannot_place_are_counted() -> None:
    doc = {"p": {"models": {"m": {"cost": {"input": 1, "tiers": [
        {"tier": {"type": "time", "size": 5}, "input": 2}, {"input": 3}, "junk",
        {"tier": {"size": 1.5}, "input": 4}]}}}}}
    result = read_models_dev_doc(doc)
    assert [(p.meter, p.usd_per_mtok) for p in result.prices] == [("input", 1.0)]
    assert result.unrepresented == Counter({
        "cost.tiers of type time": 1, "cost.tiers entry without a tier": 2})
    # A size that is no number of tokens is the catalogue's error, said with its field.
    assert result.invalid == [("p", "m", "cost.tiers.3.tier.size", "1.5", "is not a whole "
                               "number of tokens from 0 to 100,000,000 (pipeline/limits.py)")]


def test_bad_values_are_recorded_not_raised_and_junk_is_counted() -> None:
    data = (b'{"p": {"models": {"m": {"cost": {"input": -1, "output": "2", "cache_read": 1e400,'
            b' "cache_write": 0.5}},'
            b' "free": {"cost": {"input": 0, "output": 0}},'
            b' "nocost": {"name": "No cost"}, "bad": {"cost": {"input": true}}, "junk": 3},'
            b' "name": "P"},'
            b' "q": [1, 2], "r": {"models": [1]}, "s": {"name": "no models"}}')
    result = read_models_dev(data)
    assert [(p.model, p.meter, p.usd_per_mtok) for p in result.prices] == [
        ("m", "cache_write", 0.5), ("free", "input", 0.0), ("free", "output", 0.0)]
    assert result.invalid == [("p", "m", "cost.input", "-1", NOT_A_PRICE),
                              ("p", "m", "cost.output", "2", NOT_A_PRICE),
                              ("p", "m", "cost.cache_read", "inf", NOT_A_PRICE),
                              ("p", "bad", "cost.input", "True", NOT_A_PRICE)]
    assert result.skipped == Counter({"model without token prices": 2, "not a model object": 1,
                                      "not a provider object": 1,
                                      "provider whose models are not an object": 1})
    assert result.models == 2
    assert [f.model for f in result.facts] == ["m", "free"]
    assert result.facts[0] == ModelFacts("p", "m")


@pytest.mark.parametrize("data", [b"[]", b'"text"', b"3"])
def test_a_top_level_that_is_not_an_object_is_refused(data: bytes) -> None:
    with pytest.raises(ValueError, match="not a models.dev api.json: expected a JSON object "
                                         "of providers"):
        read_models_dev(data)


def test_facts_take_only_full_dates_and_real_flags() -> None:
    doc = {"p": {"models": {"m": {
        "name": 7, "family": "", "release_date": "2026-01", "last_updated": dt.date(2025, 3, 1),
        "open_weights": "yes", "cost": {"input": 1}}}}}
    assert read_models_dev_doc(doc).facts == [
        ModelFacts("p", "m", None, None, None, None, dt.date(2025, 3, 1))]
    doc["p"]["models"]["m"]["release_date"] = "2025-02-30"
    assert read_models_dev_doc(doc).facts[0].release_date is None


def test_bad_ids_are_refused_with_their_facts() -> None:
    doc = {"p": {"models": {"ok": {"cost": {"input": 1}}, "bad id": {"cost": {"input": 1}}}}}
    result = read_models_dev_doc(doc)
    assert [p.model for p in result.prices] == ["ok"]
    assert [f.model for f in result.facts] == ["ok"]
    assert result.skipped == Counter({BAD_ID: 1})
    assert result.models == 1


def test_skip_providers_are_left_out_and_counted() -> None:
    # Left out where every catalogue's skipped providers are, with their facts.
    from pipeline.ingest.catalogues import without_skipped

    doc = {"zai-coding-plan": {"models": {"glm": {"cost": {"input": 0}}}},
           "zai": {"models": {"glm": {"cost": {"input": 0.6}}}}}
    result = without_skipped(read_models_dev_doc(doc), ["*coding-plan*"])
    assert [(p.provider, p.usd_per_mtok) for p in result.prices] == [("zai", 0.6)]
    assert [f.provider for f in result.facts] == ["zai"]
    assert result.skipped == Counter({"a provider without per-token prices (skip_providers)": 1})


def test_toml_document_parses_or_says_why() -> None:
    assert toml_document(b'name = "OpenAI"\n[cost]\ninput = 2.50\n') == {
        "name": "OpenAI", "cost": {"input": 2.5}}
    # models.dev's first commit wrote `name = Anthropic`.
    with pytest.raises(ValueError, match=r"^not TOML: Invalid value \(at line 1, column 8\)$"):
        toml_document(b"name = Anthropic\n")
    with pytest.raises(ValueError, match=r"^not TOML: not UTF-8 \(byte 8\)$"):
        toml_document(b'name = "\xff"\n')


def test_link_target_resolves_inside_the_repository_only() -> None:
    path = "providers/alibaba-cn/models/qwen3-coder-plus.toml"
    assert link_target(path, b"../../alibaba/models/qwen3-coder-plus.toml") == (
        "providers/alibaba/models/qwen3-coder-plus.toml")
    assert link_target(path, b"../../../../etc/passwd") is None
    assert link_target(path, b"/etc/passwd") is None
    assert link_target(path, b"\xff") is None


BASE = {"name": "Kimi K2.5", "family": "kimi-k2", "release_date": "2026-01",
        "structured_output": True, "open_weights": True, "license": "modified-mit",
        "limit": {"context": 262144, "output": 262144, "input": 200000},
        "weights": [{"url": "https://huggingface.co/moonshotai/Kimi-K2.5"}],
        "benchmarks": [{"name": "SWE-Bench Verified", "score": 70.8}],
        "modalities": {"input": ["text", "image"], "output": ["text"]}}


def test_tree_document_merges_base_models_and_omits() -> None:
    files = {
        "providers/alibaba/provider.toml": {"name": "Alibaba", "env": ["DASHSCOPE_API_KEY"]},
        "providers/alibaba/models/kimi-k2.5.toml": {
            "base_model": "moonshotai/kimi-k2.5",
            "base_model_omit": ["structured_output", "limit.input", "cost.tiers", "no.such"],
            "family": "kimi", "cost": {"input": 0.6, "output": 3},
            "limit": {"output": 32768}, "modalities": {"input": ["text"]}},
        "providers/alibaba/models/qwen/qwen3.toml": {"name": "Qwen3", "cost": {"input": 1}},
        "providers/solo/models/m.toml": {"name": "M"},
        "models/moonshotai/kimi-k2.5.toml": BASE,
        "providers/alibaba/logo.svg": {}, "README.md": {}, "providers/llama/x.toml": {},
    }
    doc, unresolved = tree_document(files)
    assert unresolved == []
    assert doc == {
        "alibaba": {"name": "Alibaba", "env": ["DASHSCOPE_API_KEY"], "id": "alibaba",
                    "models": {
                        "kimi-k2.5": {
                            "id": "kimi-k2.5", "name": "Kimi K2.5", "family": "kimi",
                            "release_date": "2026-01", "open_weights": True,
                            "limit": {"context": 262144, "output": 32768},
                            "modalities": {"input": ["text"], "output": ["text"]},
                            "cost": {"input": 0.6, "output": 3}},
                        "qwen/qwen3": {"id": "qwen/qwen3", "name": "Qwen3",
                                       "cost": {"input": 1}}}},
        "solo": {"id": "solo", "models": {"m": {"id": "m", "name": "M"}}}}
    assert BASE["limit"] == {"context": 262144, "output": 262144, "input": 200000}  # unchanged


def test_tree_document_omit_drops_a_table_it_empties_and_keeps_the_legacy_band() -> None:
    files = {"models/a/b.toml": {"name": "B", "limit": {"input": 5}},
             "providers/p/models/b.toml": {
                 "base_model": "a/b", "base_model_omit": ["limit.input"],
                 "cost": {"input": 1, "tiers": [{"tier": {"size": 272000}, "input": 2}]}}}
    doc, _ = tree_document(files)
    assert doc["p"]["models"]["b"] == {
        "id": "b", "name": "B",
        "cost": {"input": 1, "tiers": [{"tier": {"size": 272000}, "input": 2}],
                 "context_over_200k": {"input": 2}}}


def test_tree_document_says_which_model_files_it_could_not_resolve() -> None:
    files = {"providers/p/provider.toml": {"name": "P"},
             "providers/p/models/a.toml": {"base_model": "nobody/none", "cost": {"input": 1}},
             "providers/p/models/b.toml": {"base_model": 3},
             "providers/p/models/c.toml": "not a table"}
    doc, unresolved = tree_document(files)
    assert doc == {"p": {"name": "P", "id": "p", "models": {}}}
    assert unresolved == [("providers/p/models/a.toml", "base_model 'nobody/none' not found"),
                          ("providers/p/models/b.toml", "base_model '3' not found"),
                          ("providers/p/models/c.toml", "not a TOML table")]


def test_tree_document_reads_the_first_commits_root_layout() -> None:
    files = {"anthropic/provider.toml": {"name": "Anthropic"},
             "anthropic/models/claude-sonnet-4.toml": {"cost": {"input": 3}},
             ".github/workflows/x.toml": {}}
    doc, _ = tree_document(files)
    assert doc == {"anthropic": {"name": "Anthropic", "id": "anthropic", "models": {
        "claude-sonnet-4": {"id": "claude-sonnet-4", "cost": {"input": 3}}}}}
    # Once providers/ exists, a root folder is not a provider.
    doc, _ = tree_document(files | {"providers/openai/provider.toml": {"name": "OpenAI"}})
    assert list(doc) == ["openai"]


def _head_files(repo: Path) -> dict[str, dict]:
    """The parsed TOML files of the repository's HEAD, links followed as its build does."""
    listing = subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", "HEAD", "--",
                              "providers", "models"], capture_output=True, check=True,
                             text=True).stdout.splitlines()
    entries = [(line.split("\t", 1)[1], line.split()[0], line.split()[2]) for line in listing
               if line.endswith(".toml")]
    blobs = subprocess.run(["git", "-C", str(repo), "cat-file", "--batch"],
                           input="".join(f"{sha}\n" for _, _, sha in entries).encode(),
                           capture_output=True, check=True).stdout
    files: dict[str, dict] = {}
    links: dict[str, str | None] = {}
    at = 0
    for path, mode, _ in entries:
        end = blobs.index(b"\n", at)
        size = int(blobs[at:end].split()[2])
        body, at = blobs[end + 1:end + 1 + size], end + 2 + size
        if mode == "120000":
            links[path] = link_target(path, body)
        else:
            files[path] = toml_document(body)
    files |= {path: files[target] for path, target in links.items() if target in files}
    return files


def test_real_head_tree_reads_as_the_published_build(real_data, tmp_path) -> None:
    repo = Path(HISTORY) if HISTORY else tmp_path / "models.dev.git"
    if not HISTORY:  # the bundle in ../shared (real_data: skipped when absent, failing in CI)
        bundle = real_data / "catalogue-histories" / "models.dev.bundle"
        subprocess.run(["git", "clone", "--quiet", "--bare", str(bundle), str(repo)],
                       check=True)
    doc, unresolved = tree_document(_head_files(repo))
    assert unresolved == []
    result = read_models_dev_doc(doc)
    gpt_4o = {p.meter: p.usd_per_mtok for p in result.prices
              if (p.provider, p.model, p.context_above_tokens) == ("openai", "gpt-4o", 0)}
    assert gpt_4o == {"input": 2.5, "output": 10.0, "cached_input": 1.25}
    assert result.models > 4000 and not result.refused_ids and not result.invalid
    facts = {(f.provider, f.model): f for f in result.facts}
    assert facts["openai", "gpt-4o"] == ModelFacts(
        "openai", "gpt-4o", "GPT-4o", "gpt", dt.date(2024, 5, 13), False, dt.date(2024, 8, 6))
