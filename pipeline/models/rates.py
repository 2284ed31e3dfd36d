"""The ECB reference rates as loaded: USD per unit of each currency on each working day (reading
them and converting at them is normalize/fx.py's)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field


@dataclass(frozen=True)
class RateTable:
    """USD per unit of each currency on each ECB working day, sorted by date."""

    days: dict[str, tuple[dt.date, ...]]
    usd_per_unit: dict[str, tuple[float, ...]]
    origin: str = field(default="", compare=False)
    """Where the rates came from (snapshot path or package), for the data tables."""
