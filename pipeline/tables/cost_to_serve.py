"""Pure: the hardware cost of a million output tokens of a model, from MLPerf results and the
hourly cost of their accelerators, beside the prices the market sells that model at (issue 41):
one row per model, scenario, accelerator and cost basis.

The hardware side is the costed MLPerf table (tables/hardware_costs.py): a result's tokens per
second per accelerator and the hourly cost of a basis give USD per million tokens. MLPerf's LLM
throughput counts generated tokens, so the market side is each listing's **output** price, not a
blend with input. The hardware figure is a lower bound: the accelerator at full load on the
benchmark's own workload, whose prompts it processes too (the market bills those as input,
which this leaves out), with nothing of the operator's other costs (power beyond what the basis
includes, staff, margin, idle capacity). A ratio of 10 says the cheapest listing charges ten
times that floor, not that it earns a tenfold margin; and since each benchmark has its own
prompt and answer lengths, ratios compare accelerators and bases of one model, not models.

No files, no clock: the caller restricts the costed table to the results public on its date and
hands in the Market's table of the same date.
"""

from __future__ import annotations

import functools
import math
import re

import pandas as pd

from pipeline.formats.mlperf import SUITE
from pipeline.normalize.model_identity import QUANTIZED, model_identity
from pipeline.tables.hardware import TOKEN_UNITS
from pipeline.tables.hardware_costs import best_per_group

COLUMNS = ("mlperf_model", "scenario", "round", "accuracy_target", "accelerator",
           "accelerator_count", "result_id", "details_url", "tokens_per_s_per_accelerator",
           "cost_basis", "cost_basis_label", "cost_placeholder", "usd_per_accelerator_hour",
           "cost_source", "cost_source_url", "hardware_usd_per_mtok", "listings",
           "cheapest_output_usd_per_mtok", "cheapest_provider", "cheapest_model",
           "cheapest_source_url", "median_output_usd_per_mtok", "cheapest_ratio", "median_ratio")
"""The columns of the table, in order. `mlperf_model` is MLPerf's name of the benchmark model
(`llama2-70b`); `round` and `accuracy_target` (percent of the reference model's accuracy, `99`)
name the comparison the result comes from; `accelerator_count` is the system's accelerators,
`result_id` MLPerf's id of the result (`5.1-0061`) and `details_url` its published files.
`tokens_per_s_per_accelerator`: generated tokens per second, the system's throughput divided by
its accelerators; `usd_per_accelerator_hour`: the basis' cost of one accelerator for an hour, in
USD; `cost_placeholder`: that cost is the source's estimate, not a measured figure;
`hardware_usd_per_mtok`: USD per million output tokens at full load (the hourly cost over the
tokens one accelerator makes in an hour, in millions). `listings`: the matched market listings
(one per provider and model id) with a non-zero output price; the `cheapest_*` columns describe
the one with the lowest output price (USD per million output tokens, ties to the provider and
id first in alphabetical order); `median_output_usd_per_mtok`: the median over all of them;
`cheapest_ratio` and `median_ratio`: those prices over `hardware_usd_per_mtok`, plain numbers."""

SCENARIOS = ("Offline", "Server")
"""Kept apart: Offline is throughput with no latency bound, Server holds each request to a
time-to-first-token and per-token bound, so the two are different loads, not two samples of
one."""

# Mistral's release tag (`mixtral-8x7b-instruct-v0.1`): MLPerf names the model without it.
_RELEASE_TAG = re.compile(r"-v0-\d+$")


@functools.lru_cache(maxsize=65_536)  # the Market repeats ids across providers
def mlperf_key(model: str) -> str:
    """Return the key an MLPerf model name and a market id are compared by (mlperf_matches says
    the rule)."""
    key, variant = model_identity(model)
    quantized = [word for word in variant if word in QUANTIZED]
    return "-".join([_RELEASE_TAG.sub("", key), *quantized])


def mlperf_matches(mlperf_model: str, market_model: str) -> bool:
    """Does a market listing's model id name the model an MLPerf benchmark runs?

    The rule: both names go to one key and equal keys match. The key is the model's identity
    key (normalize/model_identity.py: the canonical id without the region's, host's and maker's
    prefixes, `us.`, `meta-`, `meta.`, `databricks-`, Mistral's `open-`; without the words that
    leave the weights' shape alone, `-instruct`, `-chat`, `-hf`, a host's serving tier such as
    `-turbo`, `-basic` or `-instant`, a power-of-two context length such as `-4096`; versions
    spelt one way, `llama3.1`, `llama-3-1`, `llama-v3p1`), with a precision below 16 bits put
    back (`-fp8`, `-int8`: the same weights quantized cost less to serve) and without Mistral's
    `-v0.1` release tag. So `llama3.1-405b` matches
    `meta-llama/Meta-Llama-3.1-405B-Instruct-Turbo`, and `llama2-70b` matches
    `meta-llama/Llama-2-70b-chat-hf` and `meta.llama2-70b-chat-v1`. A base model and its chat
    tuning are one model here: the same shape served at the same cost. Other sizes, other
    releases (`deepseek-r1-0528`), distillations, fine-tunes of other makers
    (`hermes-3-llama-3.1-405b`, `snowflake-llama-3.1-405b`) and quantized ids (`-fp8`, `-int8`)
    keep keys of their own. One exception, by name: `deepseek-r1-671b` is DeepSeek-R1, which
    comes in no other size."""
    return mlperf_key(mlperf_model) == mlperf_key(market_model)


