"""Read SemiAnalysis InferenceX result rows (`agg_bmk.json`, or one `agg_*.json` row).

Field meanings follow InferenceX `utils/process_result.py` (../shared/data/real/inferencex/
README.md): `tput_per_gpu` is total token throughput divided by the GPUs of the run, latencies are
seconds, and `*_intvty` = 1000 / TPOT ms is the tokens per second each user sees. Fixed-length runs
carry `isl`/`osl`; AgentX trace-replay rows carry `scenario_type` instead.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from pipeline.formats.benchmark_record import (
    IX_NO_BENCHMARK,
    IX_NO_COUNT,
    NO_OBJECT,
    BenchmarkRecord,
    ReadResult,
)
from pipeline.formats.mlperf import FormatError
from pipeline.formats.numbers import as_count, as_float

SUITE = "InferenceX"


def read_inferencex_rows(data: bytes, round_: str = "") -> ReadResult:
    """Return the result rows of an InferenceX aggregate file and the rows it could not read."""
    try:
        doc = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise FormatError(f"not valid JSON: {err}") from err
    rows = [doc] if isinstance(doc, Mapping) else doc
    if not isinstance(rows, list) or not any(isinstance(r, Mapping) and "hw" in r for r in rows):
        raise FormatError("expected InferenceX result rows (objects with `hw`, `conc`, "
                          "`tput_per_gpu`), found something else")
    result = ReadResult(schema="inferencex-rows", total_rows=len(rows))
    for i, row in enumerate(rows):
        record = _record(row, i, round_, result)
        if record is not None:
            result.records.append(record)
    return result


def gpu_count(row: Mapping) -> int | None:
    """Return the GPUs of a run: prefill + decode when multinode, else tp × pp × pcp_size."""
    if row.get("is_multinode") or row.get("disagg") in (True, "true"):
        prefill, decode = as_count(row.get("num_prefill_gpu")), as_count(row.get("num_decode_gpu"))
        if prefill and decode:
            return prefill + decode
    tp = as_count(row.get("tp"))
    if tp is None:
        return None
    return tp * (as_count(row.get("pp")) or 1) * (as_count(row.get("pcp_size")) or 1)


def _record(row: object, i: int, round_: str, result: ReadResult) -> BenchmarkRecord | None:
    if not isinstance(row, Mapping):
        result.skipped[NO_OBJECT] += 1
        return None
    hw = str(row.get("hw") or "").strip()
    if not hw:
        result.skipped["no hardware (`hw`) named"] += 1
        return None
    per_gpu = as_float(row.get("tput_per_gpu"))
    if per_gpu is None or per_gpu <= 0:
        result.skipped["no throughput (`tput_per_gpu` empty: run failed or incomplete)"] += 1
        return None
    gpus = gpu_count(row)
    if gpus is None:
        result.skipped[IX_NO_COUNT] += 1
        return None
    isl, osl = as_count(row.get("isl")), as_count(row.get("osl"))
    scenario = f"{isl}/{osl}" if isl and osl else str(row.get("scenario_type") or "").strip()
    model = str(row.get("infmax_model_prefix") or "").strip() or \
        str(row.get("model") or "").strip().rsplit("/", 1)[-1]
    if not scenario or not model:
        result.skipped[IX_NO_BENCHMARK] += 1
        return None
    # AgentX rows give mean/percentile interactivity only; fixed-length rows give the median.
    interactivity = as_float(row.get("median_intvty"))
    if interactivity is None:
        interactivity = as_float(row.get("mean_intvty"))
    total = as_float(row.get("total_tput_tps"))
    framework = str(row.get("framework") or "").strip()
    precision = str(row.get("precision") or "").strip()
    conc = as_count(row.get("conc"))
    tp, ep = as_count(row.get("tp")), as_count(row.get("ep"))
    system = f"{hw} {framework} {precision} tp{tp or '?'} ep{ep or '?'} conc{conc or '?'}"
    return BenchmarkRecord(
        suite=SUITE, round=round_, result_id=f"{round_ or 'inferencex'}#{i}", row_ref=str(i),
        submitter="SemiAnalysis", system=system, accelerator_text=hw, accelerator_count=gpus,
        nodes=1, model=model, accuracy_target="", scenario=scenario, division="n/a",
        availability="available", inferred=False, metric="throughput",
        value=total if total else per_gpu * gpus, units="Tokens/s",
        interactivity_tok_s_user=interactivity, isl=isl, osl=osl, concurrency=conc,
        precision=precision, framework=framework, value_per_accelerator=per_gpu)
