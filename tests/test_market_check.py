"""`brief check` holds the editors' price files to the market (load/market_check.py): a curated
price more than 20× from the catalogues' prices of the same model is an error naming the file,
line and field, with the catalogue figure and its date."""

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
        "price ($0.60 per Mtok, the median of 18 providers in LiteLLM model price map, "
        "genai-prices, models.dev, seen 2026-07-24); check the list's unit (per_1m_tokens) for a slip, or "
        "set `outlier_is_real: true` on this record once checked at its source",
        "::error file=sources/prices/acme.yaml,line=13,title=lists.0.records.0.prices.1.price::"
        "zai-org/GLM-4.5 output: 1,600.00 EUR per Mtok (≈ $1,837.60) is ×840 above the "
        "catalogues' price ($2.20 per Mtok, the median of 18 providers in LiteLLM model price "
        "map, genai-prices, models.dev, seen 2026-07-24); check the list's unit (per_1m_tokens) for a slip, "
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
    assert lines[0] == (
        "::error file=sources/prices/openai.yaml,line=16,title=lists.0.records.0.prices.0.price::"
        "gpt-5.4 input: $2,500.00 per Mtok is ×1,000 above the catalogues' price ($2.50 per "
        "Mtok, the median of 22 providers in LiteLLM model price map, genai-prices, models.dev, "
        "seen 2026-07-24); check the list's unit (per_1k_tokens) for a slip, or set "
        "`outlier_is_real: true` on this record once checked at its source")
    assert lines[-1] == f"{len(lines) - 1} problem(s) found."
    assert all("above the catalogues' price" in line for line in lines[:-1])


def test_the_bundled_prices_agree_with_the_market():
    assert check(REPO, "--strict") == (0, ["0 problems; 35 entries checked."])
