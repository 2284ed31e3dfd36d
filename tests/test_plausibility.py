"""Implausible catalogue listings: one model identity across providers, the median of the
other providers, the ceiling per mode, a whole map in another unit, the listings billed
otherwise than per token (tables/plausibility.py, normalize/model_identity.py,
normalize/model_ids.py)."""

from __future__ import annotations

import datetime as dt
import json

import pandas as pd
import pytest
from conftest import REPO

from pipeline.formats.price_map import ImportedPrice
from pipeline.load.price_histories import load_histories
from pipeline.models.catalogues import CataloguesFile
from pipeline.normalize.model_ids import canonical_model, model_mode
from pipeline.tables.catalogue_history import COLUMNS, snapshot_table
from pipeline.tables.plausibility import (
    others_median,
    plausible_histories,
    reference_prices,
)
from pipeline.tables.snapshot_checks import whole_map_problem


def history(*rows: tuple[str, str, str, float], gone: str = "") -> pd.DataFrame:
    """A catalogue history of open base prices: (provider, model, meter, USD per Mtok)."""
    return pd.DataFrame(
        [{"provider": p, "catalogue_provider": p, "model": m, "meter": meter, "ttl_minutes": "",
          "context_above_tokens": "0", "mode": "realtime", "window_utc": "", "from_date": "",
          "to_date": "", "usd_per_mtok": float(usd), "first_seen": "2026-07-24T18:23Z",
          "gone_seen": gone, "checked": "2026-07-24", "context_window_tokens": ""}
         for p, m, meter, usd in rows], columns=COLUMNS)


@pytest.mark.parametrize(("model", "canonical"), [
    ("deepseek-ai/DeepSeek-R1-0528", "deepseek-r1-0528"),
    ("accounts/fireworks/models/deepseek-r1-0528", "deepseek-r1-0528"),
    ("deepseek/deepseek-r1-0528", "deepseek-r1-0528"),
    ("vertex_ai/deepseek-ai/deepseek-r1-0528-maas", "deepseek-r1-0528"),
    ("claude-3-5-sonnet@20240620", "claude-3-5-sonnet"),
    ("anthropic.claude-3-5-sonnet-20240620-v1:0", "anthropic.claude-3-5-sonnet-20240620"),
    ("meta-llama/llama-3.3-70b-instruct:free", "llama-3.3-70b-instruct"),
    # Other models at other prices keep their own ids.
    ("deepseek-ai/DeepSeek-R1-Distill-Llama-70B", "deepseek-r1-distill-llama-70b"),
    ("gpt-4.1", "gpt-4.1"),
])
def test_canonical_model_ids(model, canonical):
    assert canonical_model(model) == canonical


def test_the_real_map_groups_deepseek_r1_0528_across_its_hosts(real_data):
    doc = json.loads((real_data / "litellm" / "model_prices_and_context_window.json").read_bytes())
    hosts = {e["litellm_provider"] for k, e in doc.items()
             if isinstance(e, dict) and e.get("mode") == "chat"
             and canonical_model(k.removeprefix(f"{e.get('litellm_provider')}/"))
             == "deepseek-r1-0528"}
    assert {"wandb", "fireworks_ai", "deepinfra", "hyperbolic", "nebius", "novita", "lambda_ai",
            "openrouter", "vertex_ai-deepseek_models"} <= hosts


def test_modes_by_the_editors_patterns():
    modes = {"image": ["*flux-*"], "embedding": ["*embed*"]}
    assert model_mode("accounts/fireworks/models/flux-1-dev", modes) == "image"
    assert model_mode("mistral/codestral-embed", modes) == "embedding"
    assert model_mode("deepseek-chat", modes) == "text"


def test_the_median_of_the_other_providers_leaves_each_one_out():
    ref = pd.DataFrame({"identity": ["m"] * 4, "meter": ["input"] * 4,
                        "provider": ["a", "b", "c", "d"], "usd_per_mtok": [1.0, 2.0, 4.0, 1000.0]})
    got = others_median(ref).set_index("provider")
    # a: median(2, 4, 1000) = 4; b: median(1, 4, 1000) = 4; c: median(1, 2, 1000) = 2;
    # d: median(1, 2, 4) = 2.
    assert got["median_usd_per_mtok"].to_dict() == {"a": 4.0, "b": 4.0, "c": 2.0, "d": 2.0}
    assert set(got["providers"]) == {3}
    two = ref.head(2)  # one other provider each: which of two is wrong is unknown
    assert others_median(two).empty


def catalogues(**extra) -> CataloguesFile:
    return CataloguesFile.model_validate({"ceilings_usd_per_mtok": {"text": 1000}, **extra})


