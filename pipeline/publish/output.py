"""Write the built site aside and swap it in whole, so readers never see half a site.

mkdocs empties `site_dir` and writes in place even when it later fails (ARCHITECTURE.md), so it
builds into a temporary folder beside `public/`; on success the two are exchanged in one atomic
rename (Linux `renameat2(RENAME_EXCHANGE)`), and the old tree is deleted afterwards. A build killed
at any moment leaves either the old `public/` or the new one, plus a `.public-*` folder that the
next build removes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import fcntl
import hashlib
import os
import shutil
import signal
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from pipeline.disk_bodies import DiskBody
from pipeline.limits import MAX_DATA_FILE_BYTES, MAX_PAGE_BYTES, MAX_SITE_BYTES
from pipeline.problems import BuildError
from pipeline.render.chart_image import ChartImage, finished
from pipeline.render.shell_page import ShellPage

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _renameat2() -> object | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        return getattr(libc, "renameat2", None)
    except OSError:
        return None


def exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths; return False where the system cannot (caller falls back)."""
    fn = _renameat2()
    if fn is None:
        return False
    rc = fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)  # type: ignore[operator]
    if rc == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(a))


def scratch_prefix(out: Path) -> str:
    return f".{out.name}-"


@contextmanager
def build_lock(out: Path) -> Iterator[None]:
    """Hold an exclusive lock for one build at a time on `out`; clean what killed builds left."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.parent / f".{out.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for leftover in out.parent.glob(scratch_prefix(out) + "*"):
            shutil.rmtree(leftover, ignore_errors=True)
        yield


def scratch_dir(out: Path) -> Path:
    """Return a new empty folder beside `out` (same file system, so the swap is a rename)."""
    return Path(tempfile.mkdtemp(prefix=scratch_prefix(out), dir=out.parent))


def kill_point(stage: str) -> None:
    # For tests/test_build.py only: BRIEF_KILL_AT=<stage> makes the build SIGKILL itself at that
    # named moment, so a killed build is tested at each moment, not at a random one.
    if os.environ.get("BRIEF_KILL_AT") == stage:
        os.kill(os.getpid(), signal.SIGKILL)


def swap_in(built: Path, out: Path, scratch: Path) -> None:
    """Make `built` the new `out`; the old tree ends up in `scratch`, which the caller removes.
    An OSError names `out` (a mount point cannot be replaced: EBUSY)."""
    try:
        if out.exists() and not exchange(built, out):
            # No atomic exchange here (not Linux, or a file system without it): two renames,
            # with a short moment where `out` is missing.
            os.rename(out, scratch / "previous")
            os.rename(built, out)
        elif not out.exists():
            os.rename(built, out)
    except OSError as err:
        raise OSError(err.errno, f"{err.strerror}; the site is not replaced (is the folder "
                      "a mount point? build into a folder inside it)" if err.errno == errno.EBUSY
                      else err.strerror, str(out)) from err
    kill_point("after-swap")


def link_published(published: Path, target: Path, body: bytes) -> bool:
    """Hard-link the published file to `target` when it holds exactly `body`; return whether it
    did. On these disks writing is what costs: 1,500 files of 20 KB took a second to write and
    10 ms to read back, so comparing first is cheap. The new site then shares the old one's
    files, and the old tree's deletion only removes names. Not published yet, changed, on
    another file system, or with a second name elsewhere: False, and the caller writes.

    A published file's only name is in the site (the previous tree was deleted by the swap). One
    with another name shares its bytes with something outside the site (a site built by an older
    version linked theme files from the venv, and cache files once); linking it again would carry
    that sharing on, so it is written afresh instead, and the sharing ends with this build.
    `target`'s folder must exist."""
    return _link_if(published, target, lambda st: st.st_size == len(body)
                    and published.read_bytes() == body)


def _link_if(published: Path, target: Path, same: Callable[[os.stat_result], bool]) -> bool:
    """Hard-link `published` to `target` when it has one name and `same` says it holds the
    bytes; return whether it did (False on any OSError: the caller writes)."""
    try:
        st = published.stat()
        if st.st_nlink != 1 or not same(st):
            return False
        os.link(published, target)
    except OSError:
        return False
    return True


def body_bytes(body: bytes | DiskBody | ChartImage) -> bytes:
    """Return the bytes of a file of the site: read when on disk, waited for when being drawn."""
    return body.read() if isinstance(body, DiskBody) else finished(body)


def holds(body: bytes | DiskBody | ChartImage, digest: str) -> bool:
    """Are these the bytes of `digest`? (A DiskBody knows its digest; bytes are hashed.)"""
    if isinstance(body, DiskBody):
        return body.digest == digest
    body = finished(body)
    return isinstance(body, bytes) and hashlib.sha256(body).hexdigest() == digest


def published_state(path: Path, digest: str) -> list:
    """Return what the stamp records of a file published from a DiskBody: its digest and the
    metadata that tells whether it was touched since (as cache/stamp.py does for inputs, plus the
    inode's change time, which restoring a modification time does not set back).

    A build that fails after linking published files into its scratch folder moves their change
    time when the folder is removed; the next build then reads and compares them once."""
    return _state(path.stat(), digest)


def _state(st: os.stat_result, digest: str) -> list:
    return [digest, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


def link_unchanged(published: Path, target: Path, body: DiskBody, recorded: list | None) -> bool:
    """Hard-link the published file to `target` when the last build published `body`'s digest
    there and the file is as it left it (published_state; its only name); return whether it
    did."""
    if recorded is None or recorded[0] != body.digest:
        return False
    return _link_if(published, target, lambda st: _state(st, body.digest) == recorded)


def write_or_link(target: Path, body: bytes, published: Path | None) -> None:
    """Write a file of the site, or link the published one when it holds these very bytes (its
    folder must exist). Pages go through the page cache instead (cache/page_cache.py)."""
    if published is None or not link_published(published, target, body):
        target.write_bytes(body)


def refuse_oversized(files: Mapping[str, bytes | str | DiskBody | ChartImage | ShellPage]) -> None:
    """Raise BuildError for the first generated file over its limit (pipeline/limits.py:
    MAX_DATA_FILE_BYTES for a data file, MAX_PAGE_BYTES for the rest), naming it, its size and
    the limit. Kept data files (DiskBody) passed when they were made, and charts are small: the
    pages and data made in this build are what is weighed."""
    for path, body in files.items():
        if isinstance(body, ShellPage):
            body = body.body_html
        size = len(body.encode("utf-8")) if isinstance(body, str) else (
            len(body) if isinstance(body, bytes) else 0)
        data = path.startswith("data/")
        limit = MAX_DATA_FILE_BYTES if data else MAX_PAGE_BYTES
        if size > limit:
            raise BuildError(f"{path} would be {size:,} bytes, more than the {limit:,} a "
                             f"{'data file' if data else 'page'} may have (pipeline/limits.py); "
                             "the published site is left as it was")


def refuse_oversized_site(built: Path) -> None:
    """Raise BuildError when the site built in `built` is over MAX_SITE_BYTES, before it is
    swapped in."""
    total = sum(os.path.getsize(os.path.join(folder, name))
                for folder, _dirs, names in os.walk(built) for name in names)
    if total > MAX_SITE_BYTES:
        raise BuildError(f"the site would be {total:,} bytes, more than the {MAX_SITE_BYTES:,} it "
                         "may have (pipeline/limits.py); the published site is left as it was")
