"""Issue 49, point 4: one model, one page. The identity rule (normalize/model_identity.py) on real
ids from the bundled catalogues' histories: serving variants of one model's weights group
together, other sizes, distillations, fine-tunes and dated releases do not; and a model page's
listings with their first-seen dates and a chart wherever they hold two dated prices."""

from __future__ import annotations

import pandas as pd
import pytest

from pipeline.compose.model_groups import PRICE_COLUMNS, model_groups
from pipeline.normalize.model_identity import identity_key, model_identity, variant_text
from pipeline.tables.catalogue_history import COLUMNS

TOGETHER = [  # each list: ids of the bundled histories that name one model
    ["meta-llama/Llama-3.3-70B-Instruct", "Llama-3.3-70B-Instruct", "Meta-Llama-3.3-70B-Instruct",
     "Meta-Llama-3_3-70B-Instruct", "meta-llama/Meta-Llama-3.3-70B-Instruct-Turbo",
     "llama-v3p3-70b-instruct", "accounts/fireworks/models/llama-v3p3-70b-instruct",
     "meta.llama3-3-70b-instruct-v1:0", "us.meta.llama3-3-70b-instruct-v1:0",
     "llama-3.3-70b-versatile", "llama3.3-70b-instruct-fp8", "llama-3.3-70b-specdec",
     "@cf/meta/llama-3.3-70b-instruct-fp8-fast", "cortecs/Llama-3.3-70B-Instruct-FP8-Dynamic",
     "databricks-meta-llama-3-3-70b-instruct", "meta/llama-3.3-70b-instruct-maas",
     "meta-llama/llama-3.3-70b-instruct:free", "TEE/llama3-3-70b", "meta/llama-3.3-70b"],
    ["deepseek-ai/DeepSeek-R1", "deepseek.r1-v1:0", "us.deepseek.r1-v1:0",
     "accounts/fireworks/models/deepseek-r1-basic", "deepseek-r1-671b"],
    ["deepseek-ai/DeepSeek-R1-0528", "deepseek-r1-0528-turbo"],
    ["meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b-instant", "llama-v3p1-8b-instruct",
     "meta-llama/llama-3.1-8b-instruct-bf16", "@cf/meta/llama-3.1-8b-instruct-fp8",
     "Meta-Llama-3.1-8B-Instruct-Turbo"],
    ["Qwen/Qwen2.5-72B-Instruct", "accounts/fireworks/models/qwen2p5-72b-instruct",
     "qwen-2.5-72b-instruct"],
    ["mistralai/Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b-instruct-v0.1"],
    ["open-mixtral-8x7b", "mixtral-8x7b-32768", "mistral.mixtral-8x7b-instruct"],
    ["google/gemma-3-27b-it", "gemma-3-27b-it", "gemma-3-27b"],
    ["anthropic.claude-3-5-sonnet-20240620-v1:0", "claude-3-5-sonnet-20240620",
     "eu.anthropic.claude-3-5-sonnet-20240620-v1:0"],
    ["amazon.nova-pro-v1:0", "amazon/nova-pro-v1", "us.amazon.nova-pro-v1:0"],
    ["openai/gpt-oss-120b", "gpt-oss:120b-cloud", "openai.gpt-oss-120b-1:0"],
    ["anthropic/claude-opus-4.6", "anthropic/claude-opus-4.6:thinking", "claude-opus-4-6"],
    ["glm-4.5", "zai-org/GLM-4.5-FP8", "accounts/fireworks/models/glm-4p5"],
]
APART = [  # pairs that must not share a page
    ("meta-llama/Llama-3.3-70B-Instruct", "deepseek-ai/DeepSeek-R1-Distill-Llama-70B"),
    ("meta-llama/Llama-3.3-70B-Instruct", "deepseek-llama3.3-70b"),  # a distillation
    ("meta-llama/Llama-3.3-70B-Instruct", "huihui-ai/Llama-3.3-70B-Instruct-abliterated"),
    ("meta-llama/Llama-3.3-70B-Instruct", "snowflake-llama-3.3-70b"),  # Snowflake's own
    ("meta-llama/Llama-3.3-70B-Instruct", "shisa-ai/shisa-v2-llama3.3-70b"),  # a fine-tune
    ("meta-llama/Llama-3.3-70B-Instruct", "meta-llama/Llama-3.1-70B-Instruct"),  # a release
    ("meta-llama/Llama-3.1-70B-Instruct", "meta-llama/Llama-3.1-8B-Instruct"),  # sizes
    ("meta-llama/Llama-3.1-70B-Instruct", "meta-llama/Llama-3.1-405B-Instruct"),
    ("Qwen/Qwen2.5-72B-Instruct", "Qwen/Qwen2.5-7B-Instruct"),
    ("deepseek-ai/DeepSeek-R1", "deepseek-ai/DeepSeek-R1-0528"),  # dated revisions
    ("deepseek-ai/DeepSeek-R1", "deepseek-r1-distill-llama-70b"),
    ("deepseek-ai/DeepSeek-R1", "deepseek-r1-0528-qwen3-8b"),
    ("claude-3-5-sonnet-20240620", "claude-3-5-sonnet-20241022"),
    ("mistralai/Mistral-7B-Instruct-v0.1", "mistralai/Mistral-7B-Instruct-v0.3"),
    ("mixtral-8x7b", "mixtral-8x22b"),  # another family member
    ("gpt-4", "gpt-4-turbo"),  # the word names a model of its own there
    ("gpt-3.5-turbo", "gpt-3.5"),
    ("grok-4", "grok-4-fast"),
    ("gpt-5", "gpt-5-chat"),
    ("deepseek-chat", "deepseek"),
    ("gemini-2.0-flash", "gemini-2.0-flash-lite"),
    ("deepseek-coder-v2-instruct", "deepseek-coder-v2-lite-instruct"),
    ("kimi-k2-thinking", "kimi-k2"),  # `-thinking` in an id names a model; `:thinking` a mode
    ("ernie-x1-32k", "ernie-x1-turbo-32k"),
    ("qwen3-235b-a22b-instruct-2507", "qwen3-235b-a22b-thinking-2507"),
]


