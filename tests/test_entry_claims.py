"""The price figures entries state, declared as claims and checked against the price records
(compose/claims.py; issue 50: the 11-20 entry said "more than half" of a 21 % cut)."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from click.testing import CliRunner

from pipeline.cli.main import main
from pipeline.compose.claims import claimed_per_mtok, entry_claim_problems, price_gap
from pipeline.load.yaml_lines import parse_yaml
from pipeline.models.entries import Claim
from pipeline.models.prices import DEFAULT_PROFILES, PriceFile
from pipeline.normalize.fx import table_from_eur_rates
from pipeline.problems import Problem

REPO = Path(__file__).resolve().parents[1]
ENTRIES = REPO / "sources" / "entries"

FIGURE = re.compile(r"[$¥€£]\s?\d(?:[\d,.]*\d)?|\d(?:[\d,.]*\d)?\s?(?:%|per ?cent\b|×|times\b)")
"""A price, a percentage or a multiple, as an entry's prose writes one."""

NOT_OUR_RECORDS = {
    "08-19-inferencex-blackwell-vs-hopper.yaml":
        "tokens per dollar of InferenceX's benchmark runs, not a price record",
    "08-19-inferencex-tokens-per-dollar-default.yaml": "names InferenceX's unit, tokens per $1",
    "09-12-llm-unit-prices-down.yaml": "CSDN's reported market average, not one record's",
    "09-12-tpu-efficiency.yaml": "SemiAnalysis's performance per dollar of accelerators",
    "09-12-tpuv7-ironwood-cost-per-token.yaml": "SemiAnalysis's performance per dollar",
    "09-19-litellm-off-peak-pricing.yaml": "Portkey's report of spend under-counted, not a price",
    "10-09-gpu-hour-costs.yaml": "hourly GPU costs of InferenceX's model (sources/hardware)",
    "10-16-throughput-to-tokens-per-dollar.yaml": "InferenceX's GPU-hour cost multiples",
}
"""Entries whose figures are not prices our price records hold, each with what they are: an
entry stating a price or a move of one declares it as a claim instead (CONTRIBUTING.md)."""


def bundled_entries() -> list[tuple[Path, dict]]:
    found = []
    for path in sorted(ENTRIES.rglob("*.yaml")):
        doc, _, problems = parse_yaml(path.read_bytes(), path.name)
        assert problems == []
        found.append((path, doc))
    return found


def test_every_bundled_entry_stating_a_price_figure_declares_its_claims() -> None:
    # Read straight from the files: a figure in the prose with no claim is caught here, and
    # `brief check` then compares each claim with the record it names.
    undeclared = []
    for path, doc in bundled_entries():
        figures = FIGURE.findall(f"{doc['headline']}\n{doc['summary']}")
        if figures and not doc.get("claims") and path.name not in NOT_OUR_RECORDS:
            undeclared.append(f"{path.relative_to(REPO)} states {', '.join(figures)} but declares "
                              "no claim: declare each price or move it states under `claims:` "
                              "(CONTRIBUTING.md, \"Declare the figures you state\"), or, when "
                              "the figures are not prices of sources/prices/, add the file to "
                              "NOT_OUR_RECORDS here with what they are")
    assert undeclared == [], "\n".join(undeclared)
    names = {path.name: doc for path, doc in bundled_entries()}
    stale = [f"{name}: {'no such entry' if name not in names else 'it declares claims'}"
             for name in NOT_OUR_RECORDS if name not in names or names[name].get("claims")]
    assert stale == []


SRC = {"source_url": "https://example.com/pricing", "checked": "2026-01-01"}
PEAK = [{"name": "peak", "tier": "peak", "timezone": "UTC",
         "spans": [{"start": "09:00", "end": "12:00"}]}]
