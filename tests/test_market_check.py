"""`brief check` holds the editors' price files to the market (load/market_check.py): a curated
price more than 20× from the catalogues' prices of the same model (by model identity, however
each spells its id) is an error naming the file, line and field, with the catalogue figure, its
date and the listings it was compared with; a record whose model no catalogue lists is warned
as unmatched and held to its mode's ceiling."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner
from conftest import REPO

from pipeline.cli.main import main

NEW_FILE = """provider: acme
name: Acme Cloud
lists:
  - currency: EUR
    unit: per_1m_tokens
    records:
      - model: zai-org/GLM-4.5
        from: 2026-08-01
        source_url: https://acme.example/pricing
        checked: 2026-08-01
        prices:
          - {meter: input, price: 400}
          - {meter: output, price: 1600}
"""
"""A new provider file pricing GLM-4.5 at 1000× its market price (€0.40 meant)."""


def check(root: Path, *args: str) -> tuple[int, list[str]]:
    result = CliRunner().invoke(main, ["check", "--root", str(root), *args])
    return result.exit_code, result.output.splitlines()


def bundled(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "sources", tmp_path / "sources")
    return tmp_path


def test_a_new_provider_file_a_thousandfold_too_high(tmp_path):
    root = bundled(tmp_path)
    (root / "sources" / "prices" / "acme.yaml").write_text(NEW_FILE)
    code, lines = check(root, "--format", "github")
    assert code == 1
    assert lines == [
        "::error file=sources/prices/acme.yaml,line=12,title=lists.0.records.0.prices.0.price::"
        "zai-org/GLM-4.5 input: 400.00 EUR per Mtok (≈ $459.40) is ×770 above the catalogues' "
        "price ($0.60 per Mtok, the median of 20 providers in LiteLLM model price map, "
        "genai-prices, models.dev, seen 2026-07-24; compared with 302ai glm-4.5 $0.29, abacus "
        "zai-org/glm-4.5 $0.60, cortecs glm-4.5 $0.67, deepinfra zai-org/GLM-4.5 $0.40, "
        "fireworks accounts/fireworks/models/glm-4p5 $0.55, huggingface zai-org/GLM-4.5 $0.60 "
        "and 15 more); check the list's unit (per_1m_tokens) for a slip, or "
        "set `outlier_is_real: true` on this record once checked at its source",
        "::error file=sources/prices/acme.yaml,line=13,title=lists.0.records.0.prices.1.price::"
        "zai-org/GLM-4.5 output: 1,600.00 EUR per Mtok (≈ $1,837.60) is ×840 above the "
        "catalogues' price ($2.20 per Mtok, the median of 20 providers in LiteLLM model price "
        "map, genai-prices, models.dev, seen 2026-07-24; compared with 302ai glm-4.5 $1.14, "
        "abacus zai-org/glm-4.5 $2.20, cortecs glm-4.5 $2.46, deepinfra zai-org/GLM-4.5 $1.60, "
        "fireworks accounts/fireworks/models/glm-4p5 $2.19, huggingface zai-org/GLM-4.5 $2.20 "
        "and 15 more); check the list's unit (per_1m_tokens) for a slip, "
        "or set `outlier_is_real: true` on this record once checked at its source",
        "2 problem(s) found."]
    # The default format names the file, the line and the field.
    assert check(root)[1][0].startswith(
        "sources/prices/acme.yaml:12:1: lists.0.records.0.prices.0.price: zai-org/GLM-4.5 input: "
        "400.00 EUR per Mtok")

    # An editor who checked it at its source says so on the record.
    text = NEW_FILE.replace("        checked: 2026-08-01\n",
                            "        checked: 2026-08-01\n        outlier_is_real: true\n")
    (root / "sources" / "prices" / "acme.yaml").write_text(text)
    assert check(root) == (0, ["0 problems; 35 entries checked."])


def test_a_list_switched_to_another_unit(tmp_path):
    root = bundled(tmp_path)
    path = root / "sources" / "prices" / "openai.yaml"
    text = path.read_text()
    assert text.count("unit: per_1m_tokens") == 1
    path.write_text(text.replace("unit: per_1m_tokens", "unit: per_1k_tokens"))
    code, lines = check(root, "--format", "github")
    assert code == 1
    # The entries' claims on OpenAI's prices fail too (a thousand times the figure they
    # state); the market's judgement of the list comes first among the list's own problems.
    market = [line for line in lines[:-1] if "above the catalogues' price" in line]
    assert market[0] == (
        "::error file=sources/prices/openai.yaml,line=16,title=lists.0.records.0.prices.0.price::"
        "gpt-5.4 input: $2,500.00 per Mtok is ×1,000 above the catalogues' price ($2.50 per "
        "Mtok, the median of 26 providers in LiteLLM model price map, genai-prices, models.dev, "
        "seen 2026-07-24; compared with 302ai gpt-5.4 $2.50, abacus gpt-5.4 $2.50, aihubmix "
        "gpt-5.4 $2.50, aws openai.gpt-5.4 $2.75, azure eu/gpt-5.4 $2.75, azure gpt-5.4 $2.50 "
        "and 22 more); check the list's unit (per_1k_tokens) for a slip, or set "
        "`outlier_is_real: true` on this record once checked at its source")
    assert lines[-1] == f"{len(lines) - 1} problem(s) found."
    assert all("above the catalogues' price" in line or (
        line.startswith("::error file=sources/entries/") and ",title=claims." in line)
        for line in lines[:-1])


SLIP = """provider: acme
name: Acme Cloud
lists:
  - currency: USD
    unit: per_1m_tokens
    records:
      - model: MODEL
        from: 2026-08-01
        source_url: https://acme.example/pricing
        checked: 2026-08-01
        prices:
          - {meter: input, price: 0.05}
          - {meter: output, price: OUTPUT}
