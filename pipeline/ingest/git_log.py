"""A catalogue's git repository, read with git's own plumbing: the commits that touched its
files (oldest first, along the first parent: what its main branch published), each commit's
changed blobs, and the blobs' bytes through one `git cat-file --batch` process. Never a
checkout: a version is read from the object store."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

NO_BLOB = "0" * 40
"""What git's raw diff gives as the blob of a deleted file."""
LINK_MODE = "120000"
"""The mode of a symbolic link."""


class GitError(Exception):
    """The folder is not a repository git can read, or lacks what was asked for."""


@dataclass(frozen=True)
class Change:
    """One file a commit added, changed or deleted (`blob` empty), against its first parent."""

    path: str
    blob: str
    link: bool = False
    """A symbolic link: the blob holds the path it points to."""


@dataclass(frozen=True)
class Commit:
    """One commit of the main line that touched the catalogue's files."""

    sha: str
    at: dt.datetime
    """Its committer date, in UTC."""
    subject: str
    changes: tuple[Change, ...]


def _git(git_dir: Path, *args: str, stdin: bytes | None = None) -> bytes:
    # No user or system configuration: a pager, an alias or a hook must not change what we read.
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    try:
        done = subprocess.run(["git", "-C", str(git_dir), "-c", "core.quotePath=false", *args],
                              input=stdin, capture_output=True, env=env, check=False)
    except OSError as err:
        raise GitError(f"git cannot run: {err.strerror}") from None
    if done.returncode:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(why[-1] if why else f"git {args[0]} failed")
    return done.stdout


def check_repository(git_dir: Path) -> bool:
    """Raise GitError unless `git_dir` is a git repository with commits; return whether it is a
    shallow clone (its history then starts at its first commit, not the catalogue's)."""
    if not git_dir.is_dir():
        raise GitError(f"{git_dir} is not a folder")
    try:
        inside = _git(git_dir, "rev-parse", "--is-inside-work-tree", "--is-bare-repository")
        top = _git(git_dir, "rev-parse", "--show-prefix").strip() if b"true" in inside.split(
            b"\n")[0] else b""
    except GitError:
        raise GitError(f"{git_dir} is not a git repository") from None
    if top:  # a folder inside a repository: its history is the enclosing repository's
        raise GitError(f"{git_dir} is inside a git repository, not its top folder")
    try:
        _git(git_dir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    except GitError:
        raise GitError(f"{git_dir} is a git repository without commits") from None
    return _git(git_dir, "rev-parse", "--is-shallow-repository").strip() == b"true"


def has_commit(git_dir: Path, sha: str) -> bool:
    """Return whether the repository holds commit `sha`."""
    try:
        _git(git_dir, "cat-file", "-e", f"{sha}^{{commit}}")
    except GitError:
        return False
    return True


def commits(git_dir: Path, paths: Sequence[str], after: str | None = None) -> list[Commit]:
    """Return the first-parent commits of HEAD that changed `paths` (git pathspecs), oldest
    first, after commit `after` (all of them when None), each with its changed files."""
    span = [f"{after}..HEAD"] if after else ["HEAD"]
    out = _git(git_dir, "log", "--reverse", "--first-parent", "-m", "--root", "--raw",
               "--no-renames", "--no-abbrev", "--format=%x01%H %ct %s", *span, "--", *paths)
    found: list[Commit] = []
    head: tuple[str, dt.datetime, str] | None = None
    changes: list[Change] = []
    for line in out.decode("utf-8", "replace").split("\n"):
        if line.startswith("\x01"):
            if head:
                found.append(Commit(*head, tuple(changes)))
            sha, seconds, *subject = line[1:].split(" ", 2)
            head = (sha, dt.datetime.fromtimestamp(int(seconds), dt.UTC),
                    (subject[0] if subject else "").strip())
            changes = []
        elif line.startswith(":") and "\t" in line:
            meta, path = line.split("\t", 1)
            fields = meta.split()
            blob = fields[3]
            gone = blob == NO_BLOB or fields[4] == "D"
            changes.append(Change(path, "" if gone else blob, fields[1] == LINK_MODE))
    if head:
        found.append(Commit(*head, tuple(changes)))
    return found


def tree(git_dir: Path, commit: str, paths: Sequence[str]) -> list[Change]:
    """Return the files under `paths` in `commit`'s tree, as changes from an empty one."""
    out = _git(git_dir, "ls-tree", "-r", "-z", "--full-tree", commit, "--", *paths)
    files = []
    for entry in out.split(b"\0"):
        if entry:
            meta, path = entry.split(b"\t", 1)
            mode, kind, blob = meta.split()[:3]
            if kind == b"blob":
                files.append(Change(path.decode("utf-8", "replace"), blob.decode(),
                                    mode.decode() == LINK_MODE))
    return files


class Blobs:
    """The bytes of blobs, read through one `git cat-file --batch` process (a context
    manager): thousands of versions in seconds, where a process per blob takes minutes."""

    def __init__(self, git_dir: Path) -> None:
        self._dir = git_dir
        self._proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Blobs:
        env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
        self._proc = subprocess.Popen(["git", "-C", str(self._dir), "cat-file", "--batch"],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._proc is not None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            self._proc.wait()

    def read(self, blob: str) -> bytes:
        """Return the bytes of `blob`; GitError when the repository lacks it."""
        return next(self.read_many([blob]))[1]

    def read_many(self, blobs: Sequence[str]) -> Iterator[tuple[str, bytes]]:
        """Yield (blob, bytes) for each of `blobs`, in order. They are asked for in batches
        that fit a pipe's buffer: a write that waits on git while git waits on our reading
        would never end."""
        proc = self._proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        for start in range(0, len(blobs), _BATCH):
            batch = blobs[start:start + _BATCH]
            proc.stdin.write(b"".join(f"{b}\n".encode() for b in batch))
            proc.stdin.flush()
            for blob in batch:
                header = proc.stdout.readline().split()
                if len(header) != 3:
                    raise GitError(f"blob {blob} is missing from the repository")
                data = proc.stdout.read(int(header[2]))
                proc.stdout.read(1)  # the newline after each object
                yield blob, data


_BATCH = 1000
"""Blob names per write: 41 bytes each, within the 64 KiB a pipe holds."""
