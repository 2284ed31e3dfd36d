"""Shared fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REAL_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "real"


@pytest.fixture
def real_data() -> Path:
    """Return ../shared/data/real; skip when absent, fail when absent under CI=true."""
    if not REAL_DATA.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"real data missing at {REAL_DATA} (required when CI=true)")
        pytest.skip(f"real data not present at {REAL_DATA}")
    return REAL_DATA
