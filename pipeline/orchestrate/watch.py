"""The rebuilds of `brief serve` (issue 40): the folders a save in which changes the site, watched,
and one build at a time in a background thread, again after any save made while it ran.

Watching is watchfiles' (the watcher uvicorn reloads with: inotify on Linux, FSEvents on macOS,
its own polling only where a system has no events), which also groups the events of one save
(an editor writes, renames and touches within milliseconds) into one change. Each build is
`build_site`'s: built aside and swapped in whole, so the preview never serves half a site.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Generic, TypeVar

from pipeline.paths import SITE_DIR, SOURCES, TEMPLATES

T = TypeVar("T")

QUIET_MS = 50
"""A change is reported once the folders were quiet this long: one save, one build."""
GROUP_MS = 1600
"""The longest a stream of changes (a `git checkout`, a copied folder) is grouped before a build."""


def watched_folders(root: Path) -> list[Path]:
    """Return the folders whose files shape the site: the repository's `sources/`, and the
    templates and mkdocs project the site is rendered with; those that exist."""
    return [folder for folder in (root / SOURCES, TEMPLATES, SITE_DIR) if folder.is_dir()]


class Rebuilds(Generic[T]):
    """Runs `build` in one background thread each time a build is asked for (`want`), and once
    more when one was asked for while it ran, so no save is left unbuilt; hands each outcome
    to `done` (the result, or the exception the build raised), in that thread.

    A build that raises never stops the thread: the next save builds again."""

    def __init__(self, build: Callable[[], T],
                 done: Callable[[T | None, Exception | None], None]) -> None:
        self._build = build
        self._done = done
        self._wanted = threading.Event()
        self._stopping = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._thread = threading.Thread(target=self._run, name="brief-rebuilds", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def want(self) -> None:
        """Ask for a build: now when none runs, else right after the one under way."""
        self._wanted.set()

    def is_building(self) -> bool:
        """Is a build under way or asked for? False once the last one was handed to `done`."""
        return self._wanted.is_set() or not self._idle.is_set()

    def stop(self) -> None:
        """Stop after the build under way, if any (it is left to finish: a site half swapped
        in is not an option, and its chart workers stop with it)."""
        self._stopping.set()
        self._wanted.set()
        if self._thread.is_alive():
            self._thread.join()

    def build_now(self) -> None:
        """Build in this thread and hand the outcome to `done` (the first build, before
        `start`)."""
        self._idle.clear()
        self._wanted.clear()
        try:
            try:
                result = self._build()
            except Exception as err:  # a bad file, or a fault of ours: the server stays up
                self._done(None, err)
            else:
                self._done(result, None)
        except Exception:  # `done` itself failed (a closed terminal): the next save builds
            pass
        finally:
            self._idle.set()

    def _run(self) -> None:
        while True:
            self._wanted.wait()
            if self._stopping.is_set():
                return
            # `wanted` is cleared as the build starts: a save from now on asks for the next one.
            self.build_now()


def watch(folders: Iterable[Path], on_change: Callable[[], None],
          stop: threading.Event) -> threading.Thread:
    """Start a thread that calls `on_change` after each save under `folders` (editors' swap and
    backup files, `.git` and `__pycache__` aside: watchfiles' default filter), until `stop` is
    set; return it."""
    import watchfiles

    paths = [str(folder) for folder in folders]

    def run() -> None:
        # rust_timeout: how often the stop event is looked at while nothing changes.
        for _changes in watchfiles.watch(*paths, step=QUIET_MS, debounce=GROUP_MS,
                                         stop_event=stop, rust_timeout=500,
                                         raise_interrupt=False):
            on_change()

    thread = threading.Thread(target=run, name="brief-watch", daemon=True)
    thread.start()
    return thread