"""
"""A new provider file with an editor's slip in Llama 3.1 8B's output price (0.05 meant)."""


def test_a_slip_under_an_id_no_catalogue_spells_is_judged_by_model_identity(tmp_path):
    # Issue 50: `llama-3.1-8b` is the exact id of two catalogue listings only (LlamaGate's
    # $0.03/$0.05, Vercel's $0.05/$0.08). The curated $500 counted in the median that judged
    # them, held both back as implausible, and was then compared with nothing: 0 problems.
    # Now it is judged against every listing of the model, however spelt.
    root = bundled(tmp_path)
    path = root / "sources" / "prices" / "acme.yaml"
    path.write_text(SLIP.replace("MODEL", "llama-3.1-8b").replace("OUTPUT", "500"))
    assert check(root) == (1, [
        "sources/prices/acme.yaml:13:1: lists.0.records.0.prices.1.price: llama-3.1-8b output: "
        "$500.00 per Mtok is ×5,000 above the catalogues' price ($0.10 per Mtok, the median of "
        "39 providers in LiteLLM model price map, genai-prices, models.dev, seen 2026-07-24; "
        "compared with abacus meta-llama/Meta-Llama-3.1-8B-Instruct $0.05, avian "
        "Meta-Llama-3.1-8B-Instruct $0.10, aws meta.llama3-1-8b-instruct-v1:0 $0.22, aws "
        "us.meta.llama3-1-8b-instruct-v1:0 $0.22, azure Meta-Llama-3.1-8B-Instruct $0.61, azure "
        "meta-llama-3.1-8b-instruct $0.61 and 43 more); check the list's unit (per_1m_tokens) "
        "for a slip, or set `outlier_is_real: true` on this record once checked at its source",
        "1 problem(s) found."])


def test_a_curated_price_never_holds_back_the_catalogues_listings(tmp_path):
    from pipeline.load.sources import load_sources

    root = bundled(tmp_path)
    path = root / "sources" / "prices" / "acme.yaml"
    text = SLIP.replace("MODEL", "llama-3.1-8b").replace("OUTPUT", "500")
    path.write_text(text.replace("checked: 2026-08-01\n",
                                 "checked: 2026-08-01\n        outlier_is_real: true\n"))
    sources = load_sources(root)
    shown = set(zip(sources.price_histories["litellm"]["provider"],
                    sources.price_histories["litellm"]["model"], strict=True))
    assert {("llamagate", "llama-3.1-8b"), ("vercel-ai-gateway", "meta/llama-3.1-8b")} <= shown
    assert "llamagate" not in set(sources.held_prices["provider"])


def test_an_id_no_catalogue_lists_is_warned_and_held_to_the_ceiling(tmp_path):
    root = bundled(tmp_path)
    path = root / "sources" / "prices" / "acme.yaml"
    path.write_text(SLIP.replace("MODEL", "acme-llama-8b").replace("OUTPUT", "2500"))
    assert check(root) == (1, [
        "sources/prices/acme.yaml:7:1: lists.0.records.0.model: warning: acme-llama-8b: no "
        "catalogue lists this model (identity acme-llama-8b), so its prices are held to the "
        "ceiling only; check the id against a catalogue's spelling",
        "sources/prices/acme.yaml:13:1: lists.0.records.0.prices.1.price: acme-llama-8b output: "
        "$2,500.00 per Mtok is above the ceiling of $1,000 per Mtok for text models, and no "
        "catalogue lists the model to compare it with; check the list's unit (per_1m_tokens) "
        "for a slip, or set `outlier_is_real: true` on this record once checked at its source",
        "1 problem(s) found."])
    # Below the ceiling: the warning only.
    path.write_text(SLIP.replace("MODEL", "acme-llama-8b").replace("OUTPUT", "0.08"))
    assert check(root) == (0, [
        "sources/prices/acme.yaml:7:1: lists.0.records.0.model: warning: acme-llama-8b: no "
        "catalogue lists this model (identity acme-llama-8b), so its prices are held to the "
        "ceiling only; check the id against a catalogue's spelling",
        "0 problems; 35 entries checked, 1 warning(s)."])


def test_the_bundled_prices_agree_with_the_market():
    assert check(REPO, "--strict") == (0, ["0 problems; 35 entries checked."])
