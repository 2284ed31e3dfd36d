"""Pure: a catalogue's price history, one row per price period, and its update by one snapshot.

A period is one price of one key (provider, the catalogue's provider id, model, meter, cache
lifetime, context band, mode, daily UTC window, the dates the catalogue itself gives) from the
first snapshot that showed it (`first_seen`) to the first that no longer did (`gone_seen`,
empty while it holds). A snapshot that changes nothing changes no row, so the history grows
with changes, not with days, and its CSV diffs line by line. USD per million tokens; 0 is free.
"""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pipeline.formats.price_map import ImportedPrice
from pipeline.models.catalogues import HeldPrice
from pipeline.models.ids import ID_MAX_LENGTH, ID_PATTERN, id_problem
from pipeline.normalize.providers import our_provider

KEY = ["provider", "catalogue_provider", "model", "meter", "ttl_minutes",
       "context_above_tokens", "mode", "window_utc", "from_date", "to_date"]
"""A price's key, every part as text (empty when the catalogue leaves it out)."""
COLUMNS = [*KEY, "usd_per_mtok", "first_seen", "gone_seen", "checked", "context_window_tokens",
           "commit", "dated_by"]
"""The history file's columns, in order. `context_window_tokens` is the model's as the newest
snapshot showing the price gave it (empty when it gave none): a fact about the model, not a
price, so it is kept up to date on the open periods rather than opening new ones. `commit`: the
catalogue repository's commit whose version first showed the price (a replayed history; empty
for a fetch). `dated_by`: what dates the period's start: `catalogue` (its own `from_date`),
`commit` (the committer date of `commit`, UTC) or `fetch` (the time our fetch saw it)."""
DATED_BY = ("catalogue", "commit", "fetch")
JUMP_FACTOR = 20.0
"""A price more than this many times above or below the one before is held back."""


SNAPSHOT_FORMAT = "%Y-%m-%dT%H:%MZ"
"""How the history writes a snapshot's time: UTC, to the minute."""


def snapshot_time(at: dt.datetime) -> str:
    """Return a snapshot's time as the history writes it (SNAPSHOT_FORMAT)."""
    return at.astimezone(dt.UTC).strftime(SNAPSHOT_FORMAT)


def seen_per_listing(history: pd.DataFrame, keys: list[str],
                     newest: bool = False) -> pd.Series:
    """Return the earliest (`newest`: the latest) `first_seen` of each `keys` group of
    `history`'s rows, indexed by `keys`. By one sort: pandas' groupby min of a text column runs
    Python per group, 0.3 s a call on models.dev's 20,000 periods against 0.06 s."""
    kept = history.sort_values("first_seen", kind="stable").drop_duplicates(
        keys, keep="last" if newest else "first")
    return kept.set_index(keys)["first_seen"]


def snapshot_table(prices: Iterable[ImportedPrice], providers: Mapping[str, str],
                   checked: dt.date) -> pd.DataFrame:
    """Return one row per key of a catalogue's prices: KEY, `usd_per_mtok`, `checked` (the
    price's own checked date, else the catalogue's) and `context_window_tokens`.

    Aliases: a catalogue may list one model under several entries (LiteLLM's `gpt-4o` and
    `openai/gpt-4o`), which map to one key. The rule: the entry under the model's own name wins;
    among the others, the first in the file."""
    rows = []
    ours: dict[str, str] = {}  # a snapshot names a few hundred providers in 10,000 prices
    for order, p in enumerate(prices):
        window = (f"{p.window_utc[0]:%H:%M}-{p.window_utc[1]:%H:%M}" if p.window_utc else "")
        provider = ours.get(p.provider)
        if provider is None:
            provider = ours[p.provider] = our_provider(p.provider, providers)
        rows.append((provider, p.provider, p.model, p.meter,
                     "" if p.ttl_minutes is None else str(p.ttl_minutes),
                     str(p.context_above_tokens), p.mode, window,
                     p.from_date.isoformat() if p.from_date else "",
                     p.to_date.isoformat() if p.to_date else "", float(p.usd_per_mtok),
                     (p.checked or checked).isoformat(),
                     "" if p.context_window_tokens is None else str(p.context_window_tokens),
                     not p.entry or p.entry == p.model, order))
    table = pd.DataFrame(rows, columns=[*KEY, "usd_per_mtok", "checked", "context_window_tokens",
                                        "own_name", "order"])
    table = table.sort_values(["own_name", "order"], ascending=[False, True], kind="stable")
    table = table.drop_duplicates(KEY).sort_values(KEY, kind="stable", ignore_index=True)
    return table[[*KEY, "usd_per_mtok", "checked", "context_window_tokens"]]


