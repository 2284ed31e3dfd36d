"""MLPerf summary adapters: schema detection, both rounds, type drift, and the real files."""

from __future__ import annotations

import csv
import json

import pytest

from pipeline.formats.mlperf import (
    FormatError,
    read_mlperf_summary,
    result_url,
    split_accuracy_target,
)


def v51_row(**over):
    row = {"ID": "5.1-0069", "Submitter": "NVIDIA", "Availability": "available",
           "Category": "closed", "System": "DGX B200", "Model": "llama2-70b-99",
           "Scenario": "Offline", "Nodes": 1, "Accelerator": "NVIDIA B200-SXM-180GB", "a#": 8,
           "version": "v5.1", "inferred": 0, "has_power": False,
           "Performance_Result": 101527.0, "Performance_Units": "Tokens/s"}
    row.update(over)
    return row


def test_v51_array_reads_a_row():
    result = read_mlperf_summary(json.dumps([v51_row()]).encode())
    assert result.schema == "mlperf-v5.1-array"
    (rec,) = result.records
    assert (rec.result_id, rec.model, rec.accuracy_target, rec.accelerator_count) == \
        ("5.1-0069", "llama2-70b", "99", 8)
    assert rec.value == 101527.0 and rec.division == "closed" and rec.row_ref == "0"


@pytest.mark.parametrize("count", [8, 8.0, "8", " 8.0 "])
def test_accelerator_count_drift(count):
    result = read_mlperf_summary(json.dumps([v51_row(**{"a#": count, "Nodes": "2"})]).encode())
    assert result.records[0].accelerator_count == 16


def test_numbers_as_strings_and_unreadable_rows_are_counted():
    rows = [v51_row(Performance_Result="35316.7"), v51_row(Accelerator="", **{"a#": ""}),
            v51_row(**{"a#": 8.5}), v51_row(Performance_Result="n/a"), "junk"]
    result = read_mlperf_summary(json.dumps(rows).encode())
    assert [r.value for r in result.records] == [35316.7, 101527.0]
    # A count that is not a whole number is left for the table to count, once it knows whether
    # the row is on an accelerator we follow (tables/hardware.py).
    assert result.records[1].accelerator_count is None
    assert dict(result.skipped) == {
        "no accelerator named (CPU-only system)": 1,
        "no readable result value or units": 1,
        "row is not a JSON object": 1}
    assert result.total_rows == 5


def test_power_in_watts_and_millijoules():
    rows = [v51_row(has_power=True, Power_Result=10400.9, Power_Units="Watts"),
            v51_row(has_power=True, Power_Result="4.77", Power_Units="millijoules",
                    Scenario="SingleStream", Performance_Units="Latency (ms)")]
    watts, energy = read_mlperf_summary(json.dumps(rows).encode()).records
    assert (watts.power_w, watts.energy_mj_per_query) == (10400.9, None)
    assert (energy.power_w, energy.energy_mj_per_query, energy.metric) == (None, 4.77, "latency")


def test_v61_object_with_renamed_fields():
    doc = {"307": {"Organization": "NVIDIA", "Availability": "available", "Division": "closed",
                   "SystemName": "GB300 NVL72", "Model": "deepseek-r1",
                   "MlperfModel": "deepseek-r1", "Scenario": "Offline", "Result": "679740.0",
                   "Units": "Tokens/s", "number_of_nodes": 18, "accelerators_per_node": 4.0,
                   "total_accelerators": 72, "accelerator_model_name": "NVIDIA GB300",
                   "inferred": "0", "has_power": False, "version": "v6.1"}}
    result = read_mlperf_summary(json.dumps(doc).encode())
    assert result.schema == "mlperf-v6.1-object"
    (rec,) = result.records
    assert (rec.result_id, rec.row_ref, rec.accelerator_count, rec.submitter, rec.value) == \
        ("v6.1#307", "307", 72, "NVIDIA", 679740.0)


def test_unknown_shapes_raise_format_error():
    with pytest.raises(FormatError, match="not an MLPerf v5.1"):
        read_mlperf_summary(b'[{"hw": "b200"}]')
    with pytest.raises(FormatError, match="not valid JSON"):
        read_mlperf_summary(b"{")


def test_accuracy_target_split():
    assert split_accuracy_target("llama2-70b-99.9") == ("llama2-70b", "99.9")
    assert split_accuracy_target("llama2-70b-99") == ("llama2-70b", "99")
    # Names without a suffix have one target, 99 % of the reference, in MLCommons' checker.
    assert split_accuracy_target("deepseek-r1") == ("deepseek-r1", "99")
    assert split_accuracy_target("mixtral-8x7b") == ("mixtral-8x7b", "99")
    assert split_accuracy_target("gpt-j") == ("gpt-j", "")


def test_a_result_links_to_its_own_folder():
    details = ("https://github.com/mlcommons/inference_results_v5.1/tree/main/closed/AMD/results/"
               "8xMI300X_2xEPYC_9575F")
    location = "closed/AMD/results/8xMI300X_2xEPYC_9575F/llama2-70b-99/Interactive"
    assert result_url(details, location) == details + "/llama2-70b-99/Interactive"
    # A Location outside the Details folder, or none, leaves the system's folder.
    assert result_url(details, "open/AMD/results/other/llama2-70b-99/Offline") == details
    assert result_url(details, "") == details
    assert result_url("", location) == ""
    (rec,) = read_mlperf_summary(json.dumps([v51_row(Details=details, Location=location)])
                                 .encode()).records
    assert rec.details_url == details + "/llama2-70b-99/Interactive"


def test_real_v51_summary_reads_every_row(real_data):
    data = (real_data / "mlperf-inference" / "v5.1" / "summary_results.json").read_bytes()
    result = read_mlperf_summary(data)
    assert result.total_rows == 1448
    assert len(result.records) + sum(result.skipped.values()) == 1448
    assert result.skipped["no accelerator named (CPU-only system)"] == 877
    # The three Intel Arc 140T rows give no accelerator count; they are still read.
    assert sum(r.accelerator_count is None for r in result.records) == 3
    gb200 = next(r for r in result.records if (r.result_id, r.model, r.scenario) ==
                 ("5.1-0071", "deepseek-r1", "Server"))
    assert gb200.details_url == (
        "https://github.com/mlcommons/inference_results_v5.1/tree/main/closed/NVIDIA/results/"
        "GB200-NVL72_GB200-186GB_aarch64x72_TRT/deepseek-r1/Server")


def test_real_v61_excerpt_through_the_adapter(real_data):
    """The excerpt is a CSV transcription: rebuild the v6.1 object shape, then read it."""
    path = real_data / "mlperf-inference" / "v6.1" / "summary_excerpt_llm_rows.csv"
    with path.open(newline="", encoding="utf-8") as fp:
        rows = list(csv.DictReader(fp))
    doc = {r.pop("summary_key"): r for r in rows}  # values stay strings, as drift allows
    result = read_mlperf_summary(json.dumps(doc).encode())
    assert result.schema == "mlperf-v6.1-object"
    assert len(result.records) == 28 and not result.skipped
    gb300 = next(r for r in result.records if r.row_ref == "307")
    assert (gb300.value, gb300.accelerator_count, gb300.scenario) == (679740.0, 72, "Offline")
    assert next(r for r in result.records if r.row_ref == "304").accelerator_count == 288
