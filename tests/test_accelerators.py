"""Free-text accelerator names → canonical names, with the bundled patterns."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.load.parse import read_model
from pipeline.models.hardware import Accelerator, AcceleratorsFile
from pipeline.normalize.accelerators import NameMatch, compiled_patterns, match_accelerator

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def patterns():
    sourced, problems = read_model(ROOT / "sources/hardware/accelerators.yaml",
                                   AcceleratorsFile, ROOT)
    assert not problems
    return compiled_patterns(sourced.model.accelerators)


@pytest.mark.parametrize("text, name", [
    ("NVIDIA H200-SXM-141GB", "H200"),
    ("Virtualized NVIDIA H200-SXM-141GB", "H200"),
    ("AMD Instinct MI325X 256GB HBM3e", "MI325X"),
    ("AMD Instinct MI325X 256GB HBM3E", "MI325X"),
    ("NVIDIA B200-SXM-180GB", "B200"),
    ("NVIDIA GB200", "GB200"),
    ("NVIDIA GB300", "GB300"),
    ("NVIDIA B300-SXM-270GB", "B300"),
    ("AMD Instinct MI355X 288GB HBM3e", "MI355X"),
    ("NVIDIA H100-SXM-80GB", "H100"),
    ("b200-dgxc", "B200"),
    ("mi355x", "MI355X"),
    ("h100-multinode", "H100"),
    ("Google TPU v7 (Ironwood)", "TPU v7"),
    # Different products that share a number are not folded in.
    ("NVIDIA GH200 Grace Hopper Superchip 144GB", None),
    ("NVIDIA H200-NVL-141GB", None),
    ("NVIDIA H100-NVL-94GB", None),
    ("NVIDIA RTX PRO 6000 Blackwell Server Edition", None),
])
def test_canonical_names(patterns, text, name):
    match = match_accelerator(text, patterns)
    assert match.canonical == name
    assert not match.is_heterogeneous


def test_heterogeneous_row_is_reported(patterns):
    text = "AMD Instinct MI300X 192GB HBM3 (x32), AMD Instinct MI325X 256GB HBM3e (x16)"
    match = match_accelerator(text, patterns)
    assert match.names == ("MI300X", "MI325X")
    assert match.is_heterogeneous and match.canonical is None


def test_names_in_order_of_first_appearance_whatever_the_pattern():
    # Z1's second pattern finds it earlier than its first: Z1 is named where it first appears,
    # before Y1, which the file lists first.
    accelerators = [Accelerator(name="Y1", vendor="v", patterns=["mid"], source_url="https://e.com"),
                    Accelerator(name="Z1", vendor="v", patterns=["zeta", "ALPHA"],
                                source_url="https://e.com")]
    match = match_accelerator("alpha mid zeta", compiled_patterns(accelerators))
    assert match == NameMatch("alpha mid zeta", ("Z1", "Y1"))
    assert match_accelerator("MID", compiled_patterns(accelerators)).canonical == "Y1"  # any case
    assert match_accelerator("none here", compiled_patterns(accelerators)).names == ()
