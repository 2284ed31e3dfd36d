"""Every number a catalogue gives (prices at the top and in bands, band starts, context windows,
batch and cache prices), in every format, under one rule: finite, within pipeline/limits.py, a
non-zero price never rounded to free. A listing that fails keeps its last good prices, and no
listing stops its catalogue nor any catalogue another (issue 50). Catalogues are served from
127.0.0.1 in their publishers' formats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_ingest_prices import CatalogueServer

from pipeline.cli.main import main
from pipeline.formats.genai_prices import read_genai_data
from pipeline.formats.litellm import read_litellm
from pipeline.formats.llm_prices import read_llm_prices
from pipeline.formats.models_dev import read_models_dev
from pipeline.paths import price_health_path, price_history_path
from pipeline.tables.catalogue_history import read_history_csv

T0 = "2026-11-01T06:00+00:00"
T1 = "2026-11-02T06:00+00:00"
LAST_GOOD = "its last good prices stay"
NOT_A_PRICE = "is not a finite price of zero or more"
ABOVE = "is above 1,000,000,000 USD per Mtok, more than any price (pipeline/limits.py)"
TINY = ("is too small to be told from 0 (under 1e-06 USD per Mtok it would read as 0, a free "
        "price)")
BAND_START = "is not a whole number of tokens from 0 to 100,000,000 (pipeline/limits.py)"
WINDOW = "is not a whole number of tokens from 1 to 100,000,000 (pipeline/limits.py)"


def litellm(**poison: object) -> dict:
    """LiteLLM's map: a model with a context window and two price bands, and a plain one."""
    return {
        "qwen-flash": {"litellm_provider": "dashscope", "mode": "chat",
                       "max_input_tokens": 1_000_000,
                       "input_cost_per_token": 5e-08, "output_cost_per_token": 4e-07,
                       "input_cost_per_token_batches": 2.5e-08,
                       "tiered_pricing": [
                           {"input_cost_per_token": 5e-08, "output_cost_per_token": 4e-07,
                            "range": [0, 256000.0]},
                           {"input_cost_per_token": 2.5e-07, "output_cost_per_token": 2e-06,
                            "range": [256000.0, 1000000.0]}], **poison},
        "gpt-x": {"litellm_provider": "openai", "mode": "chat", "input_cost_per_token": 1e-06,
                  "output_cost_per_token": 4e-06}}


def genai(tier: dict | None = None, **prices: object) -> list:
    """genai-prices' data.json: a provider with a banded model and a plain one."""
    return [{"id": "anthropic", "name": "Anthropic", "models": [
        {"id": "claude-x", "name": "Claude X", "context_window": 1000000, "prices": {
            "input_mtok": {"base": 3, "tiers": [tier or {"start": 200000, "price": 6}]},
            "output_mtok": 15, **prices}},
        {"id": "claude-y", "name": "Claude Y", "prices": {"input_mtok": 1, "output_mtok": 5}}]}]


def models_dev(size: object = 200000, **cost: object) -> dict:
    """models.dev's api.json: a provider with a banded model and a plain one."""
    return {"anthropic": {"id": "anthropic", "models": {
        "claude-x": {"id": "claude-x", "limit": {"context": 1000000, "output": 64000},
                     "cost": {"input": 3, "output": 15, **cost,
                              "tiers": [{"tier": {"type": "context", "size": size},
                                         "input": 6, "output": 22.5}]}},
        "claude-y": {"id": "claude-y", "cost": {"input": 1, "output": 5}}}}}


def llm_prices(**item: object) -> dict:
    """An llm-prices vendor file."""
    return {"vendor": "anthropic", "models": [
        {"id": "claude-x", "name": "Claude X", "price_history": [
            {"input": 3, "output": 15, "input_cached": 0.3, "from_date": None, "to_date": None,
             **item}]},
        {"id": "claude-y", "name": "Claude Y", "price_history": [
            {"input": 1, "output": 5, "input_cached": None, "from_date": None,
             "to_date": None}]}]}


def said(result) -> list[str]:
    return [f"{u.provider} {u.model} {u.field}: {u.value} {u.why}" for u in result.invalid]


