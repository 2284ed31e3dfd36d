"""The cost to serve beside the price (issue 41): the matching rule from MLPerf's model names to
market ids, and the table, checked by hand against one real v5.1 result and one cost basis."""

from __future__ import annotations

import datetime as dt
import json
import math
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from pipeline.load.hardware import load_hardware
from pipeline.load.sources import load_sources
from pipeline.tables.cost_to_serve import COLUMNS, cost_to_serve, mlperf_matches
from pipeline.tables.hardware import is_public
from pipeline.tables.hardware_costs import costed_table, rows_table
from pipeline.tables.market import COLUMNS as MARKET_COLUMNS
from pipeline.tables.market import market_table_of

ROOT = Path(__file__).resolve().parents[1]
DAY = dt.date(2026, 11, 20)
"""The bundled series' newest edition."""
MLPERF_MODELS = ("deepseek-r1", "llama2-70b", "llama3.1-405b", "llama3.1-8b", "mixtral-8x7b")

MATCHES = [
    ("llama2-70b", "meta-llama/Llama-2-70b-chat-hf"),
    ("llama2-70b", "meta-llama/llama-2-70b-chat"),
    ("llama2-70b", "meta.llama2-70b-chat-v1"),
    ("llama2-70b", "databricks-llama-2-70b-chat"),
    ("llama2-70b", "llama2-70b-4096"),
    ("llama2-70b", "meta/llama-2-70b"),
    ("llama3.1-405b", "meta-llama/Meta-Llama-3.1-405B-Instruct-Turbo"),
    ("llama3.1-405b", "Meta-Llama-3.1-405B-Instruct"),
    ("llama3.1-405b", "us.meta.llama3-1-405b-instruct-v1:0"),
    ("llama3.1-405b", "databricks-meta-llama-3-1-405b-instruct"),  # two prefixes
    ("llama3.1-405b", "vertex_ai/meta/llama-3.1-405b-instruct-maas"),
    ("llama3.1-8b", "meta-llama/Llama-3.1-8B-Instruct"),
    ("llama3.1-8b", "llama-3.1-8b-instant"),
    ("llama3.1-8b", "meta-llama/llama-3.1-8b-instruct-bf16"),
    ("mixtral-8x7b", "mistralai/Mixtral-8x7B-Instruct-v0.1"),
    ("mixtral-8x7b", "us-east-1/mistral.mixtral-8x7b-instruct-v0:1"),
    ("mixtral-8x7b", "open-mixtral-8x7b"),
    ("mixtral-8x7b", "mixtral-8x7b-32768"),
    ("deepseek-r1", "deepseek-ai/DeepSeek-R1"),
    ("deepseek-r1", "deepseek.r1-v1:0"),
    ("deepseek-r1", "us.deepseek.r1-v1:0"),
    ("deepseek-r1", "accounts/fireworks/models/deepseek-r1-basic"),
    ("deepseek-r1", "deepseek-r1-671b"),
]
NOT_MATCHES = [
    ("deepseek-r1", "deepseek-ai/DeepSeek-R1-0528"),  # another release
    ("deepseek-r1", "deepseek-ai/DeepSeek-R1-0528-Turbo"),
    ("deepseek-r1", "deepseek-ai/DeepSeek-R1-Distill-Llama-70B"),  # distillations
    ("deepseek-r1", "deepseek-r1-8b"),
    ("deepseek-r1", "deepseek-r1-0528-qwen3-8b"),
    ("llama3.1-405b", "llama3.1-405b-instruct-fp8"),  # quantized
    ("llama3.1-8b", "@cf/meta/llama-3.1-8b-instruct-fp8"),
    ("llama3.1-405b", "nousresearch/hermes-3-llama-3.1-405b"),  # another maker's fine-tune
    ("llama3.1-405b", "meta-llama/Meta-Llama-3.1-70B-Instruct"),  # other sizes
    ("llama3.1-405b", "databricks-meta-llama-3-3-70b-instruct"),
    ("llama3.1-405b", "snowflake/snowflake-llama-3.1-405b"),  # Snowflake's own variant
    ("llama3.1-8b", "llama-3.1-lumimaid-8b"),
    ("llama2-70b", "meta-llama/Llama-2-7b-chat-hf"),
    ("llama2-70b", "accounts/fireworks/models/nous-hermes-llama2-70b"),
    ("llama2-70b", "llama2"),
    ("mixtral-8x7b", "mistralai/Mixtral-8x22B-Instruct-v0.1"),
    ("mixtral-8x7b", "cognitivecomputations/dolphin-mixtral-8x7b"),
    ("mixtral-8x7b", "mistral-7b-instruct"),
]


