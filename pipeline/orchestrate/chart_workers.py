"""The chart workers: charts drawn in forked processes while the rest of the build goes on.

matplotlib takes about 0.3 s to import and 0.05–0.15 s a chart. So the build starts a `ChartWorkers`
first thing, forked while the process is still small, and each worker draws the charts the build
hands over, on the other cores. A build that draws every chart (`ready_to_draw`) has its workers
import matplotlib while the sources load; a build with its drawings kept leaves it to a worker's
first drawing: most such builds draw none, and a worker that imported it anyway spent 0.3–0.4 s of
a core on it and held up the end of a small build until it had (the tiny tree's second build:
0.34 s of 0.8 s). A cold build's drawings do wait on the import: importing at the first one made
the bundled sources' cold build 1.5 s slower.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Self

from pipeline.problems import BuildError
from pipeline.render.chart_image import IN_PROCESS, WORKER_DIED, ChartImage


def _start(parent: int, ready_to_draw: bool) -> None:
    # Ctrl-C reaches the whole process group: the build stops the workers as it unwinds, and an
    # idle worker would only print a KeyboardInterrupt traceback of its own.
    import os
    import signal
    import sys

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A build ended by a signal it does not catch (SIGTERM: a runner stopping a job, a test
    # stopping `brief serve`) never shuts its pool down; without this its idle workers would
    # wait for charts for ever, each holding matplotlib's memory. Linux only (prctl): elsewhere
    # they stay until killed.
    if sys.platform == "linux":
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)
        if os.getppid() != parent:  # the build ended before the line above took effect
            os._exit(0)
    if ready_to_draw:  # what every drawing needs, imported before the first chart arrives
        import importlib

        for module in ("matplotlib.figure", "matplotlib.backends.backend_agg",
                       "matplotlib.backends.backend_svg"):
            importlib.import_module(module)


def _ready() -> None:
    """A job that does nothing: submitting it makes the pool start its workers now."""


class ChartWorkers:
    """Runs drawing functions in `workers` forked processes; with 0 workers, right away.

    `ready_to_draw`: the workers import matplotlib now, not with their first drawings.

    Use it as a context manager: leaving it cancels what was not asked for and stops the
    workers, also when the build failed."""

    def __init__(self, workers: int, ready_to_draw: bool = True) -> None:
        self._pool: ProcessPoolExecutor | None = None
        if workers > 0:
            import multiprocessing
            import os

            # Fork, not spawn: a spawned worker would import the pipeline afresh. Forked now,
            # before the sources load, a worker copies a small process.
            try:
                self._pool = ProcessPoolExecutor(workers, multiprocessing.get_context("fork"),
                                                 initializer=_start,
                                                 initargs=(os.getpid(), ready_to_draw))
                self._pool.submit(_ready)
            except (OSError, NotImplementedError):
                # No POSIX semaphores here (a read-only /dev/shm): draw in this process.
                self.close()

    def submit(self, fn: Callable[..., Any], *args: Any,
               then: Callable[[Any], None] | None = None) -> ChartImage:
        """Return the drawing of `fn(*args)`: `fn` and `args` must pickle (module-level
        functions, plain data)."""
        if self._pool is None:
            return IN_PROCESS.submit(fn, *args, then=then)
        try:
            return ChartImage(self._pool.submit(fn, *args), then=then)
        except BrokenProcessPool:  # a worker died while earlier charts were being drawn
            raise BuildError(WORKER_DIED) from None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def workers_for(cold: bool) -> int:
    """Return how many workers a build should start: one per usable core (at most four) when it
    draws every chart, else one (most drawings are kept; one or two are new)."""
    import os

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(4, cores or 1)) if cold else 1
