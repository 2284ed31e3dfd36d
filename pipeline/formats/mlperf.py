"""Read MLPerf Inference results summaries: v5.1 `summary_results.json` and v6.1 `summary.json`.

The two rounds use different schemas (see ../shared/data/real/mlperf-inference/README.md): v5.1 is
an array with `Performance_Result`, `Submitter`, `a#`; v6.1 is an object keyed "0", "1", … with
`Result`, `Organization`, `accelerators_per_node` and a new `total_accelerators`. The schema is
detected from the data, not the file name, because copies get renamed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from pipeline.formats.benchmark_record import (
    NO_BENCHMARK,
    NO_OBJECT,
    NO_VALUE,
    BenchmarkRecord,
    ReadResult,
)
from pipeline.formats.numbers import as_count, as_flag, as_float

SUITE = "MLPerf Inference"

# Latency bounds a Server/Interactive run had to meet, from the rounds' mlperf_log_summary.txt
# files (the summaries do not carry them): (model, scenario) -> (TTFT ms, TPOT ms).
LATENCY_BOUNDS_MS: dict[tuple[str, str], tuple[float, float]] = {
    ("llama2-70b", "Server"): (2000.0, 200.0),
    ("llama2-70b", "Interactive"): (450.0, 40.0),
    ("deepseek-r1", "Server"): (2000.0, 80.0),
    ("llama3.1-405b", "Server"): (6000.0, 175.0),
}

# The accuracy target of benchmarks whose name carries none: MLCommons' submission checker
# (mlcommons/inference, tools/submission/submission_checker.py, `accuracy-target`) sets each of
# these at 99 % of the reference model's score. Names with a -99 or -99.9 suffix say it.
SINGLE_TARGETS = {"deepseek-r1": "99", "llama3.1-405b": "99", "llama3.1-8b": "99",
                  "mixtral-8x7b": "99"}

_TARGET = re.compile(r"^(?P<model>.+?)-(?P<target>99(?:\.9)?)$")


class FormatError(ValueError):
    """The bytes are not a file of the expected format; the message says what was found."""


def split_accuracy_target(benchmark: str) -> tuple[str, str]:
    """Return (model, accuracy target) of an MLPerf benchmark name: `llama2-70b-99.9` → 99.9,
    `deepseek-r1` → 99 (SINGLE_TARGETS), a name we know no target of → empty."""
    match = _TARGET.match(benchmark)
    return (match["model"], match["target"]) if match else (
        benchmark, SINGLE_TARGETS.get(benchmark, ""))


def detect_schema(doc: object) -> str:
    """Return `mlperf-v5.1-array` or `mlperf-v6.1-object` for a parsed summary; raise FormatError."""
    if isinstance(doc, list):
        first = next((r for r in doc if isinstance(r, Mapping)), None)
        if first is not None and "Performance_Result" in first:
            return "mlperf-v5.1-array"
        raise FormatError("a JSON array, but its rows have no `Performance_Result`: "
                          "not an MLPerf v5.1 summary_results.json")
    if isinstance(doc, Mapping):
        first = next(iter(doc.values()), None)
        if all(str(k).isdigit() for k in doc) and isinstance(first, Mapping) and "Result" in first:
            return "mlperf-v6.1-object"
        raise FormatError("a JSON object, but not keyed \"0\", \"1\", … with `Result` rows: "
                          "not an MLPerf v6.1 summary.json")
    raise FormatError(f"expected a JSON array or object, found {type(doc).__name__}")


def read_mlperf_summary(data: bytes) -> ReadResult:
    """Return the results of an MLPerf Inference summary (either schema) and what was not read."""
    try:
        doc = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise FormatError(f"not valid JSON: {err}") from err
    schema = detect_schema(doc)
    result = ReadResult(schema=schema)
    if schema == "mlperf-v5.1-array":
        rows = [(str(i), str(i), row) for i, row in enumerate(doc)]
        fields = _V51
    else:
        rows = [(str(k), str(k), row) for k, row in doc.items()]
        fields = _V61
    result.total_rows = len(rows)
    for ref, key, row in rows:
        record = _record(row, ref, key, fields, result)
        if record is not None:
            result.records.append(record)
    return result


# Field names per schema: what we call it -> what the round calls it.
_V51 = {"id": "ID", "submitter": "Submitter", "division": "Category", "system": "System",
        "benchmark": "Model", "result": "Performance_Result", "units": "Performance_Units",
        "nodes": "Nodes", "per_node": "a#", "total": None, "accelerator": "Accelerator",
        "framework": "Software", "round": "version"}
_V61 = {"id": None, "submitter": "Organization", "division": "Division", "system": "SystemName",
        "benchmark": "MlperfModel", "result": "Result", "units": "Units",
        "nodes": "number_of_nodes", "per_node": "accelerators_per_node",
        "total": "total_accelerators", "accelerator": "accelerator_model_name",
        "framework": "framework", "round": "version"}


def _record(row: object, ref: str, key: str, f: dict[str, str | None],
            result: ReadResult) -> BenchmarkRecord | None:
    if not isinstance(row, Mapping):
        result.skipped[NO_OBJECT] += 1
        return None
    accelerator = str(row.get(f["accelerator"]) or "").strip()
    if not accelerator:
        result.skipped["no accelerator named (CPU-only system)"] += 1
        return None
    value = as_float(row.get(f["result"]))
    units = str(row.get(f["units"]) or "").strip()
    if value is None or value <= 0 or not units:
        result.skipped[NO_VALUE] += 1
        return None
    nodes = as_count(row.get(f["nodes"])) or 1
    per_node = as_count(row.get(f["per_node"]))
    total = as_count(row.get(f["total"])) if f["total"] else None
    # A missing count is left for tables/hardware.py to count, once it knows whether the row is
    # on an accelerator we follow (three Intel Arc rows of v5.1 give none).
    count = total or (per_node * nodes if per_node else None)
    benchmark = str(row.get(f["benchmark"]) or row.get("Model") or "").strip()
    scenario = str(row.get("Scenario") or "").strip()
    if not benchmark or not scenario:
        result.skipped[NO_BENCHMARK] += 1
        return None
    model, target = split_accuracy_target(benchmark)
    power_w, energy_mj = _power(row)
    ttft, tpot = LATENCY_BOUNDS_MS.get((model, scenario), (None, None))
    round_ = str(row.get(f["round"]) or "").strip()
    result_id = str(row.get(f["id"]) or "").strip() if f["id"] else ""
    return BenchmarkRecord(
        suite=SUITE, round=round_, result_id=result_id or f"{round_ or 'mlperf'}#{key}",
        row_ref=ref, submitter=str(row.get(f["submitter"]) or "").strip(),
        system=str(row.get(f["system"]) or "").strip(), accelerator_text=accelerator,
        accelerator_count=count, nodes=nodes, model=model, accuracy_target=target,
        scenario=scenario, division=str(row.get(f["division"]) or "").strip().lower(),
        availability=str(row.get("Availability") or "").strip().lower(),
        inferred=bool(as_flag(row.get("inferred"))),
        metric="latency" if units.lower().startswith("latency") else "throughput",
        value=value, units=units, power_w=power_w, energy_mj_per_query=energy_mj,
        ttft_bound_ms=ttft, tpot_bound_ms=tpot,
        precision=str(row.get("weight_data_types") or "").strip(),
        framework=str(row.get(f["framework"]) or "").strip(),
        platform=str(row.get("Platform") or "").strip(),
        details_url=result_url(str(row.get("Details") or "").strip(),
                               str(row.get("Location") or "").strip()))


def result_url(details: str, location: str) -> str:
    """Return the page of one result: the system's `Details` folder, down to the result's own
    folder when `Location` (`closed/AMD/results/<system>/llama2-70b-99/Interactive`) lies under it.

    v5.1 `Details` names the system's results folder, shared by all its results; `Location` is
    the repository path of the one result."""
    tree = details.split("/tree/", 1)
    if len(tree) == 2 and "/" in tree[1]:
        folder = tree[1].split("/", 1)[1]  # after the branch name
        if location.startswith(folder + "/"):
            return details + location[len(folder):]
    return details


def _power(row: Mapping) -> tuple[float | None, float | None]:
    """Return (watts, millijoules per query): v5.1 reports power for Offline/Server runs and
    energy per query for edge single/multi-stream runs, in the same field."""
    if not as_flag(row.get("has_power")):
        return None, None
    amount = as_float(row.get("Power_Result"))
    units = str(row.get("Power_Units") or "").strip().lower()
    if amount is None:
        return None, None
    if units in ("watts", "w"):
        return amount, None
    if units in ("millijoules", "mj"):
        return None, amount
    return None, None