@pytest.mark.parametrize("ids", TOGETHER, ids=lambda ids: ids[0])
def test_serving_variants_of_one_models_weights_share_its_key(ids: list[str]) -> None:
    assert len({identity_key(i) for i in ids}) == 1, {i: identity_key(i) for i in ids}


@pytest.mark.parametrize(("one", "other"), APART)
def test_other_weights_keep_keys_of_their_own(one: str, other: str) -> None:
    assert identity_key(one) != identity_key(other)


@pytest.mark.parametrize(("model", "key", "variant"), [
    ("meta-llama/Llama-3.3-70B-Instruct", "llama-3-3-70b", ""),
    ("@cf/meta/llama-3.3-70b-instruct-fp8-fast", "llama-3-3-70b", "fp8, fast"),
    ("cortecs/Llama-3.3-70B-Instruct-FP8-Dynamic", "llama-3-3-70b", "fp8, dynamic"),
    ("meta-llama/Llama-3.3-70B-Instruct-Turbo-Free", "llama-3-3-70b", "turbo, free"),
    ("meta-llama/llama-3.3-70b-instruct:free", "llama-3-3-70b", "free"),
    ("llama-3.3-70b-versatile", "llama-3-3-70b", "versatile"),
    ("anthropic/claude-opus-4.6:thinking", "claude-opus-4-6", "thinking"),
    ("meta-llama/Llama-2-70b-chat-hf", "llama-2-70b", "chat"),
    ("llama2-70b-4096", "llama-2-70b", "4096"),
    ("deepseek.v3.2", "deepseek-v3-2", ""),
    ("ft:gpt-4o-mini", "ft-gpt-4o-mini", ""),  # a fine-tune stays apart
])
def test_the_key_and_the_variant_said(model: str, key: str, variant: str) -> None:
    assert (identity_key(model), variant_text(model)) == (key, variant)
    assert model_identity(model).key == key


