"""`brief serve`: the site on 127.0.0.1, rebuilt on each save with its open pages reloaded
(issue 40), or served as it is (`--no-build`)."""

from __future__ import annotations

import datetime as dt
import errno
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from pipeline.cli.terminal import ROOT, failed, os_error_line, print_problems, reports_errors
from pipeline.paths import PUBLIC, SERIES
from pipeline.problems import BuildError, SourceError

if TYPE_CHECKING:
    from pipeline.publish.live import LiveSite
    from pipeline.publish.preview import PreviewServer


@click.command()
@ROOT
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port on 127.0.0.1 (0: any free port).")
@click.option("--no-build", is_flag=True,
              help="Serve public/ as it is: no build first, no rebuilds, no reloads.")
@click.option("--verbose", is_flag=True,
              help="Log every request (by default only the rebuilds and the requests answered "
                   "with an error, such as a missing file).")
@reports_errors
def serve(root: Path, port: int, no_build: bool, verbose: bool) -> None:
    """Preview the site on http://127.0.0.1:PORT/ (and under site_url's path), live: each save
    under sources/, templates/ or site/ rebuilds it and reloads the open pages, and a file with
    problems shows them on the page until a save fixes it."""
    public = (root / PUBLIC).resolve()
    if no_build:
        if not public.is_dir():
            raise BuildError(f"{public} does not exist: run `brief build` first")
        with _bind(public, port, _site_path(root, live=False), verbose=verbose) as server:
            _serve_forever(server, public)
        return
    from pipeline.orchestrate.site import build_site
    from pipeline.orchestrate.watch import Rebuilds, watch, watched_folders
    from pipeline.publish.live import LiveSite

    live = LiveSite()
    started = time.perf_counter()

    reloaded = False

    def published() -> None:
        nonlocal reloaded
        reloaded = True
        live.built()  # the open pages reload now, while the build tidies up after itself

    def build() -> object:
        nonlocal started, reloaded
        started, reloaded = time.perf_counter(), False
        return build_site(root.resolve(), public, today=dt.date.today(), published=published)

    def done(result: object, err: Exception | None) -> None:
        seconds = time.perf_counter() - started
        if err is None:
            if not reloaded:  # nothing to do: the site was as the sources make it
                live.built()
            # The warnings `brief build` prints, after each rebuild as after a build.
            print_problems(list(result.warnings), to_stderr=True)  # type: ignore[attr-defined]
            click.echo(f"built {result.editions} editions in {seconds:.2f} s")  # type: ignore[attr-defined]
            return
        lines = _failure_lines(err, root)
        live.built(lines)
        for line in lines:
            click.echo(line, err=True)
        click.echo(f"the build failed after {seconds:.2f} s; the preview shows why until a save "
                   "fixes it", err=True)

    rebuilds = Rebuilds(build, done)
    stop = threading.Event()
    with _bind(public, port, _site_path(root, live=True), live, verbose) as server:
        # Watching starts before the first build, so a save during it is built right after.
        watch(watched_folders(root.resolve()), rebuilds.want, stop)
        try:
            rebuilds.build_now()
            rebuilds.start()
            click.echo("rebuilding on each save under sources/, templates/ and site/")
            _serve_forever(server, public)
        finally:
            stop.set()
            if rebuilds.is_building():
                click.echo("waiting for the build under way to finish", err=True)
            rebuilds.stop()


def _bind(public: Path, port: int, site_path: str, live: LiveSite | None = None,
          verbose: bool = False) -> PreviewServer:
    """Return the preview server of `public` bound to 127.0.0.1:`port`; when the port is taken,
    say so and exit 1."""
    from pipeline.publish.preview import preview_server

    try:
        return preview_server(public, port, site_path=site_path, live=live, verbose=verbose)
    except OSError as err:
        if err.errno != errno.EADDRINUSE:
            raise
        # The OS error names no file, so reports_errors would say "error: .: Address already in use".
        click.echo(f"error: port {port} is in use; pick another with --port", err=True)
        raise failed() from None


def _serve_forever(server: PreviewServer, public: Path) -> None:
    """Say where the site is, then serve it until Ctrl-C."""
    port = server.server_address[1]  # the one the OS chose, for --port 0
    also = f" and under {server.site_path}" if server.site_path != "/" else ""
    click.echo(f"serving {public} on http://127.0.0.1:{port}/{also} (Ctrl-C to stop)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


def _site_path(root: Path, live: bool) -> str:
    """Return the path of the series' site_url; "/" when live and the series has problems (the
    first build shows them)."""
    from urllib.parse import urlsplit

    from pipeline.load.parse import read_model
    from pipeline.models.series import Series

    series, problems = read_model(root / SERIES, Series, root)
    if series is None:
        if live:
            return "/"
        raise SourceError(problems)
    return urlsplit(str(series.model.site_url)).path


def _failure_lines(err: Exception, root: Path) -> list[str]:
    """Return why a build failed as the lines a person reads: each problem with its file and
    field, the build's message, the path an OS error names; anything else (a template jinja2
    cannot read, a fault of ours) with its traceback."""
    if isinstance(err, SourceError):
        errors = sum(p.severity == "error" for p in err.problems)
        return ([p.located() for p in err.problems]
                + [f"{errors} problem(s) found; nothing was written."])
    if isinstance(err, BuildError):
        return [f"error: {err}"]
    if isinstance(err, OSError):
        return [os_error_line(err, root)]
    import traceback

    return ["error: the build failed unexpectedly (a template, or a fault of ours):",
            *"".join(traceback.format_exception(err)).rstrip().splitlines()]