def test_a_listing_far_from_its_models_median_is_held_whole():
    wandb = history(("wandb", "deepseek-ai/DeepSeek-R1-0528", "input", 135_000),
                    ("wandb", "deepseek-ai/DeepSeek-R1-0528", "output", 540_000),
                    ("wandb", "moonshotai/Kimi-K2.5", "input", 0.6),
                    ("fireworks", "accounts/fireworks/models/deepseek-r1-0528", "input", 3.0),
                    ("fireworks", "accounts/fireworks/models/deepseek-r1-0528", "output", 8.0),
                    ("together", "deepseek-ai/DeepSeek-R1", "input", 3.0),
                    ("nebius", "deepseek-ai/DeepSeek-R1-0528", "input", 0.8),
                    ("nebius", "deepseek-ai/DeepSeek-R1-0528", "output", 2.4),
                    ("novita", "deepseek/deepseek-r1-0528", "input", 0.7),
                    ("novita", "deepseek/deepseek-r1-0528", "output", 2.5),
                    # 32x below the median of the three others (0.8): held too.
                    ("cheap", "deepseek-r1-0528", "input", 0.025),
                    ("cheap", "deepseek-r1-0528", "output", 2.0))
    result = plausible_histories({"litellm": wandb}, catalogues())
    held = result.held
    assert sorted(set(zip(held["provider"], held["meter"], strict=True))) == [
        ("cheap", "input"), ("wandb", "input"), ("wandb", "output")]
    r1 = held[(held["provider"] == "wandb") & (held["meter"] == "input")].iloc[0]
    # The others: fireworks 3.0, nebius 0.8, novita 0.7, cheap 0.025 → median 0.75.
    assert (r1["median_usd_per_mtok"], r1["providers"]) == (0.75, 4)
    assert r1["cause"] == ("×180,000 above the median of 4 other providers; above the ceiling "
                           "of $1,000 per Mtok: a per-token field holding a per-Mtok (or "
                           "per-1k) price?")
    cheap = held[held["provider"] == "cheap"].iloc[0]
    assert cheap["cause"] == ("×32 below the median of 3 other providers: a listing far from "
                              "every other provider's; check it at its source")
    kept = result.histories["litellm"]
    assert set(kept["provider"]) == {"wandb", "fireworks", "together", "nebius", "novita"}
    assert set(kept.loc[kept["provider"] == "wandb", "model"]) == {"moonshotai/Kimi-K2.5"}

    confirmed = catalogues(confirmed_listings=[
        {"catalogue": "litellm", "provider": "cheap", "model": "deepseek-r1-0528",
         "note": "checked at cheap.example on 2026-12-05"}])
    again = plausible_histories({"litellm": wandb}, confirmed)
    assert set(again.held["provider"]) == {"wandb"}
    assert "cheap" in set(again.histories["litellm"]["provider"])


def test_a_price_above_its_ceiling_is_no_reference_for_the_others():
    # W&B's Phi-4-mini at $8,000 would make the median of two other providers $4,000 and hold
    # back both correct listings.
    h = history(("wandb", "microsoft/Phi-4-mini-instruct", "input", 8000),
                ("azure", "Phi-4-mini-instruct", "input", 0.075),
                ("openrouter", "microsoft/phi-4-mini-instruct", "input", 0.08))
    held = plausible_histories({"litellm": h}, catalogues()).held
    assert list(held["provider"]) == ["wandb"]


def test_other_modes_are_left_out():
    h = history(("fireworks", "accounts/fireworks/models/flux-1-dev", "input", 0.1),
                ("a", "glm-4.5", "input", 60), ("b", "zai-org/GLM-4.5", "input", 0.6),
                ("c", "glm-4.5", "input", 0.55))
    assert len(reference_prices({"x": h})) == 4
    result = plausible_histories({"x": h}, catalogues(modes={"image": ["*flux-*"]}, catalogues=[]))
    assert list(result.held["provider"]) == ["a"]
    assert list(result.histories["x"]["provider"]) == ["b", "c"]
    assert result.other_modes == {}  # no published catalogue is listed


def test_two_others_far_apart_make_no_median():
    # xAI's own grok-4.1-fast output at $0.50, beside ZenMux's $0.50 and OCI's $25: the mean of
    # the two others ($12.75) held the right price back as ×26 below; now OCI's alone is held.
    h = history(("xai", "grok-4.1-fast", "output", 0.5),
                ("zenmux", "x-ai/grok-4.1-fast", "output", 0.5),
                ("oci", "xai.grok-4.1-fast", "output", 25))
    held = plausible_histories({"litellm": h}, catalogues()).held
    assert list(held["provider"]) == ["oci"]
    assert held.iloc[0]["cause"] == ("×50 above the median of 2 other providers: a listing far "
                                     "from every other provider's; check it at its source")


