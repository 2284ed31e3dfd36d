"""Replay a catalogue's git history into its price history: each commit of its main line that
touched its files, oldest first, read and taken through the same checks a scheduled fetch
passes (ingest/snapshot.py), dated by the commit (UTC) where the catalogue states no date.

What was read is logged per commit in `<id>.commits.csv` beside the history (its subject line,
the moves it made, each version or file that did not read and why), so a second run starts
after the last commit logged and the site can link each move to its commit. The history and the
log are written whole at checkpoints, the history first; a run stopped between the two goes
back to the log's last commit (tables/catalogue_history.history_as_of), so a replay killed at
any moment leaves a whole earlier state.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from pipeline.ingest.catalogues import write_health
from pipeline.ingest.git_log import (
    Blobs,
    Change,
    Commit,
    GitError,
    check_repository,
    commits,
    has_commit,
    tree,
)
from pipeline.ingest.snapshot import held_now, take_snapshot
from pipeline.ingest.versions import Version, reader_for
from pipeline.models.catalogues import Catalogue, CatalogueHealth, CataloguesFile
from pipeline.paths import price_commits_path, price_facts_path, price_history_path
from pipeline.tables.catalogue_history import (
    empty_history,
    history_as_of,
    history_csv,
    prices_in_force,
    snapshot_time,
)
from pipeline.tables.catalogue_records import (
    LOG_COLUMNS,
    empty_log,
    facts_csv,
    facts_table,
    log_csv,
    read_log_csv,
)
from pipeline.whole_files import write_whole

SUBJECT_MAX = 200
"""A subject line is the catalogue's text, kept to this many characters."""


class ReplayRefused(Exception):
    """The replay cannot start: the reason, one line, for people."""


@dataclass
class ReplayRun:
    """How a replay went."""

    catalogue_id: str
    commits: int = 0
    """Commits read this run (each version of the catalogue's files)."""
    moves: int = 0
    unreadable: list[tuple[str, str, str]] = field(default_factory=list)
    """(commit, file, reason) of each version or file that did not read, or was held out."""
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    prices: int = 0


def read_log(path: Path) -> pd.DataFrame:
    """Return the commit log at `path`, empty when there is none."""
    if not path.is_file():
        return empty_log()
    try:
        return read_log_csv(path.read_bytes())
    except ValueError as err:
        raise ValueError(f"{path.name}: {err}") from None