def empty_history() -> pd.DataFrame:
    """Return a history without rows."""
    return pd.DataFrame({c: pd.Series(dtype=float if c == "usd_per_mtok" else object)
                         for c in COLUMNS})


def history_csv(history: pd.DataFrame) -> bytes:
    """Return the history file: COLUMNS, sorted by key and first_seen, prices as Python writes
    them (the shortest text that reads back as the same number)."""
    ordered = history.sort_values([*KEY, "first_seen"], kind="stable")
    return ordered.to_csv(columns=COLUMNS, index=False, lineterminator="\n").encode("utf-8")


def read_history_csv(data: bytes) -> pd.DataFrame:
    """Return the history of `history_csv` bytes: every column text but the price."""
    table = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False)
    if "context_window_tokens" not in table.columns:  # written before the column was
        table["context_window_tokens"] = ""
    missing = [c for c in COLUMNS if c not in table.columns and c not in ("commit", "dated_by")]
    if missing:
        raise ValueError(f"not a price history: no column {', '.join(missing)}")
    if "commit" not in table.columns:  # written before histories were replayed from git
        table["commit"] = ""
    if "dated_by" not in table.columns:
        table["dated_by"] = ""
    unsaid = table["dated_by"] == ""
    table.loc[unsaid, "dated_by"] = np.where(table.loc[unsaid, "from_date"] != "", "catalogue",
                                             np.where(table.loc[unsaid, "commit"] != "",
                                                      "commit", "fetch"))
    prices = pd.to_numeric(table["usd_per_mtok"], errors="coerce")
    bad = table.index[~np.isfinite(prices.to_numpy(dtype=float)) | (prices < 0)]
    if len(bad):
        row = int(bad[0])
        raise ValueError(f"line {row + 2}: usd_per_mtok {table['usd_per_mtok'][row]!r} is not a "
                         "finite price of zero or more")
    table["usd_per_mtok"] = prices.astype(float)
    for column in ("provider", "catalogue_provider", "model"):
        # A pull request can change a history: an id in it is checked as a curated one is.
        ids = table[column]
        bad = table.index[~ids.str.fullmatch(ID_PATTERN) | (ids.str.len() > ID_MAX_LENGTH)]
        if len(bad):
            row = int(bad[0])
            raise ValueError(f"line {row + 2}: {column} {ids[row][:80]!r} is not an id: "
                             f"{id_problem(ids[row])}")
    # The commit reaches a link on every page that shows the move: a sha or nothing.
    bad = table.index[~table["commit"].str.fullmatch(r"([0-9a-f]{40})?")
                      | ~table["dated_by"].isin(DATED_BY)]
    if len(bad):
        row = int(bad[0])
        raise ValueError(f"line {row + 2}: commit {table['commit'][row][:80]!r} is not a 40-digit "
                         f"commit id, or dated_by {table['dated_by'][row][:20]!r} is not one of "
                         f"{', '.join(DATED_BY)}")
    return table[COLUMNS]


@dataclass(frozen=True)
class Update:
    """A history after one snapshot, what moved, and what was held back."""

    history: pd.DataFrame
    changes: pd.DataFrame
    """One row per move: `kind` (new, removed, cut, rise), KEY, `old` and `new` USD per Mtok
    (NaN for none), `at` (the snapshot's time)."""
    held: list[HeldPrice]
    problems: list[str]


