"""Pure: the price figures entries state (their `claims`) against ours, from the price records
they cite (issue 3; moves, blends and bands: issue 50).

A claim is a price on a day, in US dollars or in its list's currency, or a price's move between
two days in per cent; of one meter's tier (window, context band, mode) or of a workload
profile's blend, computed as the Prices page computes it (tables/cost.py)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Collection, Mapping, Sequence

from pipeline.compose.numbers import money
from pipeline.models.entries import Claim
from pipeline.models.prices import PriceFile, WorkloadProfile
from pipeline.models.rates import RateTable
from pipeline.normalize.fx import RateNotFound, rate_on
from pipeline.problems import Problem
from pipeline.tables.cost import blended_per_mtok, record_at, tier_price

CLAIM_TOLERANCE = 0.02
"""How far a stated price may be from ours, as a share of ours: a rounded or converted figure."""
CHANGE_TOLERANCE_POINTS = 1.0
"""How far a stated move may be from ours, in percentage points: prose rounds to whole ones."""


def claimed_per_mtok(files: Mapping[str, PriceFile], profiles: Sequence[WorkloadProfile],
                     claim: Claim, day: dt.date) -> tuple[float, dt.date] | None:
    """Return our price per Mtok (list currency) of what `claim` names, in force at 12:00 UTC of
    `day`, with the day its record starts; None when the records have none."""
    plist = next((p for p in files[claim.provider].lists if p.currency == claim.currency), None) \
        if claim.provider in files else None
    at = dt.datetime.combine(day, dt.time(12), tzinfo=dt.UTC)
    record = plist and record_at(plist, claim.model, at)
    if plist is None or record is None:
        return None
    if claim.meter == "blend":
        profile = next(p for p in profiles if p.id == claim.profile)
        value = blended_per_mtok(plist, record, profile, at)
    else:
        band = claim.context_above_tokens
        value = tier_price(plist, record, claim.meter, claim.window, band + 1 if band else 0,
                           claim.mode)
    return None if value is None else (value, record.from_.date())


def price_gap(stated: float, ours: float, tolerance: float = CLAIM_TOLERANCE) -> str | None:
    """Return how a stated price differs from ours when by more than `tolerance` (2 %) of ours
    (`states 0.5 but our figure is 0.66 (-24.2%)`), or None when it is within it."""
    if ours != 0 and abs(stated - ours) / abs(ours) <= tolerance:
        return None
    diff = "" if ours == 0 else f" ({(stated - ours) / ours:+.1%})"
    return f"states {stated:g} but our figure is {ours:.6g}{diff}"


def _named(claim: Claim) -> str:
    """Return what a claim prices, in words: `deepseek deepseek-chat output price (USD list)`,
    `deepseek deepseek-chat chat-3-1 blend (USD list)`."""
    tier = ([f"in window {claim.window}"] if claim.window else []) + (
        [f"above {claim.context_above_tokens} tokens"] if claim.context_above_tokens else []) + (
        ["batch"] if claim.mode == "batch" else [])
    what = f"{claim.profile} blend" if claim.meter == "blend" else f"{claim.meter} price"
    return " ".join([claim.provider, claim.model, what, *tier, f"({claim.currency} list)"])


def entry_claim_problems(path: str, claims: Sequence[Claim], files: Mapping[str, PriceFile],
                         rates: RateTable, profiles: Sequence[WorkloadProfile],
                         line: Callable[[tuple], int | None] = lambda loc: None,
                         unread: Collection[str] = ()) -> list[Problem]:
    """Return an error for each claim of the entry at `path` that differs from our figure, or
    names a profile, a price or a rate we do not have; `line`: the line of a field's path;
    `unread`: the providers whose price files were refused, whose claims are not checked."""
    problems: list[Problem] = []

    def problem(i: int, field: str, message: str) -> None:
        problems.append(Problem(path, f"claims.{i}.{field}", message,
                                line=line(("claims", i, field))))

    known = [p.id for p in profiles]
    for i, claim in enumerate(claims):
        if claim.provider in unread:
            continue
        if claim.meter == "blend" and claim.profile not in known:
            problem(i, "profile", f"unknown profile {claim.profile!r}; editions.yaml has: "
                                  f"{', '.join(sorted(known))}")
            continue
        now = claimed_per_mtok(files, profiles, claim, claim.at)
        then = claimed_per_mtok(files, profiles, claim, claim.since) if claim.since else None
        missing = [d for d, v in ((claim.since, then), (claim.at, now)) if d and v is None]
        if missing:
            problem(i, "at" if missing[-1] == claim.at else "since",
                    f"no {_named(claim)} on {missing[-1].isoformat()} in sources/prices/")
            continue
        assert now is not None
        if claim.since is not None and claim.stated_change_percent is not None and then:
            if then[0] == 0:
                problem(i, "since", f"{_named(claim)} on {claim.since.isoformat()} is 0: "
                        "a move from nothing has no per cent; state the prices instead")
                continue
            ours = (now[0] / then[0] - 1) * 100
            stated = claim.stated_change_percent
            if abs(stated - ours) > CHANGE_TOLERANCE_POINTS:
                problem(i, "stated_change_percent", (
                    f"states {stated:+g}% but our figure is {ours:+.1f}% ({_named(claim)}: "
                    f"{money(then[0], claim.currency, computed=True)} on "
                    f"{claim.since.isoformat()} → {money(now[0], claim.currency, computed=True)}"
                    f" on {claim.at.isoformat()}); correct the figure in the prose and here"))
        else:
            in_usd = claim.stated_usd_per_mtok is not None
            field = "stated_usd_per_mtok" if in_usd else "stated_per_mtok"
            try:
                ours = now[0] * (rate_on(rates, claim.currency, now[1]).usd_per_unit if in_usd
                                 else 1.0)
            except RateNotFound:
                problem(i, field, f"no ECB rate of {claim.currency} on or before "
                        f"{now[1].isoformat()} to convert {_named(claim)}; state it in "
                        "`stated_per_mtok` instead")
                continue
            gap = price_gap(getattr(claim, field), ours)
            if gap:
                problem(i, field, f"{gap} ({_named(claim)} on {claim.at.isoformat()}"
                        + (f", in USD at the ECB rate of {now[1].isoformat()}"
                           if in_usd and claim.currency != "USD" else "")
                        + "); correct the figure in the prose and here, or its conversion")
    return problems
