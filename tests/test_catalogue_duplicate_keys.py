"""A key a third-party JSON map gives twice in one object (LiteLLM's map, genai-prices' JSON,
models.dev's api.json) is read as JSON readers read it, the last one winning, and said in the
catalogue's health record with where it is (issue 50). Served from 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_catalogue_numbers import GOOD, four_catalogues, health
from test_ingest_prices import CatalogueServer

from pipeline.cli.main import main
from pipeline.formats.genai_prices import read_genai_data
from pipeline.formats.litellm import read_litellm
from pipeline.formats.models_dev import read_models_dev

SAID = "the key is given more than once in one object; the last one is read"


def twice(doc: object, inside: str, key: str) -> bytes:
    """`doc` as JSON with `key` of the object written at `inside` (a JSON fragment that
    opens it) given again first, at a price of 9."""
    text = json.dumps(doc)
    assert inside in text
    return text.replace(inside, f'{inside}"{key}": 9, ', 1).encode()


CASES = {
    "litellm": (twice(GOOD["litellm"], '"gpt-x": {', "input_cost_per_token"),
                "gpt-x.input_cost_per_token"),
    "genai-prices": (twice(GOOD["genai-prices"], '"prices": {', "output_mtok"),
                     "0.models.0.prices.output_mtok"),
    "models-dev": (twice(GOOD["models-dev"], '"cost": {', "output"),
                   "anthropic.models.claude-x.cost.output"),
}


@pytest.mark.parametrize("cid", list(CASES))
def test_a_key_given_twice_is_read_last_and_said(cid: str) -> None:
    body, where = CASES[cid]
    reader = {"litellm": read_litellm, "genai-prices": read_genai_data,
              "models-dev": read_models_dev}[cid]
    assert reader(body).repeated_keys == [where]


def test_a_model_given_twice_at_the_top_of_litellms_map_is_said() -> None:
    text = json.dumps(GOOD["litellm"])
    body = text.replace('{"qwen-flash"', '{"gpt-x": {"litellm_provider": "openai", "mode": '
                        '"chat", "input_cost_per_token": 2e-06}, "qwen-flash"', 1).encode()
    result = read_litellm(body)
    assert result.repeated_keys == ["gpt-x"]
    # The last one wins, as in every JSON reader: the entry of the map's end.
    assert {p.usd_per_mtok for p in result.prices if p.model == "gpt-x"} == {1.0, 4.0}


def test_each_catalogue_names_its_repeated_key_in_its_health(tmp_path: Path) -> None:
    server = CatalogueServer()
    try:
        root = four_catalogues(tmp_path, server, GOOD)
        for cid, (body, _) in CASES.items():
            server.bodies[f"/{cid}.json"] = body
        done = CliRunner().invoke(main, ["ingest", "prices", "--root", str(root), "--at",
                                         "2026-11-01T06:00+00:00", "--allow-network",
                                         "127.0.0.0/8"])
    finally:
        server.httpd.shutdown()
    assert done.exit_code == 0, done.output
    assert "4 catalogues: 4 ok, 0 failed" in done.output
    for cid, (_, where) in CASES.items():
        assert health(root, cid)["problems"] == [f"{where}: {SAID}"], cid
    assert health(root, "llm-prices")["problems"] == []