def update_history(history: pd.DataFrame, snapshot: pd.DataFrame, at: dt.datetime,
                   held: Iterable[HeldPrice] = (),
                   confirmed: Iterable[tuple[str, str, str, float]] = (),
                   digest: str = "", commit: str = "") -> Update:
    """Return the history after `snapshot` (a snapshot_table) seen at `at`.

    A price new to a key opens a period, a key the snapshot lacks closes its period, a changed
    price does both. A change by more than JUMP_FACTOR either way is held back (a problem,
    and the old period stays open) until the next snapshot shows the same price again, and
    is taken then, at that snapshot (not back-dated to the one that first showed it: an
    edition built while it was held must not gain it on a later build); or, when an editor
    lists (provider, model, meter, price) as confirmed, it is taken at this snapshot. `digest`:
    of the snapshot's bytes; the same bytes again (a server without validators answering the
    same file) show nothing new and confirm nothing. `commit`: the repository's commit the
    snapshot is the version of, when replaying a catalogue's history (each opened period
    keeps it)."""
    stamp = snapshot_time(at)
    history = history.reset_index(drop=True)
    is_open = history["gone_seen"] == ""
    opened = history[is_open]
    both = opened.reset_index().merge(snapshot, on=KEY, how="outer", suffixes=("_old", ""),
                                      indicator=True)
    old, new = both["usd_per_mtok_old"].to_numpy(), both["usd_per_mtok"].to_numpy()
    present = both["_merge"] == "both"
    moved = present & (old != new)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where((old > 0) & (new > 0), np.maximum(new / old, old / new), 1.0)
    jump = moved & (ratio > JUMP_FACTOR)

    keys = [tuple(r) for r in both[KEY].itertuples(index=False)]
    waiting = {tuple(h.key): h for h in held}
    sure = {(p, m, meter, float(price)) for p, m, meter, price in confirmed}
    hold = np.zeros(len(both), dtype=bool)
    kept_held, problems = [], []
    for i in np.flatnonzero(jump.to_numpy()):
        key, price = keys[i], float(new[i])
        provider, model, meter = key[0], key[2], key[3]
        before = waiting.get(key)
        if (provider, model, meter, price) in sure:
            continue
        same_bytes = before is not None and digest != "" and before.snapshot_sha256 == digest
        if before is not None and before.usd_per_mtok == price and not same_bytes:
            continue  # shown twice: taken
        hold[i] = True
        kept_held.append(before if same_bytes and before.usd_per_mtok == price else HeldPrice(
            key=list(key), usd_per_mtok=price, was_usd_per_mtok=float(old[i]), first_seen=at,
            snapshot_sha256=digest))
        problems.append(f"{provider} {model} {meter}: {old[i]:g} → {price:g} USD per Mtok is a "
                        f"{ratio[i]:.0f}-fold move; held back until the next snapshot shows it "
                        "again, or an editor confirms it in sources/catalogues.yaml")

    # Context windows: an open period still shown takes the newest snapshot's, when it gives one.
    window = both["context_window_tokens"].fillna("")
    refresh = present & ~moved & (window != "") & (window != both["context_window_tokens_old"])
    history.loc[both.loc[refresh, "index"].astype(int).to_numpy(),
                "context_window_tokens"] = window[refresh].to_numpy()
    closing = ((both["_merge"] == "left_only") | moved) & ~hold
    opening = ((both["_merge"] == "right_only") | moved) & ~hold
    history.loc[both.loc[closing, "index"].astype(int).to_numpy(), "gone_seen"] = stamp
    added = both.loc[opening, [*KEY, "usd_per_mtok", "checked", "context_window_tokens"]].assign(
        first_seen=stamp, gone_seen="", commit=commit)
    added["dated_by"] = np.where(added["from_date"] != "", "catalogue",
                                 "commit" if commit else "fetch") if len(added) else ""
    history = pd.concat([history, added[COLUMNS]], ignore_index=True) if len(added) else history
    with np.errstate(invalid="ignore"):  # NaN on one side: new or removed, decided first
        kind = np.where(both["_merge"] == "right_only", "new",
                        np.where(both["_merge"] == "left_only", "removed",
                                 np.where(new < old, "cut", "rise")))
    moving = (closing | opening).to_numpy()
    changes = both.loc[moving, KEY].assign(
        kind=kind[moving], old=old[moving], new=new[moving],
        at=stamp)
    return Update(history[COLUMNS], changes.reset_index(drop=True), kept_held, problems)


def history_as_of(history: pd.DataFrame, stamp: str) -> pd.DataFrame:
    """Return the history as it stood after the snapshot of `stamp` (SNAPSHOT_FORMAT): the
    periods opened later dropped, those closed later open again. A replay stopped between
    writing a history and the log of the commits it read goes back to the log's last one."""
    kept = history[history["first_seen"] <= stamp].copy()
    kept.loc[kept["gone_seen"] > stamp, "gone_seen"] = ""
    return kept.reset_index(drop=True)


def prices_in_force(history: pd.DataFrame) -> int:
    """Return how many prices the history holds now (periods not ended)."""
    return int((history["gone_seen"] == "").sum())


def base_prices(history: pd.DataFrame, meters: Collection[str]) -> pd.DataFrame:
    """Return the periods of `meters` at a model's base price: realtime, all day, the base
    context band, the default cache lifetime. Where two of the catalogue's own providers are
    one company for us (gemini, vertex_ai), the first in key order stands for it, as on the
    Market page, rather than a mix of both."""
    h = history[history["meter"].isin(list(meters)) & (history["context_above_tokens"] == "0")
                & (history["mode"] == "realtime") & (history["window_utc"] == "")
                & history["ttl_minutes"].isin(["", "5"])]
    first = h[["provider", "model", "catalogue_provider"]].sort_values(
        "catalogue_provider", kind="stable").drop_duplicates(["provider", "model"])
    return h.merge(first, on=["provider", "model", "catalogue_provider"])


CHANGE_COLUMNS = ("catalogue", *KEY, "kind", "old_usd_per_mtok", "new_usd_per_mtok", "at")
"""The columns of `data/changes.csv`."""