@pytest.mark.parametrize(("mlperf", "market"), MATCHES)
def test_an_mlperf_model_matches_its_listings_however_spelled(mlperf: str, market: str) -> None:
    assert mlperf_matches(mlperf, market)


@pytest.mark.parametrize(("mlperf", "market"), NOT_MATCHES)
def test_other_releases_sizes_distillations_and_quantizations_do_not_match(mlperf: str,
                                                                          market: str) -> None:
    assert not mlperf_matches(mlperf, market)


@pytest.fixture(scope="module")
def costed() -> pd.DataFrame:
    """The bundled MLPerf results public on DAY, costed on the bundled bases (all in USD)."""
    hw, rows, _ = load_hardware(ROOT)
    assert hw is not None
    public = [r for r in rows if is_public(r, DAY)]
    return costed_table(rows_table(public), hw.costs, DAY)


@pytest.fixture(scope="module")
def bundled_market() -> pd.DataFrame:
    table = market_table_of(load_sources(ROOT), DAY)
    assert table is not None
    return table


def market(*listings: tuple[str, str, float, bool]) -> pd.DataFrame:
    """A Market table of (provider, model, output USD per million tokens, free) listings."""
    rows = [{**dict.fromkeys(MARKET_COLUMNS), "provider": p, "model": m, "input_usd_per_mtok": 0.1,
             "output_usd_per_mtok": out, "free": free, "source": f"{p} prices",
             "source_url": f"https://example.org/{p}"} for p, m, out, free in listings]
    return pd.DataFrame(rows, columns=list(MARKET_COLUMNS))


LLAMA2 = market(("alpha", "meta-llama/Llama-2-70b-chat-hf", 2.00, False),
                ("beta", "meta-llama/llama-2-70b-chat", 0.50, False),
                ("gamma", "llama2-70b-4096", 0.90, False),
                ("delta", "llama2:70b", 0.0, True),  # free: not counted
                ("epsilon", "meta/llama-2-70b-chat", math.nan, False),  # no output price
                ("zeta", "deepseek-ai/DeepSeek-R1-Distill-Llama-70B", 0.10, False))


def row(table: pd.DataFrame, model: str, scenario: str, accelerator: str,
        basis: str) -> pd.Series:
    found = table[(table["mlperf_model"] == model) & (table["scenario"] == scenario)
                  & (table["accelerator"] == accelerator) & (table["cost_basis"] == basis)]
    assert len(found) == 1
    return found.iloc[0]