@pytest.mark.parametrize(("poison", "problem"), [
    # A band's price past any float, a band start of 309 digits, one below a float's
    # precision: each an infinite price, a 309-digit band or a free price before.
    ({"tiered_pricing": [{"input_cost_per_token": 1e308, "range": [256000, 1e6]}]},
     f"tiered_pricing.0.input_cost_per_token: 1e+308 {ABOVE}"),
    ({"tiered_pricing": [{"input_cost_per_token": 1e-06, "range": [1e308, 1e309]}]},
     f"tiered_pricing.0.range: 1e+308 {BAND_START}"),
    ({"tiered_pricing": [{"input_cost_per_token": 1e-06, "range": [1.5, 1e6]}]},
     f"tiered_pricing.0.range: 1.5 {BAND_START}"),
    ({"input_cost_per_token": 1e-16}, f"input_cost_per_token: 1e-16 {TINY}"),
    ({"input_cost_per_token_batches": 1e-16}, f"input_cost_per_token_batches: 1e-16 {TINY}"),
    ({"cache_read_input_token_cost": 1e308},
     f"cache_read_input_token_cost: 1e+308 {ABOVE}"),
    ({"input_cost_per_token_above_99999999999k_tokens": 1e-06},
     f"input_cost_per_token_above_99999999999k_tokens: 99999999999000 {BAND_START}"),
    ({"max_input_tokens": 1e308}, f"max_input_tokens: 1e+308 {WINDOW}"),
])
def test_litellm_numbers_out_of_bounds_are_said(poison: dict, problem: str) -> None:
    result = read_litellm(json.dumps(litellm(**poison)).encode())
    assert said(result) == [f"dashscope qwen-flash {problem}"]
    # What is left of the listing is within bounds; nothing reads as free.
    assert all(0 < p.usd_per_mtok <= 1e9 and p.context_above_tokens <= 100_000_000
               for p in result.prices)


@pytest.mark.parametrize(("tier", "prices", "problem"), [
    ({"start": 1e308, "price": 6}, {}, f"input_mtok.tiers.0.start: 1e+308 {BAND_START}"),
    ({"start": 200000, "price": 1e308}, {}, f"input_mtok.tiers.0.price: 1e+308 {ABOVE}"),
    (None, {"cache_read_mtok": 1e-10}, f"cache_read_mtok: 1e-10 {TINY}"),
])
def test_genai_prices_numbers_out_of_bounds_are_said(tier, prices, problem: str) -> None:
    result = read_genai_data(json.dumps(genai(tier, **prices)).encode())
    assert said(result) == [f"anthropic claude-x {problem}"]
    assert all(0 < p.usd_per_mtok <= 1e9 and p.context_above_tokens <= 100_000_000
               for p in result.prices)


@pytest.mark.parametrize(("size", "cost", "problem"), [
    (1e308, {}, f"cost.tiers.0.tier.size: 1e+308 {BAND_START}"),
    (200000, {"cache_read": 1e-10}, f"cost.cache_read: 1e-10 {TINY}"),
    (200000, {"cache_write": 1e300}, f"cost.cache_write: 1e+300 {ABOVE}"),
])
def test_models_dev_numbers_out_of_bounds_are_said(size, cost, problem: str) -> None:
    result = read_models_dev(json.dumps(models_dev(size, **cost)).encode())
    assert said(result) == [f"anthropic claude-x {problem}"]
    assert all(0 < p.usd_per_mtok <= 1e9 and p.context_above_tokens <= 100_000_000
               for p in result.prices)


def test_a_context_window_past_the_limit_is_said() -> None:
    doc = models_dev()
    doc["anthropic"]["models"]["claude-x"]["limit"]["context"] = 10**12
    result = read_models_dev(json.dumps(doc).encode())
    assert said(result) == [f"anthropic claude-x limit.context: 1000000000000 {WINDOW}"]
    assert {p.context_window_tokens for p in result.prices} == {None}


def test_llm_prices_numbers_out_of_bounds_are_said() -> None:
    result = read_llm_prices(json.dumps(llm_prices(input_cached=1e-10, output=1e308)).encode())
    assert said(result) == [f"anthropic claude-x output: 1e+308 {ABOVE}",
                            f"anthropic claude-x input_cached: 1e-10 {TINY}"]