def priced_listings(mlperf_model: str, market: pd.DataFrame,
                    keys: pd.Series | None = None) -> pd.DataFrame:
    """Return the rows of `market` (tables/market.py COLUMNS) whose model matches `mlperf_model`
    and that sell output tokens at a price: not free, with a finite output price above zero;
    cheapest first (ties by provider, then model id). `keys`: mlperf_key of each row's model,
    when the caller has them (one pass over 6,000 rows instead of one per MLPerf model)."""
    if market.empty:
        return market
    key = mlperf_key(mlperf_model)
    keys = market["model"].map(mlperf_key) if keys is None else keys
    price = pd.to_numeric(market["output_usd_per_mtok"], errors="coerce")
    priced = (keys == key) & ~market["free"].astype(bool)
    priced &= price.map(lambda p: math.isfinite(p) and p > 0)
    return market[priced].sort_values(["output_usd_per_mtok", "provider", "model"])


def comparable_results(costed: pd.DataFrame, mlperf_model: str, scenario: str) -> pd.DataFrame:
    """Return each accelerator's best result per cost basis (best_per_group: the most tokens per
    dollar, so the least USD per million tokens) in the one comparison chosen for a model and
    scenario: MLPerf Inference, closed division, the newest round (by publication date) that
    has a costed headline result, and in it the base accuracy target, the lowest: 99 % where the
    round also has 99.9 %, the stricter target being a benchmark of its own. Only results with
    a finite throughput and cost above zero count."""
    rows = costed[(costed["suite"] == SUITE) & (costed["units"] == TOKEN_UNITS)
                  & (costed["division"] == "closed") & (costed["model"] == mlperf_model)
                  & (costed["scenario"] == scenario) & costed["headline"]]
    rows = rows[_finite_positive(rows["value_per_accelerator"])
                & _finite_positive(rows["usd_per_accelerator_hour"])
                & _finite_positive(rows["usd_per_mtok"])]
    if rows.empty:
        return rows
    newest = rows.sort_values(["published_day", "round"], na_position="first").iloc[-1]["round"]
    rows = rows[rows["round"] == newest]
    base = min(set(rows["accuracy_target"]), key=_target_order)
    rows = rows[rows["accuracy_target"] == base]
    best = best_per_group(rows)
    return pd.concat(best.values()) if best else rows.iloc[:0]


def cost_to_serve(costed: pd.DataFrame, market: pd.DataFrame) -> pd.DataFrame:
    """Return the table of COLUMNS: for each MLPerf model with token throughput in `costed` (a
    costed_table of the results public on the caller's date) that `market` (the Market's table
    of that date) sells at an output price, one row per scenario of SCENARIOS, accelerator and
    cost basis (comparable_results), with the cheapest and median matched output price beside
    the hardware cost and their ratios to it. Sorted by model, scenario and hardware cost; no
    row with a missing or non-finite number; an empty table of COLUMNS when nothing qualifies.

    The comparison is of output prices to the cost of generated tokens; the hardware cost is a
    floor at full load on the benchmark's workload, without the operator's other costs (the
    module says more)."""
    if costed.empty or market.empty:
        return pd.DataFrame(columns=list(COLUMNS))
    models = sorted(set(costed.loc[(costed["suite"] == SUITE)
                                   & (costed["units"] == TOKEN_UNITS), "model"]))
    out = []
    names = market["model"].unique()
    keys = market["model"].map(dict(zip(names, map(mlperf_key, names), strict=True)))
    for model in models:
        listings = priced_listings(model, market, keys)
        if listings.empty:
            continue
        prices = listings["output_usd_per_mtok"].astype(float)
        cheapest, median = listings.iloc[0], float(prices.median())
        for scenario in SCENARIOS:
            for _, r in comparable_results(costed, model, scenario).iterrows():
                hardware = float(r["usd_per_mtok"])
                out.append({
                    "mlperf_model": model, "scenario": scenario, "round": r["round"],
                    "accuracy_target": r["accuracy_target"], "accelerator": r["accelerator"],
                    "accelerator_count": int(r["accelerator_count"]),
                    "result_id": r["citation_id"], "details_url": r["details_url"],
                    "tokens_per_s_per_accelerator": float(r["value_per_accelerator"]),
                    "cost_basis": r["cost_basis"], "cost_basis_label": r["cost_basis_label"],
                    "cost_placeholder": bool(r["cost_placeholder"]),
                    "usd_per_accelerator_hour": float(r["usd_per_accelerator_hour"]),
                    "cost_source": r["cost_source"], "cost_source_url": r["cost_source_url"],
                    "hardware_usd_per_mtok": hardware, "listings": len(listings),
                    "cheapest_output_usd_per_mtok": float(cheapest["output_usd_per_mtok"]),
                    "cheapest_provider": cheapest["provider"],
                    "cheapest_model": cheapest["model"],
                    "cheapest_source_url": cheapest["source_url"],
                    "median_output_usd_per_mtok": median,
                    "cheapest_ratio": float(cheapest["output_usd_per_mtok"]) / hardware,
                    "median_ratio": median / hardware,
                })
    table = pd.DataFrame(out, columns=list(COLUMNS))
    return table.sort_values(["mlperf_model", "scenario", "hardware_usd_per_mtok", "accelerator",
                              "cost_basis"], ignore_index=True)


def _finite_positive(values: pd.Series) -> pd.Series:
    number = pd.to_numeric(values, errors="coerce")
    return number.map(lambda v: math.isfinite(v) and v > 0).astype(bool)


def _target_order(target: str) -> tuple[float, str]:
    """Order accuracy targets by their number, one not stated (`""`) last."""
    try:
        return float(target), target
    except ValueError:
        return math.inf, target