def test_one_real_result_on_one_cost_basis_by_hand(costed: pd.DataFrame) -> None:
    # MLPerf Inference v5.1, closed division, llama2-70b at the 99 % target, Offline: the best
    # B200 system is 5.1-0061, Lenovo ThinkSystem SR680a V3 with 8 B200-SXM-180GB (102,909
    # tokens/s; NVIDIA's DGX B200, 5.1-0069, made 101,527). Cost basis: InferenceX's owner TCO
    # of a B200 at a hyperscaler, $1.95 per GPU-hour (sources/hardware/costs.yaml).
    results = json.loads((ROOT / "sources/benchmarks/mlperf-inference/v5.1/"
                          "summary_results.json").read_text())
    [source] = [r for r in results if (r["ID"], r["Model"], r["Scenario"])
                == ("5.1-0061", "llama2-70b-99", "Offline")]
    assert (source["Performance_Result"], source["a#"]) == (102909.0, 8)
    per_accelerator = 102909.0 / 8                        # 12,863.625 tokens/s per GPU
    tokens_per_hour = per_accelerator * 3600              # 46,309,050 tokens per GPU-hour
    usd_per_mtok = 1.95 / (tokens_per_hour / 1e6)         # $0.042109 per million tokens
    # Market by hand: three priced listings of Llama 2 70B; the cheapest is $0.50, the median
    # of (0.50, 0.90, 2.00) is $0.90.
    got = row(cost_to_serve(costed, LLAMA2), "llama2-70b", "Offline", "B200",
              "owner_tco/hyperscaler")
    assert (got["result_id"], got["round"], got["accuracy_target"], got["accelerator_count"]) == (
        "5.1-0061", "v5.1", "99", 8)
    assert got["tokens_per_s_per_accelerator"] == pytest.approx(per_accelerator)
    assert got["usd_per_accelerator_hour"] == pytest.approx(1.95)
    assert got["hardware_usd_per_mtok"] == pytest.approx(usd_per_mtok)
    assert got["hardware_usd_per_mtok"] == pytest.approx(0.0421088, rel=1e-5)
    assert (got["listings"], got["cheapest_provider"], got["cheapest_model"]) == (
        3, "beta", "meta-llama/llama-2-70b-chat")
    assert got["cheapest_output_usd_per_mtok"] == 0.50
    assert got["median_output_usd_per_mtok"] == 0.90
    assert got["cheapest_ratio"] == pytest.approx(0.50 / usd_per_mtok)   # 11.87
    assert got["median_ratio"] == pytest.approx(0.90 / usd_per_mtok)     # 21.37
    assert got["cheapest_source_url"] == "https://example.org/beta"


def test_offline_and_server_are_kept_apart(costed: pd.DataFrame) -> None:
    table = cost_to_serve(costed, LLAMA2)
    assert set(table["scenario"]) == {"Offline", "Server"}
    server = row(table, "llama2-70b", "Server", "B200", "owner_tco/hyperscaler")
    # The best B200 Server run is Nebius' 5.1-0073, 101,611 tokens/s on 8 GPUs.
    assert server["result_id"] == "5.1-0073"
    assert server["hardware_usd_per_mtok"] == pytest.approx(1.95 / (101611 / 8 * 3600 / 1e6))
    # Every row's result is one of its own scenario at the base target in the closed division.
    runs = costed.set_index(["citation_id", "model", "scenario", "accuracy_target", "division"])
    for r in table.itertuples():
        assert (r.result_id, r.mlperf_model, r.scenario, "99", "closed") in runs.index


def test_a_model_without_a_priced_listing_gives_no_rows(costed: pd.DataFrame) -> None:
    table = cost_to_serve(costed, LLAMA2)
    assert set(table["mlperf_model"]) == {"llama2-70b"}
    only_free = market(("delta", "llama2:70b", 0.0, True),
                       ("epsilon", "meta/llama-2-70b-chat", math.nan, False))
    assert cost_to_serve(costed, only_free).empty


def test_the_placeholder_flag_is_carried(costed: pd.DataFrame) -> None:
    # The bundled GB300 costs are the source's estimates (1.2x GB200); B200's are not.
    table = cost_to_serve(costed, market(("alpha", "deepseek-ai/DeepSeek-R1", 2.19, False)))
    gb300 = table[table["accelerator"] == "GB300"]
    assert len(gb300) == 6 and gb300["cost_placeholder"].all()
    assert not table.loc[table["accelerator"] == "B200", "cost_placeholder"].any()


def test_the_newest_round_alone_is_compared() -> None:
    hw, rows, _ = load_hardware(ROOT)
    assert hw is not None
    [base] = [r for r in rows if (r.citation_id, r.model, r.accuracy_target, r.scenario)
              == ("5.1-0061", "llama2-70b", "99", "Offline")]
    later = replace(base, round="v6.1", published=dt.date(2026, 4, 1), result_id="6.1-0001",
                    citation_id="6.1-0001", value=base.value * 2,
                    value_per_accelerator=base.value_per_accelerator * 2)
    costed = costed_table(rows_table([*rows, later]), hw.costs, DAY)
    table = cost_to_serve(costed, LLAMA2)
    offline = table[table["scenario"] == "Offline"]
    assert set(offline["result_id"]) == {"6.1-0001"} and set(offline["round"]) == {"v6.1"}
    assert len(offline) == 3  # B200 on its three bases; no v5.1 result beside it
    assert set(table.loc[table["scenario"] == "Server", "round"]) == {"v5.1"}


