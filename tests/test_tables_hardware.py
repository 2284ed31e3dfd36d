"""The normalized table, comparability guards and the cost formula."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

import pandas as pd
import pytest

from pipeline.formats.benchmark_record import BenchmarkRecord
from pipeline.models.hardware import Accelerator, HourlyCost
from pipeline.models.hardware_results import HardwareRow
from pipeline.models.rates import RateTable
from pipeline.normalize.accelerators import compiled_patterns
from pipeline.tables.hardware import (
    CostError,
    FileInfo,
    basis_label,
    can_be_fresh,
    check_hourly,
    is_public,
    needs_cost,
    normalize_records,
    round_over_round,
    rows_missing_cost,
    target_text,
    tokens_per_usd,
    usd_at_ecb_rates,
    usd_identity,
    usd_per_mtok,
)
from pipeline.tables.hardware_costs import (
    COST_COLUMNS,
    ROW_FIELDS,
    bases_of,
    best_per_accelerator,
    costed_table,
    costs_in_force,
    rows_table,
)

ACCS = [Accelerator(name=n, vendor="v", patterns=[p], source_url="https://example.com")
        for n, p in [("B200", r"(?<![a-z0-9])b200"), ("H200", r"(?<![a-z0-9])h200(?!-nvl)"),
                     ("MI325X", "mi325x"), ("MI300X", "mi300x")]]
PATTERNS = compiled_patterns(ACCS)
INFO = FileInfo("sources/benchmarks/x.json", dt.date(2025, 9, 9), "https://example.com/x")


def rec(**over) -> BenchmarkRecord:
    base = dict(suite="MLPerf Inference", round="v5.1", result_id="5.1-0069", row_ref="0",
                submitter="NVIDIA", system="DGX B200", accelerator_text="NVIDIA B200-SXM-180GB",
                accelerator_count=8, nodes=1, model="llama2-70b", accuracy_target="99",
                scenario="Offline", division="closed", availability="available",
                inferred=False, metric="throughput", value=101527.0, units="Tokens/s")
    base.update(over)
    return BenchmarkRecord(**base)


def cost(acc="B200", amount=1.95, basis="owner_tco", scenario="hyperscaler",
         date=dt.date(2026, 4, 3), **over) -> HourlyCost:
    fields = dict(source="s", source_url="https://example.com/c") | over
    return HourlyCost(accelerator=acc, basis=basis, scenario=scenario, amount_per_hour=amount,
                      date=date, checked=date, **fields)


def test_cost_formula_by_hand():
    # 101,527 tokens/s on 8 B200 = 12,690.875 per GPU; × 3600 s / $1.95 = 23,429,307.7 tokens/$
    assert tokens_per_usd(12690.875, 1.95) == pytest.approx(23_429_307.69, rel=1e-9)
    assert usd_per_mtok(12690.875, 1.95) == pytest.approx(0.0426814, rel=1e-5)
    with pytest.raises(CostError, match="never \\$0"):
        tokens_per_usd(1000.0, 0.0)


def test_row_values_per_accelerator_and_tokens_per_joule():
    (row,), _ = normalize_records([rec(power_w=10000.0)], INFO, PATTERNS)
    assert (row.accelerator, row.value_per_accelerator) == ("B200", 101527.0 / 8)
    assert row.tokens_per_joule == pytest.approx(10.1527)
    assert (row.citation_id, row.published, row.source_file) == \
        ("5.1-0069", dt.date(2025, 9, 9), "sources/benchmarks/x.json")


def test_each_accuracy_target_is_its_own_comparison():
    # MLPerf lists a run that met both targets under -99 and -99.9: one row each, as published.
    rows, skipped = normalize_records([
        rec(), rec(accuracy_target="99.9", row_ref="1"),
        # An H200 result reported at 99 only (say, a lower precision) ...
        rec(result_id="5.1-0026", accelerator_text="NVIDIA H200-SXM-141GB", value=40000.0,
            row_ref="2")], INFO, PATTERNS)
    assert [r.accuracy_target for r in rows] == ["99", "99.9", "99"] and not skipped
    table = costed(rows, [cost(), cost(acc="H200", amount=1.41)])
    group_99 = int(table.loc[table["row"] == 0, "group"].iloc[0])
    group_999 = int(table.loc[table["row"] == 1, "group"].iloc[0])
    assert group_99 != group_999
    # ... is ranked against the B200 at 99 (5,000 tokens/s per H200 × 3600 / $1.41 =
    # 12,765,957 tokens per dollar), never at 99.9.
    at_99 = best_per_accelerator(table, group_99, "owner_tco/hyperscaler")
    assert list(zip(at_99["accelerator"], at_99["tokens_per_usd"].round())) == [
        ("B200", 23429308.0), ("H200", 12765957.0)]
    at_999 = best_per_accelerator(table, group_999, "owner_tco/hyperscaler")
    assert list(at_999["accelerator"]) == ["B200"]


def test_rounds_are_compared_only_within_one_round():
    rows, _ = normalize_records([rec(), rec(round="v6.1", result_id="v6.1#1", value=200000.0)],
                                INFO, PATTERNS)
    table = rows_table(rows)
    assert table["group"].tolist() == [0, 1]
    assert rows[0].group_key == ("MLPerf Inference", "v5.1", "llama2-70b", "99", "Offline",
                                 "closed")


def test_a_round_without_a_date_is_not_public():
    (dated,), _ = normalize_records([rec()], INFO, PATTERNS)
    (undated,), _ = normalize_records([rec(round="v6.1")], replace(INFO, published=None),
                                      PATTERNS)
    assert is_public(dated, dt.date(2025, 9, 9)) and not is_public(dated, dt.date(2025, 9, 8))
    assert not is_public(undated, dt.date.max)


def test_round_over_round_pairs_one_system_in_two_dated_rounds():
    v51 = replace(INFO, published=dt.date(2025, 9, 9))
    v61 = replace(INFO, path="sources/benchmarks/y.json", published=dt.date(2026, 9, 9))
    old, _ = normalize_records([rec(system="GB200 NVL72", value=167578.0),
                                rec(system="other", result_id="5.1-0001")], v51, PATTERNS)
    new, _ = normalize_records([rec(round="v6.1", system="GB200 NVL72", result_id="v6.1#298",
                                    value=395940.0),
                                rec(round="v6.1", system="GB200 NVL72", result_id="v6.1#9",
                                    scenario="Server", value=1.0)], v61, PATTERNS)
    ((earlier, later),) = round_over_round(old + new)
    assert (earlier.citation_id, later.citation_id) == ("5.1-0069", "v6.1#298")
    assert round(later.value / earlier.value, 2) == 2.36  # 395,940 / 167,578 = 2.3627
    # Without the later round's date there is nothing to set side by side.
    undated = [replace(r, published=None) for r in new]
    assert round_over_round(old + undated) == []


def test_left_out_rows_have_named_reasons():
    rows, skipped = normalize_records([
        rec(metric="latency", units="Latency (ms)"),
        rec(accelerator_text="AMD Instinct MI300X (x32), AMD Instinct MI325X (x16)"),
        rec(accelerator_text="NVIDIA L40S"),
        rec(accelerator_count=None),
        # No count on an accelerator we do not follow: only the accelerator is the reason.
        rec(accelerator_text="Intel(R) Arc(TM) 140T GPU", accelerator_count=None)],
        INFO, PATTERNS)
    assert rows == []
    assert skipped == {"latency result (single/multi-stream), not a throughput": 1,
                       "several accelerator types in one system": 1,
                       "accelerator not in sources/hardware/accelerators.yaml: NVIDIA L40S": 1,
                       "accelerator count missing or not a whole number": 1,
                       "accelerator not in sources/hardware/accelerators.yaml: Intel(R) Arc(TM) "
                       "140T GPU": 1}


def test_guards_mark_and_separate():
    rows, _ = normalize_records([rec(), rec(result_id="a", availability="preview"),
                                 rec(result_id="b", division="open"),
                                 rec(result_id="c", inferred=True),
                                 rec(result_id="d", scenario="Server")], INFO, PATTERNS)
    clean, preview, open_, inferred, server = rows
    assert clean.is_headline and clean.flags == ()
    assert preview.flags == ("preview",) and open_.flags == ("open division",)
    assert inferred.flags == ("inferred",)
    assert not (preview.is_headline or open_.is_headline or inferred.is_headline)
    assert server.group_key != clean.group_key and open_.group_key != clean.group_key
    unofficial, = normalize_records([rec()], replace(INFO, official=False), PATTERNS)[0]
    assert unofficial.flags == ("unofficial",)
    costed = costed_table(rows_table(rows), [cost()], dt.date(2026, 9, 12))
    assert list(costed["headline"]) == [True, False, False, False, True]


def costed(rows, costs, day=dt.date(2026, 9, 12), usd=usd_identity):
    return costed_table(rows_table(rows), costs, day, usd)


def test_a_marked_result_stays_out_of_every_comparison_and_is_listed_apart():
    """The comparability guard in use: marked results (preview, inferred, ...) that would win
    are never ranked, never make a figure or a comparison of their own, and the Hardware page
    lists them apart with their marks."""
    from pipeline.compose.hardware import hardware_figures
    from pipeline.models.hardware_results import Hardware
    from pipeline.render.hardware_page import hardware_page, headline_groups

    later = replace(INFO, path="sources/benchmarks/y.json", published=dt.date(2026, 9, 10))
    rows = (normalize_records([
        rec(),                                                      # 101,527 tokens/s, 8 B200
        rec(result_id="5.1-0001", availability="preview", value=2 * 101527.0),
        rec(result_id="5.1-0026", accelerator_text="NVIDIA H200-SXM-141GB", inferred=True,
            value=300000.0),
        rec(result_id="5.1-0040", model="deepseek-r1", availability="preview")],
        INFO, PATTERNS)[0]
        + normalize_records([rec(result_id="5.1-0090", availability="preview")], later,
                            PATTERNS)[0])
    costs = [cost(), cost(acc="H200", amount=1.41)]
    table = costed(rows, costs)
    llama, deepseek = (int(table.loc[table["row"] == i, "group"].iloc[0]) for i in (0, 3))
    # 101,527 / 8 × 3600 / 1.95 = 23,429,308 tokens per dollar: the clean result, not the
    # preview's twice that, and no H200 (its one result is inferred).
    best = best_per_accelerator(table, llama, "owner_tco/hyperscaler")
    assert list(zip(best["citation_id"], best["tokens_per_usd"].round())) == [
        ("5.1-0069", 23429308.0)]
    assert best_per_accelerator(table, deepseek, "owner_tco/hyperscaler").empty
    assert [group for group, _ in headline_groups(table)] == [llama]

    hw = Hardware(accelerators=tuple(ACCS), costs=tuple(costs), files=())
    (figure,) = hardware_figures(hw, rows, dt.date(2026, 9, 12), None)
    assert figure.text_md.endswith(
        "at owner TCO (hyperscaler) hourly costs: B200 23.4 M (5.1-0069).")
    assert [c.ref for c in figure.citations] == ["5.1-0069", "B200 owner_tco/hyperscaler"]
    # Only a marked result is new in this window: nothing to compare afresh.
    assert hardware_figures(hw, rows, dt.date(2026, 9, 12), dt.date(2026, 9, 5)) == []

    page, _ = hardware_page(table, rows)
    compared, marked = page.split("## Marked results (not compared with the above)")
    # Result ids are links, their text escaped for Markdown: [5\.1\-0069](...).
    assert r"[5\.1\-0069]" in compared and "deepseek-r1" not in compared
    for ref, mark in ((r"5\.1\-0001", "preview"), (r"5\.1\-0026", "inferred"),
                      (r"5\.1\-0040", "preview"), (r"5\.1\-0090", "preview")):
        assert f"[{ref}]" not in compared
        (line,) = [line for line in marked.splitlines() if f"[{ref}]" in line]
        assert line.endswith(f"| {mark} |"), line
    assert r"[5\.1\-0069]" not in marked


def test_groups_are_a_column_numbered_in_sorted_order():
    rows, _ = normalize_records([rec(scenario="Server"), rec(result_id="o", division="open"),
                                 rec(result_id="x", model="deepseek-r1"), rec(result_id="y")],
                                INFO, PATTERNS)
    table = rows_table(rows)
    # (suite, round, model, target, scenario, division) sorted: deepseek-r1 Offline closed,
    # llama2 Offline closed, llama2 Offline open, llama2 Server closed.
    assert list(table["group"]) == [3, 2, 0, 1]
    assert rows_table([]).empty


def test_costs_per_basis_and_date():
    costs = [cost(amount=1.95), cost(amount=2.9, basis="rental_contract", scenario="3-year"),
             cost(amount=9.0, date=dt.date(2027, 1, 1))]
    (row,), _ = normalize_records([rec()], INFO, PATTERNS)
    table = costed([row], costs)
    assert [(c, round(t)) for c, t in zip(table["cost_basis"], table["tokens_per_usd"])] == [
        ("owner_tco/hyperscaler", 23429308), ("rental_contract/3-year", 15754190)]
    assert list(table["usd_per_mtok"].round(7)) == [0.0426816, 0.0634752]
    assert list(table["cost_basis_label"]) == ["owner TCO (hyperscaler)",
                                               "rental contract (3-year)"]
    # Before the first cost's date: one row, no cost, never $0.
    early = costed([row], costs, dt.date(2026, 1, 1))
    assert len(early) == 1 and early["tokens_per_usd"].isna().all()
    assert early["cost_basis"].tolist() == [""] and early["cost_placeholder"].tolist() == [False]


def test_costs_in_force_edges_and_ties():
    costs = [cost(amount=1.95), cost(amount=2.5), cost(acc="H200", amount=1.4),
             cost(amount=9.0, date=dt.date(2027, 1, 1)),
             cost(acc="MI325X", amount=1.2, date=dt.date(2026, 1, 1)),
             cost(acc="MI325X", amount=1.3, date=dt.date(2026, 5, 1))]

    def amounts(day):
        t = costs_in_force(costs, day)
        return list(zip(t["cost_accelerator"], t["usd_per_accelerator_hour"]))

    assert amounts(dt.date(2025, 12, 31)) == []
    assert amounts(dt.date(2026, 1, 1)) == [("MI325X", 1.2)]  # in force from its own date
    assert amounts(dt.date(2026, 4, 2)) == [("MI325X", 1.2)]
    # Two costs of one basis on one date: the later in the file wins.
    assert amounts(dt.date(2026, 5, 1)) == [("B200", 2.5), ("H200", 1.4), ("MI325X", 1.3)]
    assert amounts(dt.date(2027, 1, 1)) == [("B200", 9.0), ("H200", 1.4), ("MI325X", 1.3)]


def test_only_token_rows_are_costed_and_ties_go_to_the_lower_result_id():
    rows, _ = normalize_records([rec(result_id="5.1-0070"), rec(result_id="5.1-0069", row_ref="1"),
                                 rec(result_id="q", units="Queries/s", value=5.0)],
                                INFO, PATTERNS)
    table = costed(rows, [cost()])
    assert table["tokens_per_usd"].notna().tolist() == [True, True, False]
    assert list(table["row"]) == [0, 1, 2]
    (best,) = best_per_accelerator(table, 0, "owner_tco/hyperscaler").itertuples()
    assert best.citation_id == "5.1-0069"
    assert bases_of(table, 0) == ["owner_tco/hyperscaler"]


def test_fx_is_an_argument():
    (row,), _ = normalize_records([rec()], INFO, PATTERNS)
    eur = [cost(amount=1.8, currency="EUR")]
    with pytest.raises(CostError, match="needs an exchange rate"):
        costed([row], eur)
    (c,) = costed([row], eur, usd=lambda cur, day: (1.1, day - dt.timedelta(days=1))
                  ).itertuples()
    assert c.usd_per_accelerator_hour == pytest.approx(1.98)
    assert c.fx_rate_date == dt.date(2026, 4, 2)
    assert usd_identity("USD", dt.date(2026, 1, 1)) == (1.0, dt.date(2026, 1, 1))
    # A cost no row needs is not converted, so it cannot fail the table.
    assert costed([row], [cost(), cost(acc="H200", currency="EUR")])["tokens_per_usd"].notna().all()


def test_missing_cost_is_found_never_zero():
    rows, _ = normalize_records([rec(), rec(result_id="5.1-0026", accelerator_text="H200-SXM")],
                                INFO, PATTERNS)
    missing = rows_missing_cost(rows, [cost()], dt.date.max)
    assert [r.accelerator for r in missing] == ["H200"]
    table = costed(rows, [cost()])
    h200 = table[table["accelerator"] == "H200"]
    assert h200["tokens_per_usd"].isna().all() and h200["usd_per_accelerator_hour"].isna().all()


# --- exact values of each rule, from small hand-made inputs (issue 23: mutation testing) ------

def test_a_row_carries_every_field_of_its_record_and_its_file():
    ix = FileInfo("sources/benchmarks/ix.json", dt.date(2026, 1, 2), "https://example.com/ix",
                  official=False)
    full = rec(suite="InferenceX", round="v2", result_id="r-7", row_ref="12", submitter="S",
               system="Sys", accelerator_text="AMD Instinct MI325X", accelerator_count=4,
               model="m", accuracy_target="99.9", scenario="1024/1024", division="n/a",
               availability="rdi", inferred=True, value=10000.0, power_w=2000.0,
               ttft_bound_ms=1.5, tpot_bound_ms=2.5, interactivity_tok_s_user=40.0, isl=1024,
               osl=2048, concurrency=64, precision="fp8", platform="P-1")
    given = replace(full, value_per_accelerator=3000.0, details_url="https://example.com/d",
                    units="Samples/s")
    unpowered = replace(full, power_w=None)
    rows, skipped = normalize_records([full, given, unpowered], ix, PATTERNS)
    assert not skipped
    expected = HardwareRow(
        suite="InferenceX", round="v2", result_id="r-7", submitter="S", system="Sys",
        accelerator="MI325X", accelerator_text="AMD Instinct MI325X", accelerator_count=4,
        model="m", accuracy_target="99.9", scenario="1024/1024", division="n/a",
        availability="rdi", inferred=True, official=False, metric="throughput", value=10000.0,
        units="Tokens/s",
        value_per_accelerator=2500.0,  # 10,000 tokens/s / 4 accelerators
        power_w=2000.0,
        tokens_per_joule=5.0,  # 10,000 tokens/s / 2,000 W
        ttft_bound_ms=1.5, tpot_bound_ms=2.5, interactivity_tok_s_user=40.0, isl=1024,
        osl=2048, concurrency=64, precision="fp8", source_file="sources/benchmarks/ix.json",
        row_ref="12", citation_id="r-7", published=dt.date(2026, 1, 2),
        details_url="https://example.com/ix",  # the record has none: the file's
        platform="P-1")
    assert rows == [
        expected,
        # The publisher's own per-accelerator figure is kept; no tokens per joule in samples.
        replace(expected, units="Samples/s", value_per_accelerator=3000.0,
                tokens_per_joule=None, details_url="https://example.com/d"),
        replace(expected, power_w=None, tokens_per_joule=None)]


def test_every_left_out_record_is_counted_and_the_rest_are_kept():
    mixed = "AMD Instinct MI300X (x32), AMD Instinct MI325X (x16)"
    records = [rec(metric="latency", result_id="l1"), rec(result_id="k1"),
               rec(accelerator_text=mixed), rec(metric="latency", result_id="l2"),
               rec(accelerator_text="NVIDIA L40S"), rec(accelerator_text=mixed),
               rec(result_id="k2"), rec(accelerator_count=None), rec(accelerator_text="NVIDIA L40S"),
               rec(accelerator_count=0), rec(result_id="k3")]
    rows, skipped = normalize_records(records, INFO, PATTERNS)
    assert [r.result_id for r in rows] == ["k1", "k2", "k3"]
    assert skipped == {"latency result (single/multi-stream), not a throughput": 2,
                       "several accelerator types in one system": 2,
                       "accelerator not in sources/hardware/accelerators.yaml: NVIDIA L40S": 2,
                       "accelerator count missing or not a whole number": 2}


def test_round_over_round_pairs_consecutive_rounds_in_order_of_publication():
    (base,), _ = normalize_records([rec()], INFO, PATTERNS)

    def at(round_, day, result_id, **over):
        return replace(base, round=round_, published=day, result_id=result_id,
                       citation_id=result_id, **over)

    spring, autumn, next_spring = dt.date(2025, 4, 1), dt.date(2025, 9, 9), dt.date(2026, 4, 1)
    rows = [
        # One platform under two system names ("v10.0" sorts before "v9.0" as text: the
        # publication date orders the rounds).
        at("v10.0", autumn, "b", platform="P", system="other name"),
        at("v10.0", autumn, "b2", platform="P"),  # a second row of that round: the first counts
        at("v9.0", spring, "a", platform="P"),
        at("v11.0", next_spring, "c", platform="P"),
        # Not paired: a preview, a result in queries, a round without a date.
        at("v12.0", dt.date(2026, 9, 9), "f", platform="P", availability="preview"),
        at("v12.0", dt.date(2026, 9, 9), "g", platform="P", units="Queries/s"),
        at("v13.0", None, "h", platform="P"),
        # No platform: the system name is the system, and these two are different systems.
        at("v10.0", autumn, "d", system="S1"),
        at("v11.0", next_spring, "e", system="S2"),
        # Another submitter's system: its own pair, listed first (keys in sorted order).
        at("v9.0", spring, "x", submitter="AMD"),
        at("v10.0", autumn, "y", submitter="AMD"),
    ]
    assert [(a.result_id, b.result_id) for a, b in round_over_round(rows)] == [
        ("x", "y"), ("a", "b"), ("b", "c")]


def test_fresh_public_and_needing_a_cost():
    (row,), _ = normalize_records([rec()], INFO, PATTERNS)
    undated = replace(row, published=None)
    queries = replace(row, units="Queries/s")
    preview = replace(row, availability="preview")
    inferencex = replace(row, suite="InferenceX")
    assert [can_be_fresh(r) for r in (row, undated, queries, preview, inferencex)] == [
        True, False, False, False, False]
    assert [needs_cost(r) for r in (row, undated, queries, preview)] == [True, True, False, False]
    assert target_text("99.9") == "99.9 % accuracy target"
    assert target_text("") == "accuracy target not stated"


def test_basis_labels():
    assert basis_label("owner_tco") == "owner TCO"
    assert basis_label("owner_tco", "hyperscaler") == "owner TCO (hyperscaler)"
    assert basis_label("cloud_on_demand", "") == "cloud on-demand list price"
    assert basis_label("rental_contract", "3-year") == "rental contract (3-year)"
    assert basis_label("spot") == "spot"  # a basis without a label reads as itself


def test_conversions_to_usd_and_their_errors():
    day = dt.date(2026, 4, 3)
    assert usd_identity("USD", day) == (1.0, day)
    with pytest.raises(CostError) as err:
        usd_identity("EUR", day)
    assert str(err.value) == ("cost in EUR on 2026-04-03 needs an exchange rate; pass the cost "
                              "core's usd_per_unit")
    assert usd_at_ecb_rates(None)("USD", day) == (1.0, day)
    with pytest.raises(CostError) as err:
        usd_at_ecb_rates(None)("EUR", day)
    assert str(err.value) == ("cost in EUR on 2026-04-03 needs ECB rates, and this repository "
                              "has none (sources/snapshots/fx/)")
    rates = RateTable(days={"EUR": (dt.date(2026, 4, 1), dt.date(2026, 4, 6))},
                      usd_per_unit={"EUR": (1.08, 1.12)})
    convert = usd_at_ecb_rates(rates)
    assert convert("USD", day) == (1.0, day)
    assert convert("EUR", day) == (1.08, dt.date(2026, 4, 1))  # the last fixing before
    assert convert("EUR", dt.date(2026, 4, 6)) == (1.12, dt.date(2026, 4, 6))
    with pytest.raises(CostError) as err:
        convert("EUR", dt.date(2026, 3, 31))
    assert str(err.value) == ("cost in EUR on 2026-03-31: no ECB rate for EUR on or before "
                              "2026-03-31")


def test_hourly_costs_above_zero_only_and_usd_per_million_tokens():
    check_hourly(0.5)  # below a dollar is a cost
    for bad in (0.0, -1.0):
        with pytest.raises(CostError) as err:
            check_hourly(bad)
        assert str(err.value) == "an hourly cost must be above zero; a missing cost is never $0"
    # USD per million tokens = USD per hour × 10^6 / (tokens/s × 3600 s).
    assert usd_per_mtok(12690.875, 1.95) == pytest.approx(1.95e6 / (12690.875 * 3600), rel=1e-12)


def test_the_first_needing_row_of_each_accelerator_without_a_cost():
    rows, _ = normalize_records([
        rec(result_id="b"),                                             # B200: costed
        rec(result_id="h-preview", accelerator_text="H200-SXM", availability="preview"),
        rec(result_id="h1", accelerator_text="H200-SXM"),
        rec(result_id="h2", accelerator_text="H200-SXM"),
        rec(result_id="m-queries", accelerator_text="MI325X", units="Queries/s")], INFO, PATTERNS)
    day = dt.date(2026, 4, 3)
    # A cost dated on `as_of` is in force; one dated after is not.
    assert [r.result_id for r in rows_missing_cost(rows, [cost(date=day)], day)] == ["h1"]
    assert [r.result_id for r in rows_missing_cost(rows, [cost(date=day)], day - dt.timedelta(1))
            ] == ["b", "h1"]


def test_rows_table_columns_flags_days_and_groups():
    rows, _ = normalize_records([rec(), rec(result_id="p", availability="preview", division="open")],
                                INFO, PATTERNS)
    undated = replace(rows[0], published=None, result_id="u")
    table = rows_table([*rows, undated])
    assert list(table.columns) == [*ROW_FIELDS, "flags", "headline", "published_day", "group"]
    assert table["result_id"].tolist() == ["5.1-0069", "p", "u"]
    assert table["flags"].tolist() == ["", "preview; open division", ""]
    assert table["headline"].tolist() == [True, False, True]
    assert table["published_day"].tolist()[:2] == [pd.Timestamp("2025-09-09")] * 2
    assert pd.isna(table["published_day"].iloc[2])
    # Groups in sorted order: (…, "closed") before (…, "open").
    assert table["group"].tolist() == [0, 1, 0]
    empty = rows_table([])
    assert list(empty.columns) == list(table.columns) and empty["group"].dtype == "int64"


def test_costs_in_force_every_column_in_key_order():
    day = dt.date(2026, 4, 3)
    costs = [cost(acc="MI325X", amount=1.28),
             cost(acc="B200", basis="cloud_on_demand", scenario="", amount=6.0, source="AWS",
                  source_url="https://example.com/aws"),
             cost(acc="B200", amount=1.95, placeholder=True, note="1.2 × a predecessor"),
             cost(acc="H200", amount=1.41)]
    table = costs_in_force(costs, day, accelerators=["MI325X", "B200", "MI325X"])
    assert list(table.columns) == COST_COLUMNS
    assert table.to_dict("list") == {
        "cost_basis": ["cloud_on_demand", "owner_tco/hyperscaler", "owner_tco/hyperscaler"],
        "cost_basis_label": ["cloud on-demand list price", "owner TCO (hyperscaler)",
                             "owner TCO (hyperscaler)"],
        "cost_placeholder": [False, True, False],
        "usd_per_accelerator_hour": [6.0, 1.95, 1.28],
        "fx_rate_date": [day, day, day],
        "cost_source": ["AWS", "s", "s"],
        "cost_source_url": ["https://example.com/aws", "https://example.com/c",
                            "https://example.com/c"],
        "cost_accelerator": ["B200", "B200", "MI325X"]}
    # The costs are converted in the order of the accelerators asked for: the first error is
    # the first of those rows' (GBP), though B200 comes first in the file and by name.
    unconvertible = [cost(acc="B200", currency="EUR"), cost(acc="MI325X", currency="GBP")]
    with pytest.raises(CostError, match="cost in GBP on 2026-04-03"):
        costs_in_force(unconvertible, day, accelerators=["MI325X", "B200"])
    with pytest.raises(CostError, match="cost in EUR on 2026-04-03"):
        costs_in_force(unconvertible, day)


def test_costed_table_every_cost_column_of_costed_and_uncosted_rows():
    rows, _ = normalize_records([
        rec(result_id="h", accelerator_text="H200-SXM", value=40000.0),      # no H200 cost
        rec(),                                                               # 8 B200, 2 costs
        rec(result_id="q", units="Queries/s", value=5.0)], INFO, PATTERNS)   # not costed
    day = dt.date(2026, 4, 3)
    costs = [cost(amount=2.0, placeholder=True, note="n"),
             cost(amount=4.0, basis="rental_contract", scenario="3-year", source="r",
                  source_url="https://example.com/r")]
    table = costed_table(rows_table(rows), costs, day)
    assert list(table.index) == [0, 1, 2, 3]
    # In the rows' order, each row's costs in (basis, scenario) order.
    assert table["cost_accelerator"].tolist()[:3] == ["H200", "B200", "B200"]
    assert pd.isna(table["cost_accelerator"].iloc[3])  # not in tokens: no cost looked up
    assert table[["row", "result_id", "cost_basis", "cost_basis_label",
                  "cost_placeholder", "cost_source", "cost_source_url", "fx_rate_date"]
                 ].to_dict("list") == {
        "row": [0, 1, 1, 2], "result_id": ["h", "5.1-0069", "5.1-0069", "q"],
        "cost_basis": ["", "owner_tco/hyperscaler", "rental_contract/3-year", ""],
        "cost_basis_label": ["", "owner TCO (hyperscaler)", "rental contract (3-year)", ""],
        "cost_placeholder": [False, True, False, False],
        "cost_source": ["", "s", "r", ""],
        "cost_source_url": ["", "https://example.com/c", "https://example.com/r", ""],
        "fx_rate_date": [None, day, day, None]}
    assert table["cost_placeholder"].dtype == bool
    # 101,527 / 8 = 12,690.875 tokens/s per B200; × 3600 / $2 and / $4 an hour.
    costed = table.iloc[1:3]
    assert costed["usd_per_accelerator_hour"].tolist() == [2.0, 4.0]
    assert costed["tokens_per_usd"].tolist() == pytest.approx(
        [12690.875 * 3600 / 2.0, 12690.875 * 3600 / 4.0], rel=1e-12)
    assert costed["usd_per_mtok"].tolist() == pytest.approx(
        [2.0e6 / (12690.875 * 3600), 4.0e6 / (12690.875 * 3600)], rel=1e-12)
    assert table.iloc[[0, 3]][["usd_per_accelerator_hour", "tokens_per_usd", "usd_per_mtok"]
                              ].isna().all().all()


def test_best_per_accelerator_ties_and_filters():
    day = dt.date(2026, 4, 3)
    rows, _ = normalize_records([
        # B200 at 12,690.875 tokens/s each; the same on one id twice (two systems) and on a
        # higher id: the lower id's first row stands for the B200.
        rec(result_id="5.1-0070", system="late id"),
        rec(result_id="5.1-0069", system="first row"),
        rec(result_id="5.1-0069", system="second row"),
        rec(result_id="5.1-0001", value=50000.0),                  # 6,250 per B200: not its best
        # H200 and MI300X tie at 4,000 tokens/s each × 3600 / $2 = 7.2 M tokens per dollar:
        # by name.
        rec(result_id="m", accelerator_text="MI300X", value=32000.0),
        rec(result_id="h", accelerator_text="H200-SXM", value=32000.0),
        rec(result_id="p", accelerator_text="MI325X", availability="preview", value=1e6),
        rec(result_id="o", accelerator_text="MI325X", model="other", value=1e6)],
        INFO, PATTERNS)
    costs = [cost(amount=2.0), cost(acc="H200", amount=2.0), cost(acc="MI300X", amount=2.0),
             cost(acc="MI325X", amount=2.0), cost(amount=1.0, basis="cloud_on_demand", scenario="")]
    table = costed_table(rows_table(rows), costs, day)
    group = int(table.loc[table["result_id"] == "h", "group"].iloc[0])
    best = best_per_accelerator(table, group, "owner_tco/hyperscaler")
    assert list(zip(best["accelerator"], best["citation_id"], best["system"])) == [
        ("B200", "5.1-0069", "first row"), ("H200", "h", "DGX B200"),
        ("MI300X", "m", "DGX B200")]
    assert best["tokens_per_usd"].tolist() == pytest.approx(
        [12690.875 * 3600 / 2, 4000 * 3600 / 2, 4000 * 3600 / 2], rel=1e-12)
    # The other basis is B200's only, and the other model's group has its own.
    assert bases_of(table, group) == ["cloud_on_demand", "owner_tco/hyperscaler"]
    other = int(table.loc[table["result_id"] == "o", "group"].iloc[0])
    assert bases_of(table, other) == ["owner_tco/hyperscaler"]
    uncosted = costed_table(rows_table(rows), [], day)
    assert bases_of(uncosted, group) == []