def _history(rows: list[tuple[str, str, str, float, str, str]]) -> pd.DataFrame:
    """(provider, model, meter, usd, first_seen, gone_seen) → a history at base prices."""
    out = []
    for provider, model, meter, usd, first, gone in rows:
        row = dict.fromkeys(COLUMNS, "")
        row.update(provider=provider, catalogue_provider=provider, model=model, meter=meter,
                   context_above_tokens="0", mode="realtime", usd_per_mtok=usd,
                   first_seen=first, gone_seen=gone)
        out.append(row)
    return pd.DataFrame(out, columns=COLUMNS)


def _table(listings: list[tuple[str, str, float]]) -> pd.DataFrame:
    """(provider, model, output USD) → Market rows from the catalogue `cat`."""
    rows = []
    for provider, model, output in listings:
        row = dict.fromkeys(PRICE_COLUMNS, None)
        row.update(provider=provider, model=model, input_usd_per_mtok=output / 4,
                   output_usd_per_mtok=output, context_window_tokens=131072, free=False,
                   currency="USD", source="cat", source_url="https://example.com",
                   last_change="2026-03-01")
        rows.append(row)
    return pd.DataFrame(rows)


def _groups(listings: list[tuple[str, str, float]], history: pd.DataFrame):
    table = _table(listings)
    blends = pd.DataFrame({"chat_usd_per_mtok": table["output_usd_per_mtok"]})
    return {g.slug: g for g in model_groups(table, blends, [f"m-{i}" for i in range(len(table))],
                                            {"cat": history}, {}, None, "2026-06-01T00:00Z")}


def test_a_page_groups_variants_says_each_and_when_each_was_first_seen() -> None:
    history = _history([
        ("groq", "llama-3.3-70b-versatile", "output", 0.79, "2025-07-01T10:00Z", ""),
        ("groq", "llama-3.3-70b-versatile", "input", 0.59, "2025-06-20T10:00Z", ""),
        ("together", "meta-llama/Llama-3.3-70B-Instruct-Turbo", "output", 0.88,
         "2025-09-02T08:30Z", ""),
    ])
    groups = _groups([("groq", "llama-3.3-70b-versatile", 0.79),
                      ("together", "meta-llama/Llama-3.3-70B-Instruct-Turbo", 0.88),
                      ("lambda", "deepseek-llama3.3-70b", 0.6)], history)
    assert set(groups) == {"llama-3-3-70b", "deepseek-llama-3-3-70b"}
    page = groups["llama-3-3-70b"]
    assert [(i.provider, i.variant, i.first_seen) for i in page.listings] == [
        ("groq", "versatile", "2025-06-20"), ("together", "turbo", "2025-09-02")]
    assert page.flat_since == "2025-06-20"
    # Two dated output prices, one a listing: a chart, each price held to the end as a step.
    assert page.paths is not None
    assert [label for label, _ in page.paths.lines] == ["groq (versatile)", "together (turbo)"]
    assert page.paths.end.isoformat() == "2026-06-01T00:00:00+00:00"
    # One listing, no dated price: nothing to chart.
    assert groups["deepseek-llama-3-3-70b"].paths is None
    assert groups["deepseek-llama-3-3-70b"].listings[0].first_seen == ""


def test_one_dated_price_is_no_chart_and_a_move_or_a_gap_is_a_step() -> None:
    one = _groups([("groq", "llama-3.1-8b-instant", 0.08)],
                  _history([("groq", "llama-3.1-8b-instant", "output", 0.08,
                             "2025-07-01T10:00Z", "")]))
    assert one["llama-3-1-8b"].paths is None
    moved = _groups([("groq", "llama-3.1-8b-instant", 0.05)], _history([
        ("groq", "llama-3.1-8b-instant", "output", 0.08, "2025-07-01T10:00Z",
         "2025-09-01T00:00Z"),
        ("groq", "llama-3.1-8b-instant", "output", 0.05, "2025-10-01T00:00Z", ""),
        # gone after the end shown: still in force on the chart
        ("groq", "llama-3.1-8b-instant", "input", 0.05, "2025-07-01T10:00Z", "")]))
    (label, points), = moved["llama-3-1-8b"].paths.lines
    assert label == "groq (instant)"
    assert [(at.date().isoformat(), usd if usd == usd else None) for at, usd in points] == [
        ("2025-07-01", 0.08), ("2025-09-01", None), ("2025-10-01", 0.05)]
