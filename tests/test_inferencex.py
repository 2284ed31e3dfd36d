"""InferenceX result rows: GPU counts, interactivity, unreadable rows, and the real rows."""

from __future__ import annotations

import json

import pytest

from pipeline.formats.inferencex import gpu_count, read_inferencex_rows
from pipeline.formats.mlperf import FormatError


def row(**over):
    r = {"hw": "b200-dgxc", "conc": 16, "model": "deepseek-ai/DeepSeek-R1",
         "infmax_model_prefix": "dsr1", "framework": "trt", "precision": "fp4", "isl": 8192,
         "osl": 1024, "tp": 8, "ep": 8, "tput_per_gpu": "2500.5", "median_intvty": 40.0}
    r.update(over)
    return r


def test_fixed_length_row():
    (rec,) = read_inferencex_rows(json.dumps([row()]).encode(), "v2").records
    assert (rec.model, rec.scenario, rec.accelerator_count) == ("dsr1", "8192/1024", 8)
    assert rec.value_per_accelerator == 2500.5 and rec.value == 2500.5 * 8
    assert (rec.interactivity_tok_s_user, rec.concurrency, rec.result_id) == (40.0, 16, "v2#0")


def test_agentic_row_uses_mean_interactivity():
    r = row(isl=None, osl=None, scenario_type="agentic-coding", median_intvty=None,
            mean_intvty=78.5)
    (rec,) = read_inferencex_rows(json.dumps([r]).encode()).records
    assert (rec.scenario, rec.interactivity_tok_s_user) == ("agentic-coding", 78.5)


def test_multinode_gpus_are_prefill_plus_decode():
    assert gpu_count({"is_multinode": True, "num_prefill_gpu": 4, "num_decode_gpu": 8}) == 12
    assert gpu_count({"tp": 4, "pp": 2}) == 8


def test_failed_runs_are_counted():
    result = read_inferencex_rows(json.dumps([row(tput_per_gpu=None), row(tp=None),
                                              row()]).encode())
    assert len(result.records) == 1
    assert dict(result.skipped) == {
        "no throughput (`tput_per_gpu` empty: run failed or incomplete)": 1,
        "GPU count unreadable (`tp`, or prefill/decode GPUs)": 1}


def test_not_inferencex():
    with pytest.raises(FormatError, match="InferenceX result rows"):
        read_inferencex_rows(b'[{"ID": "5.1-0001"}]')


def test_real_agg_rows(real_data):
    folder = real_data / "inferencex" / "unofficial-agentx-agg"
    for path in sorted(folder.glob("*.json")):
        result = read_inferencex_rows(path.read_bytes(), "agentx")
        assert result.total_rows == len(result.records) + sum(result.skipped.values())
        assert result.records, path.name
        assert all(r.interactivity_tok_s_user for r in result.records)
    b200 = read_inferencex_rows(
        (folder / "kimik2.5-fp4-b200-vllm-agentic-lmcache__agg_bmk.json").read_bytes())
    assert (len(b200.records), sum(b200.skipped.values())) == (22, 1)