# Acme's dollar list cuts m on 03-05; its yuan list has a peak window; no rate for its pounds.
ACME = PriceFile.model_validate({"provider": "acme", "name": "Acme", "lists": [
    {"currency": "USD", "records": [
        {"model": "m", "from": "2026-01-01", "to": "2026-03-05", **SRC, "prices": [
            {"meter": "input", "price": 1.0}, {"meter": "output", "price": 4.0},
            {"meter": "input", "price": 3.0, "context_above_tokens": 32000},
            {"meter": "output", "price": 2.0, "mode": "batch"}]},
        {"model": "m", "from": "2026-03-05", **SRC, "prices": [
            {"meter": "input", "price": 0.6}, {"meter": "output", "price": 3.0}]}]},
    {"currency": "CNY", "windows": PEAK, "records": [
        {"model": "m", "from": "2026-01-01", **SRC, "prices": [
            {"meter": "input", "price": 8}, {"meter": "input", "price": 16, "window": "peak"}]}]},
    {"currency": "GBP", "records": [
        {"model": "m", "from": "2026-01-01", **SRC, "prices": [{"meter": "input", "price": 1}]}]}]})
FILES = {"acme": ACME}
# 8 yuan a dollar: 0.125 USD per yuan, exact in binary.
RATES = table_from_eur_rates({"USD": {dt.date(2026, 1, 1): 1.0},
                              "CNY": {dt.date(2026, 1, 1): 8.0}})


def claim(**fields) -> Claim:
    return Claim.model_validate({"provider": "acme", "currency": "USD", "model": "m",
                                 "meter": "input", "at": "2026-03-01"} | fields)


def test_our_figure_is_the_tier_the_claim_names_or_its_profiles_blend() -> None:
    def ours(day: str = "2026-03-01", **fields) -> tuple[float, dt.date] | None:
        return claimed_per_mtok(FILES, DEFAULT_PROFILES, claim(stated_per_mtok=1, **fields),
                                dt.date.fromisoformat(day))

    start = dt.date(2026, 1, 1)
    assert ours() == (1.0, start)
    assert ours("2026-03-06") == (0.6, dt.date(2026, 3, 5))
    # The band above 32,000 tokens and the batch price; the yuan list's peak window, and its
    # rest of the week without one.
    assert ours(context_above_tokens=32000) == (3.0, start)
    assert ours(meter="output", mode="batch") == (2.0, start)
    assert ours(currency="CNY", window="peak") == (16, start)
    assert ours(currency="CNY") == (8, start)
    # Chat 3:1: 0.75 x 1 + 0.25 x 4 before the cut, 0.75 x 0.6 + 0.25 x 3 after.
    assert ours(meter="blend", profile="chat-3-1") == (1.75, start)
    assert ours("2026-03-06", meter="blend", profile="chat-3-1") == (1.2, dt.date(2026, 3, 5))
    # No record that day, no such meter, no such list or provider: nothing to compare with.
    assert ours("2025-12-31") is None
    assert ours(meter="cached_input") is None
    assert ours(currency="EUR") is None
    assert ours(provider="zeta") is None


def test_claims_within_their_tolerance_pass() -> None:
    claims = [claim(stated_usd_per_mtok=1.01),                     # 1 %: a rounding
              claim(currency="CNY", stated_usd_per_mtok=1.0),      # 8 yuan at 8 a dollar
              claim(currency="CNY", window="peak", stated_per_mtok=16),
              claim(context_above_tokens=32000, stated_usd_per_mtok=3),
              claim(meter="output", mode="batch", stated_usd_per_mtok=2),
              # -40 %, and the blend's -31.4 % said as -31 (within a percentage point).
              claim(since="2026-03-01", at="2026-03-06", stated_change_percent=-40),
              claim(meter="blend", profile="chat-3-1", since="2026-03-01", at="2026-03-06",
                    stated_change_percent=-31)]
    assert entry_claim_problems("e.yaml", claims, FILES, RATES, DEFAULT_PROFILES) == []