def test_a_result_without_a_finite_cost_is_left_out(costed: pd.DataFrame) -> None:
    broken = costed.copy()
    best = ((broken["citation_id"] == "5.1-0061") & (broken["model"] == "llama2-70b")
            & (broken["scenario"] == "Offline") & (broken["accuracy_target"] == "99")
            & (broken["cost_basis"] == "owner_tco/hyperscaler"))
    broken.loc[best, "usd_per_mtok"] = math.inf
    got = row(cost_to_serve(broken, LLAMA2), "llama2-70b", "Offline", "B200",
              "owner_tco/hyperscaler")
    assert got["result_id"] == "5.1-0060"  # the next best B200, NVIDIA's DGX B200


def test_an_empty_input_gives_the_columns(costed: pd.DataFrame) -> None:
    for table in (cost_to_serve(pd.DataFrame(), LLAMA2), cost_to_serve(costed.iloc[:0], LLAMA2),
                  cost_to_serve(costed, market())):
        assert table.empty and list(table.columns) == list(COLUMNS)


def test_the_bundled_sources_give_finite_sorted_rows(costed: pd.DataFrame,
                                                     bundled_market: pd.DataFrame) -> None:
    table = cost_to_serve(costed, bundled_market)
    assert list(table.columns) == list(COLUMNS)
    assert set(table["mlperf_model"]) == set(MLPERF_MODELS)
    assert set(table["accuracy_target"]) == {"99"}  # llama2-70b's 99.9 target is left out
    numbers = table.select_dtypes("number")
    assert numbers.map(math.isfinite).all().all()
    assert (table["hardware_usd_per_mtok"] > 0).all() and (table["listings"] > 0).all()
    order = table.sort_values(["mlperf_model", "scenario", "hardware_usd_per_mtok"],
                              kind="stable")
    assert order.index.tolist() == table.index.tolist()


SIZES = {"llama2-70b": "70b", "llama3.1-405b": "405b", "llama3.1-8b": "8b",
         "mixtral-8x7b": "8x7b"}
OTHER_MODELS = ("distill", "fp8", "int8", "0528", "hermes", "dolphin", "qwen", "8x22b",
                "lumimaid", "snowflake-llama")
"""Words of ids that name another model than an MLPerf one: a distillation, a quantization,
R1's later release, other makers' fine-tunes, the other Mixtral."""


def assert_only_the_model(model: str, matched: set[str]) -> None:
    assert matched, model
    for i in matched:
        assert not any(w in i.casefold() for w in OTHER_MODELS), (model, i)
        assert SIZES.get(model, "") in i.casefold(), (model, i)


def test_no_bundled_listing_of_another_model_matches(bundled_market: pd.DataFrame) -> None:
    ids = set(bundled_market["model"])
    for model in MLPERF_MODELS:
        assert_only_the_model(model, {i for i in ids if mlperf_matches(model, i)})


def test_the_rule_on_every_id_of_the_litellm_map(real_data: Path) -> None:
    ids = json.loads((real_data / "litellm" / "model_prices_and_context_window.json").read_text())
    matched = {m: {i for i in ids if mlperf_matches(m, i)} for m in MLPERF_MODELS}
    for model, found in matched.items():
        assert_only_the_model(model, found)
    # Hosts' spellings the rule is there for, as the map writes them.
    assert {"lambda_ai/deepseek-r1-671b", "us.deepseek.r1-v1:0",
            "fireworks_ai/accounts/fireworks/models/deepseek-r1-basic"} <= matched["deepseek-r1"]
    assert "databricks/databricks-meta-llama-3-1-405b-instruct" in matched["llama3.1-405b"]
    assert {"groq/llama-3.1-8b-instant", "cerebras/llama3.1-8b"} <= matched["llama3.1-8b"]
    assert {"mistral/open-mixtral-8x7b",
            "bedrock/us-east-1/mistral.mixtral-8x7b-instruct-v0:1"} <= matched["mixtral-8x7b"]
    assert "sagemaker/meta-textgeneration-llama-2-70b-b-f" not in matched["llama2-70b"]