def bundled_histories() -> tuple[dict[str, pd.DataFrame], CataloguesFile]:
    import yaml

    catalogues_file = CataloguesFile.model_validate(
        yaml.safe_load((REPO / "sources" / "catalogues.yaml").read_text()))
    histories, problems = load_histories(REPO, catalogues_file)
    assert problems == []
    return histories, catalogues_file


def test_the_bundled_oci_llama_vision_outlier_is_held_by_model_identity():
    # Issue 50: OCI's meta.llama-3.2-11b-vision-instruct at $2.00 in and out, where the other
    # hosts charge $0.015-$0.37, was shown and ranked: no other listing had its exact id.
    histories, catalogues_file = bundled_histories()
    result = plausible_histories(histories, catalogues_file)
    oci = result.held[(result.held["provider"] == "oci")
                      & (result.held["model"] == "meta.llama-3.2-11b-vision-instruct")]
    assert list(zip(oci["identity"], oci["meter"], oci["usd_per_mtok"], strict=True)) == [
        ("llama-3-2-11b-vision-instruct", "input", 2.0)]
    assert oci.iloc[0]["cause"] == ("×36 above the median of 11 other providers: a listing far "
                                    "from every other provider's; check it at its source")
    kept = result.histories["litellm"]
    assert not ((kept["provider"] == "oci")
                & (kept["model"] == "meta.llama-3.2-11b-vision-instruct")).any()


def test_listings_not_billed_per_token_are_left_out_and_counted():
    # Issue 50: SageMaker JumpStart endpoints (billed per instance hour) and OpenRouter's
    # router were listed at 0 per token and shown as free.
    h = history(("aws", "meta-textgeneration-llama-2-7b-f", "input", 0),
                ("openrouter", "openrouter/auto", "input", 0),
                ("openrouter", "meta-llama/llama-3.3-70b-instruct:free", "input", 0),
                ("azure", "model_router", "input", 0.14))
    h.loc[0, "catalogue_provider"] = "sagemaker"
    billing = {"billed per instance hour (SageMaker)": {"catalogue_providers": ["sagemaker"]},
               "routers, billed at the model they pick": {"models": ["auto", "model-router"]}}
    result = plausible_histories({"litellm": h}, catalogues(
        billing=billing, catalogues=[{"id": "litellm", "name": "LiteLLM", "url": "https://x.example/",
                                      "page": "https://x.example/", "format": "litellm",
                                      "licence": "MIT", "attribution": "x", "use": "published"}]))
    assert list(result.histories["litellm"]["model"]) == ["meta-llama/llama-3.3-70b-instruct:free"]
    assert result.other_billing == {"billed per instance hour (SageMaker)": 1,
                                    "routers, billed at the model they pick": 2}


def test_the_bundled_catalogues_leave_out_sagemaker_and_the_routers():
    histories, catalogues_file = bundled_histories()
    result = plausible_histories(histories, catalogues_file)
    assert result.other_billing == {
        "billed per instance hour (SageMaker)": 3,
        "routers, billed at the model they pick": 15,
        "on the user's own machine or a subscription (Ollama, Lemonade)": 26}
    kept = result.histories["litellm"]
    assert not kept["model"].isin(["openrouter/auto", "meta-textgeneration-llama-2-7b-f",
                                   "model_router"]).any()


def snapshot(**usd_per_mtok: float) -> pd.DataFrame:
    prices = [ImportedPrice("openai", m, "input", p) for m, p in usd_per_mtok.items()]
    return snapshot_table(prices, {}, dt.date(2026, 12, 5))


def test_a_whole_map_in_another_unit():
    models = {f"m{i}": 0.5 + i / 10 for i in range(30)}
    h = snapshot(**models).assign(first_seen="2026-12-01T00:00Z", gone_seen="")
    assert whole_map_problem(h, snapshot(**models), catalogues()) is None
    hundredfold = snapshot(**{m: p * 100 for m, p in models.items()})  # all below the ceiling
    assert whole_map_problem(h, hundredfold, catalogues()) == (
        "its prices moved ×100 up at the median against the last good snapshot (30 prices): "
        "a whole map in another unit?")
    million = snapshot(**{m: p * 1e6 for m, p in models.items()})
    assert whole_map_problem(h.head(0), million, catalogues()) == (
        "100% of its prices are above the ceiling of $1,000 per Mtok: a whole map in another "
        "unit?")
