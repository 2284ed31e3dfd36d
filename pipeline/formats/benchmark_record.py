"""The record every benchmark adapter returns, and the count of rows it could not read."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass(frozen=True)
class BenchmarkRecord:
    """One published result, as the publisher gave it (accelerator still in its own words)."""

    suite: str
    """`MLPerf Inference` or `InferenceX`."""
    round: str
    """`v5.1`, `v6.1` …"""
    result_id: str
    """The publisher's id (`5.1-0069`) or, when the schema has none, the row's key in the file."""
    row_ref: str
    """Where the row is in its file, as a field path: `12` (array index) or `307` (object key)."""
    submitter: str
    system: str
    accelerator_text: str
    """The accelerator as the publisher wrote it: `NVIDIA H200-SXM-141GB`, `b200-dgxc`."""
    accelerator_count: int | None
    """Accelerators in the whole system under test (per node × nodes, or the total given); None
    when the row gives no whole number (tables/hardware.py leaves the row out, counted, if it
    is on an accelerator we follow)."""
    nodes: int
    model: str
    """Model without the accuracy target: `llama2-70b`."""
    accuracy_target: str
    """`99`, `99.9` or empty: MLPerf reports some results under both targets."""
    scenario: str
    """`Offline`, `Server`, `Interactive` (MLPerf); `1024/1024` or `agentic-coding` (InferenceX)."""
    division: str
    """`closed`, `open`, or `n/a` when the suite has no divisions."""
    availability: str
    """`available`, `preview`, `rdi`."""
    inferred: bool
    """MLPerf marks results derived from another scenario's run instead of measured."""
    metric: str
    """`throughput` or `latency`."""
    value: float
    units: str
    """`Tokens/s`, `Samples/s`, `Queries/s`, `Latency (ms)`."""
    power_w: float | None = None
    """System power during the run, in watts, when measured."""
    energy_mj_per_query: float | None = None
    """Energy per query in millijoules (MLPerf edge single/multi-stream power results)."""
    ttft_bound_ms: float | None = None
    tpot_bound_ms: float | None = None
    interactivity_tok_s_user: float | None = None
    """Tokens per second each user sees (1000 / TPOT ms), InferenceX."""
    isl: int | None = None
    osl: int | None = None
    concurrency: int | None = None
    precision: str = ""
    framework: str = ""
    details_url: str = ""
    """The publisher's page for this result, when the row gives one."""
    value_per_accelerator: float | None = None
    """Set by adapters whose publisher already divides by GPUs (InferenceX `tput_per_gpu`)."""
    platform: str = ""
    """The submitter's own name for the system, the same from round to round (MLPerf
    `Platform`: `GB200-NVL72_GB200-186GB_aarch64x72_TRT`), where the file gives one."""


# Why a row was not read that points at a defect in the publisher's file, rather than at a row we
# do not follow (a CPU-only system, an accelerator not in accelerators.yaml): only these are
# warnings (load/hardware.py); the rest are listed on the Hardware page.
NO_OBJECT = "row is not a JSON object"
NO_VALUE = "no readable result value or units"
NO_COUNT = "accelerator count missing or not a whole number"
NO_BENCHMARK = "model or scenario missing"
IX_NO_COUNT = "GPU count unreadable (`tp`, or prefill/decode GPUs)"
IX_NO_BENCHMARK = "model or scenario (isl/osl or scenario_type) missing"
DEFECTS = frozenset({NO_OBJECT, NO_VALUE, NO_COUNT, NO_BENCHMARK, IX_NO_COUNT, IX_NO_BENCHMARK})


def is_defect(reason: str) -> bool:
    """Does this reason for leaving a row out point at a defect in the publisher's file?"""
    return reason in DEFECTS


@dataclass
class ReadResult:
    """What an adapter read: records, and how many rows it could not read, by reason."""

    records: list[BenchmarkRecord] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    schema: str = ""
    """The schema detected: `mlperf-v5.1-array`, `mlperf-v6.1-object`, `inferencex-rows`."""
    total_rows: int = 0
    """Rows in the file, read or not."""
