"""Fixtures shared by the test files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REAL_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "real"


@pytest.fixture(scope="session")
def real_data() -> Path:
    """Return ../shared/data/real; skip without it, except under CI=true where it must exist."""
    if not REAL_DATA.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"real test data missing at {REAL_DATA} (CI=true requires it)")
        pytest.skip(f"real test data not found at {REAL_DATA}")
    return REAL_DATA
