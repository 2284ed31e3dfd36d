"""Pure: what a catalogue keeps beside its price history. The log of the commits a replay read
(`<id>.commits.csv`: each commit's subject line, the moves it made, what did not read), which
dates every move to the commit a reader can open; and the facts the catalogue gives about each
model (`<id>.models.csv`: name, family, release date, open weights), from its newest snapshot.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping

import pandas as pd

from pipeline.formats.price_map import ModelFacts
from pipeline.models.ids import ID_MAX_LENGTH, ID_PATTERN
from pipeline.normalize.model_identity import identity_key
from pipeline.normalize.providers import our_provider
from pipeline.tables.catalogue_history import CHANGE_COLUMNS

LOG_COLUMNS = ["commit", "at", "subject", "moves", "file", "problem"]
"""The commit log's columns: one row per commit read (`file` and `problem` empty when every
version read), and one more per file of that commit that did not read. `at`: the snapshot time
the history gives the commit (UTC, to the minute)."""
FACT_COLUMNS = ["provider", "catalogue_provider", "model", "name", "family", "release_date",
                "open_weights", "last_updated"]
"""The model facts' columns, every one text (empty where the catalogue does not say)."""


def empty_log() -> pd.DataFrame:
    """Return a commit log without rows."""
    return pd.DataFrame(columns=LOG_COLUMNS)


def read_log_csv(data: bytes) -> pd.DataFrame:
    """Return the commit log of `log_csv` bytes; ValueError naming the line of a bad row."""
    table = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False)
    missing = [c for c in LOG_COLUMNS if c not in table.columns]
    if missing:
        raise ValueError(f"not a commit log: no column {', '.join(missing)}")
    # A commit reaches a link on every page that shows its moves: 40 hex digits or nothing.
    bad = table.index[~table["commit"].str.fullmatch(r"[0-9a-f]{40}")
                      | ~table["at"].str.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\dZ")]
    if len(bad):
        row = int(bad[0])
        raise ValueError(f"line {row + 2}: commit {table['commit'][row][:80]!r} at "
                         f"{table['at'][row][:40]!r} is not a 40-digit commit id at a time "
                         "YYYY-MM-DDTHH:MMZ")
    return table[LOG_COLUMNS]


def log_csv(log: pd.DataFrame) -> bytes:
    """Return the commit log's file."""
    return log.to_csv(columns=LOG_COLUMNS, index=False, lineterminator="\n").encode("utf-8")


def commits_at(log: pd.DataFrame) -> pd.DataFrame:
    """Return one row per snapshot time of the log: `at`, `commit`, `subject` (the commit a
    move first seen at `at` came with)."""
    read = log[log["file"] == ""]
    return read.drop_duplicates("at", keep="last")[["at", "commit", "subject"]].reset_index(
        drop=True)


MOVE_COLUMNS = (*CHANGE_COLUMNS, "commit", "subject")
"""The columns of `data/changes.csv`: a move (tables/catalogue_history.CHANGE_COLUMNS) and the
commit that made it (`committed_moves`)."""


def committed_moves(changes: pd.DataFrame, logs: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Return `changes` (catalogue_history.catalogue_changes) with each move's `commit` and
    `subject`: those of the commit whose version of the catalogue first showed the move, by its
    catalogue and snapshot time (`commits_at` of `logs`, the commit logs by catalogue id); both
    empty where the catalogue has no log, or its log no commit at that time (a move our own
    fetch saw). In the order of `changes`."""
    read = [commits_at(log).assign(catalogue=catalogue) for catalogue, log in logs.items()]
    commits = (pd.concat(read, ignore_index=True) if read
               else pd.DataFrame(columns=["at", "commit", "subject", "catalogue"]))
    moves = changes.merge(commits, on=["catalogue", "at"], how="left", validate="many_to_one")
    moves[["commit", "subject"]] = moves[["commit", "subject"]].fillna("").astype(str)
    return moves[list(MOVE_COLUMNS)]


def facts_table(facts: Iterable[ModelFacts], providers: Mapping[str, str]) -> pd.DataFrame:
    """Return the facts of a snapshot as FACT_COLUMNS, one row per listing, sorted."""
    rows = [(our_provider(f.provider, providers), f.provider, f.model, f.name or "",
             f.family or "", f.release_date.isoformat() if f.release_date else "",
             "" if f.open_weights is None else ("yes" if f.open_weights else "no"),
             f.last_updated.isoformat() if f.last_updated else "") for f in facts]
    table = pd.DataFrame(rows, columns=FACT_COLUMNS).drop_duplicates(
        ["catalogue_provider", "model"])
    return table.sort_values(["provider", "catalogue_provider", "model"], kind="stable",
                             ignore_index=True)


def facts_csv(table: pd.DataFrame) -> bytes:
    """Return the model facts' file."""
    return table.to_csv(columns=FACT_COLUMNS, index=False, lineterminator="\n").encode("utf-8")


def read_facts_csv(data: bytes) -> pd.DataFrame:
    """Return the model facts of `facts_csv` bytes; ValueError naming the line of a bad row."""
    table = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False)
    missing = [c for c in FACT_COLUMNS if c not in table.columns]
    if missing:
        raise ValueError(f"not a model facts file: no column {', '.join(missing)}")
    ids = table[["provider", "catalogue_provider", "model"]]
    bad = table.index[~(ids.apply(lambda c: c.str.fullmatch(ID_PATTERN)
                                  & (c.str.len() <= ID_MAX_LENGTH)).all(axis=1))
                      | ~table["release_date"].str.fullmatch(r"(\d{4}-\d\d-\d\d)?")
                      | ~table["open_weights"].isin(["", "yes", "no"])]
    if len(bad):
        raise ValueError(f"line {int(bad[0]) + 2}: an id, release_date or open_weights that "
                         "does not read")
    return table[FACT_COLUMNS]


def open_weight_by_model(facts: Mapping[str, pd.DataFrame]) -> dict[str, bool]:
    """Return, by identity key (normalize/model_identity.py), whether the catalogues' facts say
    the model's weights are published: yes where every listing that says anything says yes."""
    said = [f[f["open_weights"] != ""] for f in facts.values()]
    said = [f for f in said if len(f)]
    if not said:
        return {}
    table = pd.concat(said, ignore_index=True)
    keys = table["model"].map(identity_key)
    return (table["open_weights"] == "yes").groupby(keys).all().to_dict()
