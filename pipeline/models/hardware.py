"""Hardware sources: accelerators (`sources/hardware/accelerators.yaml`), what an hour of each costs
(`sources/hardware/costs.yaml`) and the index of benchmark files (`sources/benchmarks/index.yaml`)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Literal

from pydantic import Field, field_validator, model_validator

from pipeline.models.base import SourceModel
from pipeline.models.entries import HttpUrl

CostBasis = Literal["cloud_on_demand", "rental_contract", "owner_tco"]


class Accelerator(SourceModel):
    """One accelerator of the beat, with the free-text names publishers use for it."""

    name: str = Field(min_length=1, max_length=40)
    """Canonical name used in tables and charts: `H200`, `MI325X`, `TPU v7`."""
    vendor: str = Field(min_length=1)
    """Who makes it: `NVIDIA`, `AMD`, `Google`."""
    memory_gb: float | None = Field(default=None, gt=0)
    """On-package memory per accelerator in GB, as the vendor states it; empty when unknown."""
    power_w: float | None = Field(default=None, gt=0)
    """Board or module power (TGP/TBP) per accelerator in watts; empty when unknown."""
    patterns: list[str] = Field(min_length=1)
    """Regular expressions (case-insensitive, searched anywhere) that pick this accelerator out of
    a publisher's free text: `NVIDIA H200-SXM-141GB`, `h200-dgxc`. Each pattern must match only this
    accelerator: `(?<![a-z0-9])h200(?!-nvl)` keeps GH200 and H200 NVL out."""
    source_url: HttpUrl
    """The page the memory and power figures come from."""
    note: str | None = None
    """Anything a reader should know: variants folded in or left out."""

    @field_validator("patterns")
    @classmethod
    def _compiles(cls, patterns: list[str]) -> list[str]:
        for p in patterns:
            try:
                re.compile(p)
            except re.error as err:
                raise ValueError(f"pattern {p!r} is not a valid regular expression: {err}") from err
        return patterns


class AcceleratorsFile(SourceModel):
    """`sources/hardware/accelerators.yaml`."""

    accelerators: list[Accelerator] = Field(min_length=1)
    """Every accelerator the site names; a benchmark row naming another one is left out, counted."""

    @model_validator(mode="after")
    def _unique(self) -> AcceleratorsFile:
        names = [a.name for a in self.accelerators]
        if len(set(names)) != len(names):
            raise ValueError("an accelerator name appears twice")
        return self


class HourlyCost(SourceModel):
    """What one accelerator-hour costs on one basis, from one source, from one date."""

    accelerator: str
    """Canonical accelerator name, as in accelerators.yaml."""
    basis: CostBasis
    """`cloud_on_demand` (a cloud's list price), `rental_contract` (a term rental) or `owner_tco`
    (what owning and running it costs per hour, all in)."""
    scenario: str = ""
    """Which variant of the basis, when a source gives several: `hyperscaler`, `neocloud`,
    `3-year`. Shown beside the basis."""
    amount_per_hour: float = Field(gt=0)
    """Price of one accelerator for one hour, in `currency`. Never zero: a missing cost is left out."""
    currency: str = Field(default="USD", pattern=r"^[A-Z]{3}$")
    """ISO 4217 code of `amount_per_hour`."""
    date: dt.date
    """From when the cost applies (the source's date)."""
    checked: dt.date
    """When we last read the source."""
    source: str = Field(min_length=1)
    """Who published the figure: `SemiAnalysis InferenceX (constants.ts)`."""
    source_url: HttpUrl
    """Where the figure can be read."""
    placeholder: bool = False
    """True when the source itself marks the figure as an estimate (e.g. 1.2× a predecessor)."""
    note: str | None = None
    """How a placeholder was derived, or any caveat; required when `placeholder` is true."""

    @model_validator(mode="after")
    def _placeholder_note(self) -> HourlyCost:
        if self.placeholder and not self.note:
            raise ValueError("a placeholder cost needs a `note` saying how it was derived")
        return self


class CostsFile(SourceModel):
    """`sources/hardware/costs.yaml`."""

    costs: list[HourlyCost] = Field(min_length=1)
    """Hourly costs, several bases side by side."""


class BenchmarkFile(SourceModel):
    """One benchmark result file under `sources/benchmarks/`, and when its results became public."""

    path: str = Field(pattern=r"^[A-Za-z0-9._/-]+$")
    """File path relative to `sources/benchmarks/`."""
    suite: Literal["mlperf-inference", "inferencex"]
    """Which publisher's format: `mlperf-inference` (the MLPerf schema, v5.1 array or v6.1 object,
    is detected) or `inferencex`."""
    round: str = Field(min_length=1)
    """Round or release: `v5.1`, `v6.1`, `v2`."""
    published: dt.date | None
    """When the results were published; empty when not confirmed (then no edition cites them)."""
    source_url: HttpUrl
    """The publisher's copy of the results."""
    official: bool = True
    """False for results from forks or experiments: marked, never mixed with official ones."""
    note: str | None = None
    """What the file holds and what was left out."""


class BenchmarksIndex(SourceModel):
    """`sources/benchmarks/index.yaml`: every benchmark file, with its publication date."""

    files: list[BenchmarkFile] = Field(min_length=1)
    """The benchmark files, one entry each."""
