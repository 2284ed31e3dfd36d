"""Importers of public price maps, on the real files in ../shared/data/real and small samples."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import click
import yaml
from click.testing import CliRunner

from pipeline.cli.prices import register
from pipeline.formats.genai_prices import read_genai_prices
from pipeline.formats.litellm import read_litellm
from pipeline.formats.llm_prices import read_llm_prices
from pipeline.models.prices import PriceFile

REPO = Path(__file__).resolve().parents[1]


def test_litellm_fields_become_tiers():
    data = json.dumps({"sample_spec": {"mode": "chat"}, "gpt-x": {
        "litellm_provider": "openai", "mode": "chat", "input_cost_per_token": 5e-06,
        "output_cost_per_token": 3e-05, "cache_read_input_token_cost": 5e-07,
        "input_cost_per_token_above_272k_tokens": 1e-05, "input_cost_per_token_batches": 2.5e-06,
        "input_cost_per_token_priority": 1e-05, "input_cost_per_audio_token": 1e-4}}).encode()
    result = read_litellm(data)
    got = {(p.meter, p.context_above_tokens, p.mode): p.usd_per_mtok for p in result.prices}
    assert got == {("input", 0, "realtime"): 5, ("output", 0, "realtime"): 30,
                   ("cached_input", 0, "realtime"): 0.5, ("input", 272000, "realtime"): 10,
                   ("input", 0, "batch"): 2.5}
    assert dict(result.unrepresented) == {"*_priority (service tier)": 1,
                                          "input_cost_per_audio_token": 1}
    assert result.skipped["not a model entry"] == 1


def test_real_litellm_map(real_data):
    raw = (real_data / "litellm" / "model_prices_and_context_window.json").read_bytes()
    result = read_litellm(raw)
    doc = json.loads(raw)
    chat_with_prices = [k for k, v in doc.items() if isinstance(v, dict) and v.get("mode") == "chat"
                        and ({"input_cost_per_token", "output_cost_per_token", "tiered_pricing"}
                             & set(v))]
    assert result.models == len(chat_with_prices)
    assert result.unrepresented["*_priority (service tier)"] > 0
    flash = {p.meter: p.usd_per_mtok for p in result.prices if p.model == "deepseek-v4-flash"}
    assert flash == {"input": 0.14, "cached_input": 0.0028, "output": 0.28}


def test_real_llm_prices(real_data):
    total = 0
    for path in sorted((real_data / "llm-prices" / "data").glob("*.json")):
        result = read_llm_prices(path.read_bytes())
        total += result.models
    assert total == 142  # the README's count
    sonnet = [p for p in read_llm_prices(
        (real_data / "llm-prices" / "data" / "anthropic.json").read_bytes()).prices
        if p.model == "claude-sonnet-5" and p.meter == "input"]
    assert sorted((str(p.from_date), p.usd_per_mtok) for p in sonnet) == [
        ("2026-09-01", 3), ("None", 2)]


def test_real_genai_prices_time_and_date_constraints(real_data):
    folder = real_data / "genai-prices" / "providers"
    deepseek = read_genai_prices((folder / "deepseek.yml").read_bytes())
    chat = {(p.meter, p.window_utc is not None): p.usd_per_mtok
            for p in deepseek.prices if p.model == "deepseek-chat"}
    assert chat[("input", False)] == 0.135 and chat[("input", True)] == 0.27
    anthropic = read_genai_prices((folder / "anthropic.yml").read_bytes())
    assert anthropic.unrepresented["web_searches_kcount"] > 0
    sonnet5 = [p for p in anthropic.prices if p.model == "claude-sonnet-5" and p.meter == "input"]
    assert {(str(p.from_date), str(p.to_date), p.usd_per_mtok) for p in sonnet5} == {
        ("None", "2026-09-01", 2), ("2026-09-01", "None", 3)}


def cli() -> click.Group:
    group = click.Group(name="brief")
    register(group)
    return group


def test_import_writes_valid_provider_files(real_data, tmp_path):
    path = real_data / "genai-prices" / "providers" / "deepseek.yml"
    out = tmp_path / "prices"
    res = CliRunner().invoke(cli(), ["import", "genai-prices", str(path), "--out", str(out),
                                     "--since", "2026-01-01"])
    assert res.exit_code == 0, res.output
    doc = yaml.safe_load((out / "deepseek.yaml").read_text())
    PriceFile.model_validate(doc)
    assert doc["lists"][0]["windows"][0]["name"] == "utc-0030-1630"
    again = CliRunner().invoke(cli(), ["import", "genai-prices", str(path), "--out", str(out)])
    assert again.exit_code == 1 and "pass --force" in again.output


def test_import_dry_run_prints_the_table_and_counts(real_data):
    path = real_data / "llm-prices" / "data" / "openai.json"
    res = CliRunner().invoke(cli(), ["import", "llm-prices", str(path), "--dry-run"])
    assert res.exit_code == 0
    assert res.stdout.splitlines()[0].startswith("provider\tmodel\tmeter")
    assert "not representable: long-context price as a separate model id: 7" in res.stderr


def test_import_refuses_other_files(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text("[1, 2]")
    res = CliRunner().invoke(cli(), ["import", "litellm", str(bad), "--dry-run"])
    assert res.exit_code == 1 and "not a litellm price map" in res.output


def test_the_real_maps_import_into_files_that_pass_brief_check(real_data, tmp_path):
    """Tried as a new user would: import each real map into a repository's sources/prices/
    (the curated files moved aside), then `brief check` it."""
    from pipeline.cli.main import main

    runner = CliRunner()
    maps = [("litellm", real_data / "litellm" / "model_prices_and_context_window.json", []),
            ("genai-prices", real_data / "genai-prices" / "providers" / "deepseek.yml", []),
            ("llm-prices", real_data / "llm-prices" / "data" / "openai.json",
             ["--since", "2026-08-01"])]
    for fmt, path, extra in maps:
        root = tmp_path / fmt
        shutil.copytree(REPO / "sources", root / "sources")
        prices = root / "sources" / "prices"
        for curated in prices.glob("*.yaml"):
            curated.unlink()
        done = runner.invoke(main, ["import", fmt, str(path), "--root", str(root), "--out",
                                    str(prices), *extra])
        assert done.exit_code == 0, done.output
        checked = runner.invoke(main, ["check", "--root", str(root)])
        # The import reads; what check may still refuse is a price the other catalogues list
        # 20x apart (LiteLLM's two entries of kimi-thinking-preview, $0.60 and $30, against
        # models.dev's): the market check doing its work on real data, a handful at most.
        lines = checked.output.splitlines()[:-1]
        # A model no catalogue lists (llm-prices' gpt-4.5, retired from the others) is warned
        # as unmatched, its prices held to the ceiling only.
        warned = [line for line in lines if ": warning: " in line]
        assert all("no catalogue lists this model" in line for line in warned), (fmt, warned[:5])
        # The bundled entries' claims cite our curated files, replaced here by the import:
        # where the map's figure differs (or it has no such price), check says so, per claim.
        problems = [line for line in lines if line not in warned
                    and not re.match(r"sources/entries/\S+: claims\.\d+\.", line)]
        assert all("the catalogues' price" in line for line in problems), (fmt, problems[:5])
        assert len(problems) <= 5, (fmt, problems)
        docs = {p.stem: yaml.safe_load(p.read_text()) for p in prices.glob("*.yaml")}
        records = [r for d in docs.values() for plist in d["lists"] for r in plist["records"]]
        assert records and all(p["price"] > 0 for r in records for p in r["prices"])
        assert all(r["from"] < r.get("to", "9999") for r in records)
        if fmt == "litellm":
            # Canonical ids (sources/catalogues.yaml); undated prices dated by the map itself.
            assert {"together", "aws", "google"} <= set(docs) and "together_ai" not in docs
            assert {r["from"] for r in records} == {"2026-07-24"}
            assert {r["checked"] for r in records} == {"2026-07-24"}
            assert "zero price (free), not a price to rank" in done.output
            # Issue 36: what the market holds back as implausible is not imported either.
            assert re.search(r"held back as implausible: wandb deepseek-ai/DeepSeek-R1-0528 "
                             r"\(×[\d,]+ above the median of \d+ other providers;", done.output)
            assert "wandb" in docs and len(docs["wandb"]["lists"][0]["records"]) == 3
            # Issue 50: two spellings of one model at one provider would share its page, which
            # check refuses: the map's first is imported, the other said.
            assert ("another spelling of a model imported already (one page for both): "
                    "vercel_ai_gateway anthropic/claude-3-5-sonnet, as anthropic/claude-3.5-sonnet: 1"
                    ) in done.output
        if fmt == "genai-prices":
            # Each model's own prices_checked; the file's newest dates what it leaves undated.
            assert {r["checked"] for r in records} == {"2025-07-12", "2026-06-09", "2026-05-12",
                                                      "2026-06-02"}


def test_a_map_without_a_date_of_its_own_needs_since(real_data, tmp_path):
    path = real_data / "llm-prices" / "data" / "openai.json"
    res = CliRunner().invoke(cli(), ["import", "llm-prices", str(path), "--out",
                                     str(tmp_path / "p"), "--root", str(tmp_path)])
    assert res.exit_code == 1 and "gives no date of its own: pass --since" in res.output


def test_bundled_sonnet_4_5_keeps_the_long_context_tier_genai_prices_gives_it(real_data):
    """The record's cited catalogues agree: genai-prices ends the >200k surcharge on 2026-03-13
    for claude-sonnet-4-6 and claude-opus-4-6 only, so our claude-sonnet-4-5 keeps it."""
    import datetime as dt
    from pathlib import Path

    from pipeline.load.prices import load_prices
    from pipeline.tables.cost import record_at, tier_price

    anthropic = read_genai_prices(
        (real_data / "genai-prices" / "providers" / "anthropic.yml").read_bytes())

    def above(model: str) -> set[tuple[str, str, float]]:
        return {(p.meter, str(p.from_date), p.usd_per_mtok) for p in anthropic.prices
                if p.model == model and p.context_above_tokens == 200000}

    assert {("input", "None", 6), ("output", "None", 22.5)} <= above("claude-sonnet-4-5")
    assert all(date == "None" for _, date, _ in above("claude-sonnet-4-5"))
    ended = {p.to_date for p in anthropic.prices
             if p.model == "claude-sonnet-4-6" and p.context_above_tokens == 200000}
    assert ended == {dt.date(2026, 3, 13)}

    root = Path(__file__).resolve().parents[1]
    files, problems = load_prices(root)
    assert problems == []
    plist = files["anthropic"].model.lists[0]
    for day in (dt.date(2026, 3, 1), dt.date(2026, 9, 4), dt.date(2026, 11, 20)):
        at = dt.datetime.combine(day, dt.time(12), tzinfo=dt.UTC)
        record = record_at(plist, "claude-sonnet-4-5", at)
        assert record is not None
        assert tier_price(plist, record, "input", None, 300_000) == 6.0
        assert tier_price(plist, record, "output", None, 300_000) == 22.5


def test_each_import_says_what_its_since_means():
    """Each map leaves different prices undated: --since's help is its own (issue 52: every
    import repeated LiteLLM's)."""
    helps = {}
    for fmt, words in {"litellm": "LiteLLM's own file, which gives none",
                       "llm-prices": "which llm-prices does not give",
                       "genai-prices": "Default: the newest prices_checked in the file",
                       "models-dev": "which models.dev does not date"}.items():
        res = CliRunner().invoke(cli(), ["import", fmt, "--help"])
        assert res.exit_code == 0, res.output
        since = " ".join(res.output.split("--since")[1].split("--source-url")[0].split())
        assert words in since, (fmt, since)
        helps[fmt] = since
    assert len(set(helps.values())) == len(helps)