def test_each_wrong_or_unfounded_claim_is_an_error_naming_its_field_and_our_figure() -> None:
    claims = [claim(stated_usd_per_mtok=1.1),
              claim(currency="CNY", stated_usd_per_mtok=1.5),
              claim(currency="CNY", window="peak", stated_per_mtok=8),
              claim(meter="blend", profile="chat-3-1", since="2026-03-01", at="2026-03-06",
                    stated_change_percent=-50),
              claim(meter="blend", profile="agent", stated_usd_per_mtok=1),
              claim(meter="output", since="2025-12-01", stated_change_percent=-10),
              claim(provider="zeta", stated_usd_per_mtok=1),
              claim(currency="GBP", stated_usd_per_mtok=1.2)]
    lines = {("claims", 3, "stated_change_percent"): 31}

    def error(i: int, field: str, message: str, line: int | None = None) -> Problem:
        return Problem("e.yaml", f"claims.{i}.{field}", message, line=line)

    fix = "; correct the figure in the prose and here, or its conversion"
    assert entry_claim_problems("e.yaml", claims, FILES, RATES, DEFAULT_PROFILES,
                                lambda loc: lines.get(loc)) == [
        error(0, "stated_usd_per_mtok", "states 1.1 but our figure is 1 (+10.0%) (acme m input "
              f"price (USD list) on 2026-03-01){fix}"),
        error(1, "stated_usd_per_mtok", "states 1.5 but our figure is 1 (+50.0%) (acme m input "
              f"price (CNY list) on 2026-03-01, in USD at the ECB rate of 2026-01-01){fix}"),
        error(2, "stated_per_mtok", "states 8 but our figure is 16 (-50.0%) (acme m input price "
              f"in window peak (CNY list) on 2026-03-01){fix}"),
        error(3, "stated_change_percent", "states -50% but our figure is -31.4% (acme m chat-3-1 "
              "blend (USD list): $1.75 on 2026-03-01 → $1.20 on 2026-03-06); correct the figure "
              "in the prose and here", line=31),
        error(4, "profile", "unknown profile 'agent'; editions.yaml has: cached-agent, chat-3-1"),
        error(5, "since", "no acme m output price (USD list) on 2025-12-01 in sources/prices/"),
        error(6, "at", "no zeta m input price (USD list) on 2026-03-01 in sources/prices/"),
        error(7, "stated_usd_per_mtok", "no ECB rate of GBP on or before 2026-01-01 to convert "
              "acme m input price (GBP list); state it in `stated_per_mtok` instead")]


def test_a_stated_price_off_ours_by_more_than_two_percent_says_by_how_much() -> None:
    # 3 %, -3 % and +10 % are over 2 %; 1.5 % and ours to six figures (+0.04 %) are not; ours 0
    # has no ratio to give.
    assert price_gap(1.03, 1.0) == "states 1.03 but our figure is 1 (+3.0%)"
    assert price_gap(0.97, 1.0) == "states 0.97 but our figure is 1 (-3.0%)"
    assert price_gap(1.015, 1.0) is None
    assert price_gap(0.123456789, 0.1234) is None
    assert price_gap(0.5, 0.0) == "states 0.5 but our figure is 0"
    assert price_gap(0.2, 0.123456789) == "states 0.2 but our figure is 0.123457 (+62.0%)"
    # At a tolerance of 25 %: 1.25 against 1 is not over it (0.25 is exact in binary), 1.5 is.
    assert price_gap(1.25, 1.0, tolerance=0.25) is None
    assert price_gap(1.5, 1.0, tolerance=0.25) == "states 1.5 but our figure is 1 (+50.0%)"


ENTRY = """\
date: 2026-11-06
section: top
headline: Case
summary: A case.
links:
  - url: https://example.org/case
    publisher: Example
claims:
"""


