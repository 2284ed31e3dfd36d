"""What the preview adds while `brief serve` rebuilds on each save (issue 40): the state of the
last build, the script that reloads a page when a new build is in, and the page of problems
served in place of the site while the last build failed.

None of it is ever written into public/: the preview server adds it to what it serves.
"""

from __future__ import annotations

import html
import re
import threading
import time

RELOAD_PATH = "/__reload"
"""The Server-Sent Events stream of build ids that the reload script listens to."""


class LiveSite:
    """The last build of a live preview: its id (new at every build, good or failed) and, when it
    failed, its problems as the lines the terminal printed. Safe to share between threads."""

    def __init__(self) -> None:
        # Ids unique to this process: a page served by an earlier `brief serve` on the same port
        # reloads once when it reconnects to this one.
        self._prefix = f"{time.time_ns():x}"
        self._count = 0
        self._problems: tuple[str, ...] | None = None
        self._changed = threading.Condition()

    @property
    def build_id(self) -> str:
        with self._changed:
            return f"{self._prefix}-{self._count}"

    @property
    def problems(self) -> tuple[str, ...] | None:
        """The problems of the last build, or None when it succeeded."""
        with self._changed:
            return self._problems

    def built(self, problems: list[str] | None = None) -> None:
        """Record a finished build (`problems`: why it failed, None when it succeeded) and wake
        every page waiting for one."""
        with self._changed:
            self._count += 1
            self._problems = tuple(problems) if problems is not None else None
            self._changed.notify_all()

    def next_build(self, seen: str | None, timeout_s: float) -> str:
        """Return the id of the last build as soon as it is not `seen`, or `seen` after
        `timeout_s` seconds without a new build."""
        with self._changed:
            self._changed.wait_for(lambda: f"{self._prefix}-{self._count}" != seen, timeout_s)
            return f"{self._prefix}-{self._count}"


def reload_script(build_id: str) -> bytes:
    """Return the script a served page carries: it reloads the page once the server announces a
    build other than the one the page was served from."""
    # The id is ours (hex digits and a dash), so it is safe inside a JS string as it is.
    return (f'<script>/* brief serve: reload on a new build */(() => {{'
            f'const served = "{build_id}"; const builds = new EventSource("{RELOAD_PATH}");'
            'builds.onmessage = (e) => { if (e.data !== served) { builds.close(); '
            'location.reload(); } };})();</script>').encode()


_BODY_END = re.compile(rb"</body\s*>", re.IGNORECASE)


def with_reload(page: bytes, build_id: str) -> bytes:
    """Return an HTML page with the reload script before its last </body> (at its end when it
    has none)."""
    ends = list(_BODY_END.finditer(page))
    at = ends[-1].start() if ends else len(page)
    return page[:at] + reload_script(build_id) + page[at:]


def problems_page(problems: tuple[str, ...] | list[str], build_id: str) -> bytes:
    """Return the page served instead of the site while the last build failed: its problems, as
    the terminal printed them (escaped), and the reload script that brings the page back once
    a build succeeds."""
    lines = "\n".join(html.escape(line) for line in problems)
    page = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>The site could not be built - brief serve</title>
<style>
body {{ font: 16px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; padding: 0 1rem;
       color: #1a1a1a; background: #fff; }}
h1 {{ color: #b00020; font-size: 1.5rem; }}
pre {{ white-space: pre-wrap; background: #fdf2f2; border-left: 4px solid #b00020; padding: 1rem;
      overflow-wrap: anywhere; }}
</style>
</head>
<body>
<main>
<h1>The site could not be built</h1>
<p>The last save stopped the build, for the reasons below (the terminal says the same). This page
shows the site again once a save fixes them.</p>
<pre id="brief-problems">{lines}</pre>
</main>
</body>
</html>
"""
    return with_reload(page.encode("utf-8"), build_id)