def history_changes(history: pd.DataFrame, catalogue: str,
                    whole_since: dt.datetime | None = None) -> pd.DataFrame:
    """Return every move a history records between its successive snapshots, in time order:
    a price that appeared (`new`), went (`removed`), or changed (`cut`, `rise`: one period
    ending where the next of its key begins). What the first snapshot showed, and the first
    snapshot of the whole catalogue (`whole_since`), is where the history starts, not a move;
    a price back after a gap is a move, whenever it came back."""
    if history.empty:
        return pd.DataFrame(columns=list(CHANGE_COLUMNS))
    start = max(history["first_seen"].min(),
                snapshot_time(whole_since) if whole_since else "")
    h = history.sort_values([*KEY, "first_seen"], kind="stable", ignore_index=True)
    same = (h[KEY].shift(-1) == h[KEY]).all(axis=1)
    # An open period has no `gone_seen` for a next one's `first_seen` (never empty) to meet.
    following = same & (h["first_seen"].shift(-1) == h["gone_seen"])
    nxt = h.shift(-1)
    changed = h[following].assign(
        old_usd_per_mtok=h.loc[following, "usd_per_mtok"],
        new_usd_per_mtok=nxt.loc[following, "usd_per_mtok"], at=h.loc[following, "gone_seen"])
    changed["kind"] = np.where(changed["new_usd_per_mtok"] < changed["old_usd_per_mtok"],
                               "cut", "rise")
    preceded = following.shift(1, fill_value=False)
    # A key back after a gap is a move whenever it came back: it was seen before.
    returned = same.shift(1, fill_value=False) & ~preceded
    new = h[~preceded & ((h["first_seen"] > start) | returned)].assign(
        kind="new", old_usd_per_mtok=np.nan, new_usd_per_mtok=lambda t: t["usd_per_mtok"],
        at=lambda t: t["first_seen"])
    removed = h[(h["gone_seen"] != "") & ~following].assign(
        kind="removed", old_usd_per_mtok=lambda t: t["usd_per_mtok"], new_usd_per_mtok=np.nan,
        at=lambda t: t["gone_seen"])
    moves = pd.concat([changed, new, removed], ignore_index=True).assign(catalogue=catalogue)
    return moves.sort_values(["at", *KEY], kind="stable", ignore_index=True)[list(CHANGE_COLUMNS)]


def catalogue_changes(histories: Mapping[str, pd.DataFrame],
                      whole_since: Mapping[str, dt.datetime | None]) -> pd.DataFrame:
    """Return the moves of several catalogues' histories (`history_changes`, by catalogue id),
    in time order; `whole_since`: each one's first whole snapshot, where it has one."""
    moves = [history_changes(h, c, whole_since.get(c)) for c, h in histories.items()]
    if not moves:
        return pd.DataFrame(columns=list(CHANGE_COLUMNS))
    return pd.concat(moves, ignore_index=True).sort_values(
        ["at", "catalogue"], kind="stable", ignore_index=True)


def day_changes(changes: pd.DataFrame) -> pd.DataFrame:
    """Return `changes` with the moves of one price within one UTC day said once: where a price
    was listed and withdrawn, or withdrawn and listed again, on the same day (LiteLLM's map
    dropped and restored claude-3-5-sonnet-20241022 within 2026-03-12), one row from the price
    before the day's first move to the price after its last, at the last. Its kind is that of
    a single move when the day's ends differ (`cut`, `rise`, `new`, `removed`), else
    `relisted` (withdrawn, then back) or `withdrawn` (listed, then gone). In time order."""
    if changes.empty:
        return changes
    day = changes["at"].str[:10].rename("day")
    keys = [day, *(changes[k] for k in ("catalogue", *KEY))]
    grouped = changes.groupby(keys, sort=False, dropna=False)
    first, last = grouped.head(1), grouped.tail(1)
    # Rows of one group share the keys: align the first move of each with its last.
    first = first.set_index(keys=[first["at"].str[:10], *(first[k] for k in ("catalogue", *KEY))])
    out = last.set_index(keys=[last["at"].str[:10], *(last[k] for k in ("catalogue", *KEY))])
    old = first["old_usd_per_mtok"].reindex(out.index).to_numpy(dtype=float)
    new = out["new_usd_per_mtok"].to_numpy(dtype=float)
    several = (grouped.size().reindex(out.index) > 1).to_numpy()
    kind = np.select(
        [np.isnan(old) & np.isnan(new), np.isnan(old), np.isnan(new), old == new, new < old],
        ["withdrawn", "new", "removed", "relisted", "cut"], "rise")
    out = out.assign(old_usd_per_mtok=old, kind=np.where(several, kind, out["kind"].to_numpy()))
    return out.reset_index(drop=True).sort_values("at", kind="stable", ignore_index=True)[
        list(changes.columns)]
