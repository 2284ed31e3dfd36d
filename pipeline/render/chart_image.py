"""A chart's drawing, drawn already or still being drawn, and what draws one (`ChartDrawer`).

Nothing in the build needs a drawing's bytes until the files are written out: pages only name a
chart's path, and its CSV and alt text come from the numbers, not the picture. So the stages hand
their drawing functions to a `ChartDrawer`, and get back a `ChartImage`: the bytes once asked for
(`result`), waiting for the drawing only then. It pickles as its bytes, so a kept value holding
one saves what was drawn. The build draws in worker processes (orchestrate/chart_workers.py).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol

from pipeline.problems import BuildError

WORKER_DIED = ("a chart-drawing worker died before it finished (out of memory, killed, or it "
               "could not start); nothing was written")


class ChartImage:
    """The result of one drawing: ready, or being drawn by a worker.

    `then`, if given, is called once with the result when it is first asked for, in the caller's
    process (ChartCache keeps new drawings that way)."""

    def __init__(self, future: Future | None = None, value: Any = None,
                 then: Callable[[Any], None] | None = None) -> None:
        self._future = future
        self._value = value
        self._then = then

    def result(self) -> Any:
        if self._future is not None:
            try:
                self._value = self._future.result()
            except BrokenProcessPool:
                raise BuildError(WORKER_DIED) from None
            self._future = None
            if self._then is not None:
                self._then(self._value)
                self._then = None
        return self._value

    def __eq__(self, other: object) -> bool:
        # Two drawings are equal when they drew the same bytes, however they got them.
        return isinstance(other, ChartImage) and self.result() == other.result()

    def __hash__(self) -> int:
        return hash(self.result())

    def __reduce__(self):
        # Pickled as what was drawn: a copy needs no worker.
        return ready, (self.result(),)


class ChartDrawer(Protocol):
    """What draws charts for the stages: in this process (`IN_PROCESS`), or in the build's worker
    processes (orchestrate/chart_workers.py)."""

    def submit(self, fn: Callable[..., Any], *args: Any,
               then: Callable[[Any], None] | None = None) -> ChartImage:
        """Return the drawing of `fn(*args)`; `then(result)` is called once it is drawn.
        `fn` and `args` must pickle (module-level functions, plain data)."""
        ...


class _Now:
    def submit(self, fn: Callable[..., Any], *args: Any,
               then: Callable[[Any], None] | None = None) -> ChartImage:
        value = fn(*args)
        if then is not None:
            then(value)
        return ChartImage(value=value)


IN_PROCESS: ChartDrawer = _Now()
"""ChartDrawer each chart right away, in this process."""


def finished(value: Any) -> Any:
    """Return `value`, or what it drew if it is a drawing (waiting for it if need be)."""
    return value.result() if isinstance(value, ChartImage) else value


def ready(value: Any) -> ChartImage:
    """Return a drawing that is already drawn (read from a cache)."""
    return ChartImage(value=value)