def test_check_refuses_a_claim_that_is_not_one_figure_of_one_day_or_move(copy_repo_sources) -> None:
    root = copy_repo_sources()
    (root / "sources" / "entries" / "2026" / "11-06-claims.yaml").write_text(ENTRY + """\
  - {provider: deepseek, currency: USD, model: deepseek-chat, meter: input, at: 2025-09-29}
  - {provider: deepseek, currency: USD, model: deepseek-chat, meter: input, at: 2025-09-29,
     stated_usd_per_mtok: 0.28, stated_per_mtok: 0.28}
  - {provider: deepseek, currency: USD, model: deepseek-chat, meter: input, at: 2025-09-29,
     stated_change_percent: 4}
  - {provider: deepseek, currency: USD, model: deepseek-chat, meter: input, since: 2025-09-29,
     at: 2025-09-29, stated_change_percent: 4}
  - {provider: deepseek, currency: USD, model: deepseek-chat, meter: blend, at: 2025-09-29,
     stated_usd_per_mtok: 0.315}
  - {provider: deepseek, currency: USD, model: deepseek-chat, meter: blend, profile: chat-3-1,
     window: peak-2026, at: 2025-09-29, stated_usd_per_mtok: 0.315}
""", encoding="utf-8")
    result = CliRunner().invoke(main, ["check", "--root", str(root)])
    path = "sources/entries/2026/11-06-claims.yaml"
    assert result.exit_code == 1
    assert result.output == (
        f"{path}:9:1: claims.0: give exactly one of `stated_usd_per_mtok`, `stated_per_mtok` and "
        "`stated_change_percent` (it gives none)\n"
        f"{path}:10:1: claims.1: give exactly one of `stated_usd_per_mtok`, `stated_per_mtok` and "
        "`stated_change_percent` (it gives stated_usd_per_mtok and stated_per_mtok)\n"
        f"{path}:12:1: claims.2: a move needs both `since` (the day it is from) and "
        "`stated_change_percent`; a price on one day has neither\n"
        f"{path}:14:1: claims.3: `since` (2025-09-29) must be before `at` (2025-09-29)\n"
        f"{path}:16:1: claims.4: `meter: blend` needs the `profile` it blends for, and only a "
        "blend has a profile\n"
        f"{path}:18:1: claims.5: a blend weighs the windows, band and mode by its profile; give "
        "no `window`, `context_above_tokens` or `mode`\n"
        "6 problem(s) found.\n")


def test_the_v3_2_exp_entry_says_what_the_records_say_and_check_holds_it_to_them(
        copy_repo_sources) -> None:
    # Issue 50: "cut API prices by more than half", where the records give output -62 %, input
    # $0.27 to $0.28 and the 3:1 blend -21 %. Said as -50 %, the blend's claim is refused.
    name = "sources/entries/2026/11-06-deepseek-price-history.yaml"
    text = (REPO / name).read_text(encoding="utf-8")
    assert "more than half" not in text
    assert "output price by 62%" in text and "became 21% cheaper" in text
    root = copy_repo_sources()
    assert CliRunner().invoke(main, ["check", "--root", str(root)]).exit_code == 0
    line = text.splitlines().index("    stated_change_percent: -21") + 1
    (root / name).write_text(text.replace("stated_change_percent: -21",
                                          "stated_change_percent: -50"), encoding="utf-8")
    result = CliRunner().invoke(main, ["check", "--root", str(root)])
    assert result.exit_code == 1
    assert result.output == (
        f"{name}:{line}:1: claims.5.stated_change_percent: states -50% but our figure is -20.8% "
        "(deepseek deepseek-chat chat-3-1 blend (USD list): $0.398 on 2025-09-28 → $0.315 on "
        "2025-09-29); correct the figure in the prose and here\n1 problem(s) found.\n")


def test_the_claims_of_a_refused_price_file_wait_for_it() -> None:
    # Its own problems say what is wrong with it; "no price" for each claim would bury them.
    wrong = [claim(provider="zeta", stated_usd_per_mtok=1), claim(stated_usd_per_mtok=2)]
    assert [p.field for p in entry_claim_problems("e.yaml", wrong, FILES, RATES, DEFAULT_PROFILES,
                                                  unread={"zeta"})] == ["claims.1.stated_usd_per_mtok"]
