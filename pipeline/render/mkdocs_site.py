"""The mkdocs build: generated Markdown and files in a docs folder → a static site folder."""

from __future__ import annotations

import logging
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from pipeline.problems import BuildError

SITE_DIR = Path(__file__).resolve().parents[2] / "site"


@contextmanager
def _env(name: str, value: str) -> Iterator[None]:
    old = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


class _LinkStatic:
    """Hard-link static files from the docs folder into the site instead of copying them.

    At a year's scale the data files are ~170 MB, and mkdocs copied every byte on every build;
    the docs folder is ours, on the same file system, and nothing writes to a file after the
    build puts it there, so a second name for the same bytes is the same output."""

    def on_files(self, files: Any, *, config: Any) -> Any:
        for file in files:
            if not file.is_documentation_page() and file.abs_src_path and file.generated_by is None:
                file.copy_file = _linker(file)
        return files


def _linker(file: Any) -> Any:
    copy = file.copy_file

    def link(dirty: bool = False) -> None:
        dest = file.abs_dest_path
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        try:
            # Never copy over a file already there: it may be a second name of a published file.
            if os.path.lexists(dest):
                os.unlink(dest)
            os.link(file.abs_src_path, dest)
        except OSError:
            copy(dirty)  # another file system: copy as mkdocs does
    return link


def build_mkdocs(docs_dir: Path, site_dir: Path, *, site_url: str, epoch: int,
                 config_file: Path = SITE_DIR / "mkdocs.yml",
                 plugins: dict[str, object] | None = None) -> None:
    """Build the site with mkdocs (strict: a warning fails the build) at a fixed build time.

    `plugins`: plugin instances to add in-process, by name (the page cache, render/page_cache.py).
    """
    # Imported here: mkdocs and its theme take a noticeable time to import, and `brief check`
    # never needs them.
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException
    from mkdocs.plugins import BasePlugin

    log = logging.getLogger("mkdocs")
    collect = _Collect()
    log.addHandler(collect)
    level = log.level
    log.setLevel(logging.WARNING)
    try:
        with _env("SOURCE_DATE_EPOCH", str(epoch)), _env("NO_MKDOCS_2_WARNING", "1"):
            config = load_config(config_file=str(config_file), docs_dir=str(docs_dir),
                                 site_dir=str(site_dir), site_url=site_url, strict=True)
            plugins = {"brief-link-static": type("LinkStatic", (_LinkStatic, BasePlugin), {})(),
                       **(plugins or {})}
            for name, plugin in plugins.items():
                config.plugins[name] = plugin  # registers its events, like a configured plugin
            build(config)
    except (MkDocsException, SystemExit) as err:
        detail = "; ".join(collect.messages) or str(err)
        raise BuildError(f"mkdocs build failed: {detail}") from None
    finally:
        log.removeHandler(collect)
        log.setLevel(level)
