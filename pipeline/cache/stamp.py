"""The stamp of the last good build: which inputs it was made from and what it left in the output.

A rebuild whose inputs and output are exactly as the last good build left them has nothing to do,
and finding that out must cost a small fraction of a build (issue 8: ≤ 0.05× a plain mkdocs build),
so this module imports nothing heavy: no pydantic, jinja2, mkdocs, pandas or matplotlib.

Like git's index, it compares file metadata (size, modification time in ns, inode), not contents:
any touch of an input makes the build run, and the build itself is then content-hashed page by page
(cache/page_cache.py). The inputs are the repository's `sources/`, the code (`pipeline/`), the
templates, the mkdocs project (`site/`), the versions of mkdocs and its theme, `today` and the
output's path; the output is every file under it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.paths import CACHE, CODE_DIRS, REPO, SOURCES, STAMPS, TEMPLATES
from pipeline.whole_files import write_whole


@dataclass(frozen=True)
class Code:
    """The checkout whose code shapes a build's output: the folders of it that do (`dirs`), and
    its templates."""

    root: Path = REPO
    dirs: tuple[str, ...] = tuple(d.relative_to(REPO).as_posix() for d in CODE_DIRS)

    @property
    def templates(self) -> Path:
        return self.root / TEMPLATES.relative_to(REPO)


CHECKOUT = Code()
"""The checkout this code runs from."""
VERSIONED = ("mkdocs", "mkdocs-material", "markdown", "jinja2", "pymdown-extensions",
             "matplotlib", "css-inline", "nh3", "pydantic", "pandas", "numpy", "pyyaml",
             "feedparser")
"""The libraries that read, compute, render and draw: an upgrade of one rebuilds."""
STAMP_VERSION = 2


def cache_dir(root: Path) -> Path | None:
    """Return the build cache folder of a repository (`.cache/`), or None when caching is off."""
    if os.environ.get("BRIEF_CACHE", "").lower() in ("0", "off", "no", "false"):
        return None
    return root / CACHE


REUSES = ("stamp", "load", "compose", "render", "charts", "publish", "bytecode")
"""What a build can reuse: the whole output (the stamp), parsed files, each store stage
(store.py), jinja2's compiled templates."""


def reuse_off() -> frozenset[str]:
    """Return the reuses `BRIEF_REUSE_OFF` (comma-separated, of REUSES) turns off: the build
    computes those afresh, and still keeps what it computed. For benchmarks/reuse.py, which
    measures what each reuse saves."""
    named = {name.strip() for name in os.environ.get("BRIEF_REUSE_OFF", "").split(",")}
    return frozenset(named & set(REUSES))


def _tree_signature(top: Path, digest: hashlib._Hash, skip: frozenset[str] = frozenset()) -> int:
    """Feed (path, size, mtime_ns, inode) of every file under `top` to `digest`; return the count."""
    count = 0
    stack = [top]
    while stack:
        folder = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except FileNotFoundError:
            continue
        for entry in entries:
            if entry.name in skip:
                continue
            if entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))
                continue
            st = entry.stat(follow_symlinks=False)
            digest.update(f"{entry.path}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}\n".encode())
            count += 1
    return count


def versions() -> str:
    """Return the installed version of each library of VERSIONED.

    Read off the names of the installed distributions' metadata folders
    (`mkdocs-1.6.1.dist-info`): importlib.metadata.version looked each up across sys.path,
    0.3 s a build."""
    wanted = {re.sub(r"[-_.]+", "_", name).lower(): name for name in VERSIONED}
    found: dict[str, str] = {}
    for folder in sys.path:
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        for entry in names:
            if entry.endswith(".dist-info") and "-" in entry:
                dist, version = entry[:-len(".dist-info")].rsplit("-", 1)
                found.setdefault(wanted.get(re.sub(r"[-_.]+", "_", dist).lower(), ""), version)
    return ",".join(f"{name}={found.get(name, '-')}" for name in VERSIONED)


def inputs_signature(root: Path, out: Path, today: dt.date, code: Code = CHECKOUT, *,
                     strict: bool = False) -> str:
    """Return a digest of everything a build reads: sources, code, site, versions, today, out,
    and whether warnings are errors (a strict build must not pass for a lenient one's)."""
    digest = hashlib.sha256(
        f"{STAMP_VERSION}\n{sys.version}\n{versions()}\n{root}\n{out}\n{today}\n"
        f"{'strict' if strict else ''}\n".encode())
    _tree_signature(root / SOURCES, digest)
    for name in code.dirs:
        _tree_signature(code.root / name, digest, skip=frozenset({"__pycache__"}))
    for var in ("BRIEF_CACHE",):
        digest.update(f"{var}={os.environ.get(var, '')}\n".encode())
    return digest.hexdigest()


def output_signature(out: Path) -> str:
    """Return a digest of the metadata of every file of a built site (empty string when absent)."""
    if not out.is_dir():
        return ""
    digest = hashlib.sha256()
    _tree_signature(out, digest)
    return digest.hexdigest()


@dataclass(frozen=True)
class Stamp:
    """What the last good build of an output was made from and what it left there."""

    inputs: str
    output: str
    editions: int
    files: int
    kept: dict[str, list] = field(default_factory=dict)
    """The files published from bytes kept on disk, by path: digest and metadata
    (publish/output.py published_state), so the next build can link them without reading."""
    warnings: list[dict] = field(default_factory=list)
    """The warnings about the sources (each a Problem's fields), which a build that has nothing
    to do repeats as the build that stamped it printed them."""


def _stamp_path(cache: Path, out: Path) -> Path:
    name = hashlib.sha256(str(out).encode()).hexdigest()[:16]
    return cache / STAMPS / f"{name}.json"


def read_stamp(cache: Path | None, out: Path) -> Stamp | None:
    """Return the stamp of the last good build into `out`, or None when there is none."""
    if cache is None:
        return None
    try:
        data = json.loads(_stamp_path(cache, out).read_bytes())
        return Stamp(**data)
    except (OSError, ValueError, TypeError):
        return None


def is_up_to_date(stamp: Stamp | None, inputs: str, out: Path) -> bool:
    """Is `out` exactly what a build of these inputs left? Then there is nothing to do."""
    return (stamp is not None and stamp.inputs == inputs and bool(stamp.output)
            and stamp.output == output_signature(out))


def write_stamp(cache: Path | None, out: Path, stamp: Stamp) -> None:
    """Record a good build (written aside and renamed, so a killed build leaves no half stamp)."""
    if cache is None:
        return
    path = _stamp_path(cache, out)
    try:
        write_whole(path, json.dumps(stamp.__dict__, allow_nan=False).encode("utf-8"))
    except OSError:
        pass  # a read-only cache: the next build cannot know it has nothing to do, and builds