CATALOGUES = """
catalogues:
{entries}
providers: {{}}
"""
ENTRY = """  - id: {cid}
    name: {cid}
    url: {url}
    page: https://example.org/{cid}
    format: {fmt}
    licence: MIT
    attribution: Test data.
    use: published
"""


def four_catalogues(root: Path, server: CatalogueServer, bodies: dict[str, object]) -> Path:
    """A project with the four formats' catalogues, each served from 127.0.0.1."""
    entries = []
    for fmt, body in bodies.items():
        name = "/llm-prices/" if fmt == "llm-prices" else f"/{fmt}.json"
        entry = ENTRY.format(cid=fmt, url=server.url(name), fmt=fmt)
        if fmt == "llm-prices":
            entry += "    files: [anthropic.json]\n"
            name += "anthropic.json"
        server.bodies[name] = json.dumps(body).encode()
        entries.append(entry)
    (root / "sources").mkdir(parents=True, exist_ok=True)
    (root / "sources" / "catalogues.yaml").write_text(
        CATALOGUES.format(entries="".join(entries)))
    return root


def ingest(root: Path, at: str):
    return CliRunner().invoke(main, ["ingest", "prices", "--root", str(root), "--at", at,
                                     "--allow-network", "127.0.0.0/8"])


def health(root: Path, cid: str) -> dict:
    return json.loads(price_health_path(root, cid).read_text())


GOOD = {"litellm": litellm(), "genai-prices": genai(), "models-dev": models_dev(),
        "llm-prices": llm_prices()}
POISONED = {
    "litellm": (litellm(tiered_pricing=[
        {"input_cost_per_token": 5e-08, "output_cost_per_token": 4e-07, "range": [0, 256000]},
        {"input_cost_per_token": 1e308, "output_cost_per_token": 2e-06,
         "range": [256000, 1e6]}]),
        f"dashscope qwen-flash tiered_pricing.1.input_cost_per_token: 1e+308 {ABOVE}"),
    "genai-prices": (genai({"start": 1e308, "price": 6}),
                     f"anthropic claude-x input_mtok.tiers.0.start: 1e+308 {BAND_START}"),
    "models-dev": (models_dev(cache_read=1e-16),
                   f"anthropic claude-x cost.cache_read: 1e-16 {TINY}"),
    "llm-prices": (llm_prices(output=1e-16),
                   f"anthropic claude-x output: 1e-16 {TINY}"),
}


@pytest.mark.parametrize("poisoned", list(POISONED))
def test_a_poisoned_number_stops_neither_its_catalogue_nor_the_others(tmp_path: Path,
                                                                      poisoned: str) -> None:
    # Before: LiteLLM's 1e308 band became an infinite price, update_history raised a pydantic
    # ValidationError, the command exited 1 with a traceback and no later catalogue was read.
    server = CatalogueServer()
    try:
        root = four_catalogues(tmp_path, server, GOOD)
        first = ingest(root, T0)
        assert first.exit_code == 0, first.output
        before = {c: price_history_path(root, c).read_bytes() for c in GOOD}
        body, problem = POISONED[poisoned]
        name = ("/llm-prices/anthropic.json" if poisoned == "llm-prices"
                else f"/{poisoned}.json")
        server.bodies[name] = json.dumps(body).encode()
        second = ingest(root, T1)
    finally:
        server.httpd.shutdown()
    assert second.exit_code == 0, second.output
    assert "Traceback" not in second.output
    assert "4 catalogues: 4 ok, 0 failed" in second.output
    for cid in GOOD:
        assert f"ok  {cid}: " in second.output
    assert health(root, poisoned)["problems"] == [f"{problem}; {LAST_GOOD}"]
    assert health(root, poisoned)["catalogue_id"] == poisoned
    # The listing keeps every last good price: nothing moved, nothing reads as delisted or free.
    assert price_history_path(root, poisoned).read_bytes() == before[poisoned]
    table = read_history_csv(before[poisoned])
    assert (table["usd_per_mtok"] > 0).all()
    assert table["context_above_tokens"].str.len().max() <= 9