def replay_history(root: Path, catalogues: CataloguesFile, catalogue: Catalogue, git_dir: Path,
                   histories: Mapping[str, pd.DataFrame], health: CatalogueHealth | None, *,
                   checkpoint_s: float = 30.0,
                   clock: Callable[[], float] = time.monotonic) -> ReplayRun:
    """Replay the commits of `git_dir` after the last one logged into the catalogue's history
    and log; ReplayRefused (nothing changed) when the catalogue has no repository, the folder
    is not one, or holds none of the catalogue's files."""
    start = clock()
    if catalogue.repository is None or not catalogue.history_files:
        raise ReplayRefused(f"{catalogue.id} has no repository and history_files in "
                            "sources/catalogues.yaml: there is no history to replay")
    reader = reader_for(catalogue)
    try:
        shallow = check_repository(git_dir)
    except GitError as err:
        raise ReplayRefused(str(err)) from None
    history_path = price_history_path(root, catalogue.id)
    log_path = price_commits_path(root, catalogue.id)
    try:
        log = read_log(log_path)
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as err:
        raise ReplayRefused(f"{log_path}: {err}") from None
    history = histories.get(catalogue.id)
    history = history if history is not None else empty_history()
    after = str(log["commit"].iloc[-1]) if len(log) else None
    if after is None and len(history):
        raise ReplayRefused(
            f"{history_path} holds snapshots our fetches took, and a replay starts a history at "
            f"the repository's first commit: move it aside to replay {catalogue.repository}")
    if after is not None and not has_commit(git_dir, after):
        raise ReplayRefused(f"{git_dir} does not hold commit {after[:12]}, the last one "
                            f"{log_path.name} logged: is it {catalogue.repository}?")
    run = ReplayRun(catalogue.id)
    if shallow:
        run.notes.append(f"{git_dir} is a shallow clone: the history starts at its first "
                         "commit, not the catalogue's")
    try:
        todo = commits(git_dir, catalogue.history_files, after)
    except GitError as err:
        raise ReplayRefused(f"{git_dir}: {err}") from None
    if after is None and not todo:
        raise ReplayRefused(f"{git_dir} holds no version of {', '.join(catalogue.history_files)}"
                            f": is it {catalogue.repository}?")
    if after is not None:
        stamp = str(log["at"].iloc[-1])
        fetched = history[(history["commit"] == "") & (history["first_seen"] > stamp)]
        if len(fetched):
            raise ReplayRefused(
                f"{history_path} holds snapshots our fetches took after {log_path.name}'s last "
                f"commit ({fetched['first_seen'].min()}): a replay cannot put older commits "
                "after them")
        # Stopped between the history's write and the log's: back to the log's last commit.
        # (The health, written between the two, may hold back a rise a later commit showed or
        # date its first whole snapshot by one: reading that commit again gives the same.)
        history = history_as_of(history, stamp)
    health = health or CatalogueHealth(catalogue_id=catalogue.id, url=str(catalogue.url))
    if after is None:
        # A history started afresh: what the health says of the one moved aside (its first
        # whole snapshot, its held prices) is not this history's.
        health = health.model_copy(update={"whole_since": None, "held": []})
    held = list(health.held)
    rows: list[dict[str, object]] = []
    written_at = clock()
    facts = None
    refused = False
    try:
        with Blobs(git_dir) as blobs:
            if after is not None:
                first, _, _ = reader.read(_contents(blobs, tree(git_dir, after,
                                                                catalogue.history_files)))
                facts = first.facts if first is not None else None
            for i, commit in enumerate(todo):
                # A fetch sees a minute's last version: commits of one minute are read as one.
                if i + 1 < len(todo) and snapshot_time(todo[i + 1].at) == snapshot_time(commit.at):
                    reader.stage(_contents(blobs, list(commit.changes)))
                    continue
                result, problems, moved = reader.read(_contents(blobs, list(commit.changes)),
                                                      commit.sha)
                facts = result.facts if result is not None and result.facts else facts
                run.commits += 1
                moves, why = 0, ""
                # Unmoved: taken again only while it may confirm a held jump, or follow a
                # snapshot the checks refused (as the next day's fetch would read the file).
                if result is not None and (moved or held or refused):
                    taken = take_snapshot(catalogues, catalogue, result, history, held, commit.at,
                                          digest=commit.sha, checked=commit.at.date(),
                                          commit=commit.sha)
                    refused = isinstance(taken, str)
                    if isinstance(taken, str):
                        why = taken
                    else:
                        history, held, moves = taken.history, taken.held, len(taken.changes)
                        if health.whole_since is None:
                            health = health.model_copy(update={"whole_since": commit.at})
                run.moves += moves
                rows.append(_log_row(commit, moves, "", why))
                if why:
                    run.unreadable.append((commit.sha, "", why))
                for path, reason in problems:
                    rows.append(_log_row(commit, 0, path, reason))
                    run.unreadable.append((commit.sha, path, reason))
                if clock() - written_at >= checkpoint_s:
                    log = _checkpoint(root, history_path, log_path, history, log, rows,
                                      health.model_copy(update={"held": held}))
                    rows, written_at = [], clock()
    except GitError as err:
        # A damaged clone: what was read up to the last checkpoint stays, whole.
        raise ReplayRefused(f"{git_dir}: {err}; the history keeps the commits logged before"
                            ) from None
    log = _checkpoint(root, history_path, log_path, history, log, rows,
                      health.model_copy(update={"held": held}))
    implausible = held_now(catalogues, histories, catalogue.id, history)
    # Each held listing named with the commit and file of the version that showed its price.
    period = ["catalogue_provider", "model", "meter", "first_seen"]
    implausible = implausible.merge(history[[*period, "commit"]].drop_duplicates(period),
                                    on=period, how="left").fillna({"commit": ""})

    last = todo[-1] if todo else None
    if last is not None:
        health = health.model_copy(update={
            "last_attempt": last.at, "last_success": last.at, "status": None,
            "consecutive_failures": 0, "last_error": None, "checked": last.at.date(),
            "prices": prices_in_force(history), "held": held,
            "problems": [f"{r.provider} {r.model} {r.meter}: {r.usd_per_mtok:g} USD per Mtok "
                         f"(commit {r.commit[:12]}, "
                         f"{reader.file_of(r.catalogue_provider, r.model, r.commit)}) held back as "
                         f"implausible, {r.cause}" for r in implausible.itertuples()]})
        write_health(root, health)
    if facts:
        write_whole(price_facts_path(root, catalogue.id),
                    facts_csv(facts_table(facts, catalogues.providers)), durable=True)
    run.prices = prices_in_force(history)
    run.seconds = clock() - start
    return run


def _contents(blobs: Blobs, changes: list[Change]) -> dict[str, Version | None]:
    """Return {path: its version, or None for a deleted file} of one commit's changes."""
    wanted = [c.blob for c in changes if c.blob]
    found = dict(blobs.read_many(wanted))
    return {c.path: Version(found[c.blob], c.link) if c.blob else None for c in changes}


def _log_row(commit: Commit, moves: int, path: str, problem: str) -> dict[str, object]:
    return {"commit": commit.sha, "at": snapshot_time(commit.at),
            "subject": commit.subject[:SUBJECT_MAX], "moves": str(moves), "file": path,
            "problem": problem[:300]}


def _checkpoint(root: Path, history_path: Path, log_path: Path, history: pd.DataFrame,
                log: pd.DataFrame, rows: list[dict[str, object]],
                health: CatalogueHealth) -> pd.DataFrame:
    """Write the history, the health (its held prices and first whole snapshot, which the
    next run goes on from), then the log with `rows` added, each whole; return the log."""
    if not rows:
        return log
    log = pd.concat([log, pd.DataFrame(rows, columns=LOG_COLUMNS)], ignore_index=True)
    write_whole(history_path, history_csv(history), durable=True)
    write_health(root, health)
    write_whole(log_path, log_csv(log), durable=True)
    return log

