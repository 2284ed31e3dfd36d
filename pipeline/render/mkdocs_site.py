"""The mkdocs build: generated Markdown and files in a docs folder → a static site folder."""

from __future__ import annotations

import logging
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

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

    log = logging.getLogger("mkdocs")
    collect = _Collect()
    log.addHandler(collect)
    level = log.level
    log.setLevel(logging.WARNING)
    try:
        with _env("SOURCE_DATE_EPOCH", str(epoch)), _env("NO_MKDOCS_2_WARNING", "1"):
            config = load_config(config_file=str(config_file), docs_dir=str(docs_dir),
                                 site_dir=str(site_dir), site_url=site_url, strict=True)
            for name, plugin in (plugins or {}).items():
                config.plugins[name] = plugin  # registers its events, like a configured plugin
            build(config)
    except (MkDocsException, SystemExit) as err:
        detail = "; ".join(collect.messages) or str(err)
        raise BuildError(f"mkdocs build failed: {detail}") from None
    finally:
        log.removeHandler(collect)
        log.setLevel(level)
