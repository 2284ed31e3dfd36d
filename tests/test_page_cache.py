"""Incremental builds give the bytes of a cold build, after every kind of change (issue 8)."""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import jinja2
import pytest
from conftest import IN_CI, REPO, tree_digest, write_entry

from pipeline.cache import page_cache
from pipeline.cache import stamp as build_stamp
from pipeline.cache.code import CodeDigests
from pipeline.cache.page_cache import PageStore, ReusePages, linked_pages, page_key
from pipeline.cache.store import Store
from pipeline.orchestrate.site import build_site
from pipeline.orchestrate.site import build_site as build_at
from pipeline.render import pages

TODAY = dt.date(2026, 11, 30)


@pytest.fixture
def reused(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the pages each build took from the cache instead of rendering them."""
    seen: list[str] = []
    original = ReusePages.on_post_page

    def spy(self: ReusePages, output: str, *, page, config) -> str:
        if page.file.src_uri in self.reused:
            seen.append(page.file.src_uri)
        return original(self, output, page=page, config=config)

    spy.mkdocs_priority = original.mkdocs_priority  # type: ignore[attr-defined]
    monkeypatch.setattr(ReusePages, "on_post_page", spy)
    return seen


@pytest.fixture
def code_copy(tmp_path: Path) -> build_stamp.Code:
    """A checkout whose templates are a copy of ours, so a test can change one."""
    code = build_stamp.Code(tmp_path / "code", dirs=("templates",))
    shutil.copytree(REPO / "templates", code.templates)
    return code


def briefings(pages: list[str]) -> list[str]:
    return [p for p in pages if p.startswith("briefings/")]


def cold_digest(root: Path, out: Path, monkeypatch: pytest.MonkeyPatch,
                code: build_stamp.Code = build_stamp.CHECKOUT) -> dict[str, str]:
    """Build with no cache at all and return the tree's digest."""
    with monkeypatch.context() as m:
        m.setenv("BRIEF_CACHE", "off")
        build_site(root, out, today=TODAY, code=code)
    return tree_digest(out)


def test_incremental_builds_equal_cold_builds(copy_few_models_sources, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch,
                                              reused: list[str],
                                              code_copy: build_stamp.Code) -> None:
    # Every data file kept in .cache/store/blobs, as the large ones are at a year's scale.
    build_site = functools.partial(build_at, code=code_copy, files_apart_from=1)
    # The bundled sources with few catalogue models: every kind of page, model pages put into
    # the shell too, but 15 builds of ~120 model pages instead of ~1,600 (the read-only cache
    # test below compares an incremental and a cold build of all the bundled sources).
    root = copy_few_models_sources()
    public = root / "public"
    build_site(root, public, today=TODAY)
    assert list((root / ".cache" / "store").glob("publish-*.log"))
    assert any((root / ".cache" / "store" / "blobs").iterdir())
    editions = len(list((public / "briefings").glob("*.txt")))

    # Nothing changed: the stamp says so and nothing is built (the tree is not even replaced).
    inode = public.stat().st_ino
    build_site(root, public, today=TODAY)
    assert public.stat().st_ino == inode

    # Each change below is built in turn, and compared with a cold build (9 s) after the last
    # of a group: a page an earlier change left stale stays stale through the later builds.

    # Inputs touched, contents the same: a real build, every edition page from the cache, and
    # the same site.
    reused.clear()
    (root / "sources" / "editions.yaml").touch()
    page_html, feed = public / "prices" / "index.html", public / "feed.xml"
    before = (page_html.stat().st_ino, feed.stat().st_ino)
    digest = tree_digest(public)
    build_site(root, public, today=TODAY)
    assert len(briefings(reused)) == editions
    # Unchanged output is linked from the published site, not written again.
    assert (page_html.stat().st_ino, feed.stat().st_ino) == before
    assert "hardware.md" in reused and "prices.md" in reused  # pages in the (static) nav too
    assert tree_digest(public) == digest

    # One new edition: it and its predecessor (whose "next" link appears) are rendered.
    reused.clear()
    series = root / "sources" / "editions.yaml"
    series.write_text(series.read_text().replace("  - 2026-11-20\n", "  - 2026-11-20\n  - 2026-11-27\n"))
    write_entry(root, "2026-11-25", "new-edition-story", headline="A story of the new edition")
    build_site(root, public, today=TODAY)
    assert len(briefings(reused)) == editions - 1
    assert "briefings/2026-11-27.md" not in reused and "briefings/2026-11-20.md" not in reused
    assert "data.md" in reused  # the Data page describes per-edition files by one pattern
    # No price changed between the two editions: the Prices page's Markdown is the same.
    assert "prices.md" in reused

    # One changed entry: only its edition's page is rendered again.
    reused.clear()
    entry = root / "sources" / "entries" / "2026" / "09-12-tpu-efficiency.yaml"
    entry.write_text(entry.read_text().replace("up to 50% more", "up to half again as much"))
    build_site(root, public, today=TODAY)
    assert "briefings/2026-09-12.md" not in reused and len(briefings(reused)) == editions
    assert "half again" in (public / "briefings" / "2026-09-12" / "index.html").read_text()
    # The site since the first build: touched, a new edition, a changed entry.
    assert tree_digest(public) == cold_digest(root, tmp_path / "cold-entry", monkeypatch, code_copy)

    # A changed template: every edition page changes, so none is reused (no cold build to
    # compare with here: each edition page was just rendered, and the last comparison below
    # finds any the changes after this one leave stale).
    reused.clear()
    template = code_copy.templates / "briefing.md.j2"
    template.write_text(template.read_text().replace("## Sources", "## Sources cited"))
    build_site(root, public, today=TODAY)
    assert briefings(reused) == []
    assert "Sources cited" in (public / "briefings" / "2026-09-12" / "index.html").read_text()

    # A changed price, a feed item's changed headline, a changed hourly cost: the editions whose
    # computed parts read them are recomposed (cache/keys.py), and only those; compared with a
    # cold build after the last, and the 09-12 edition, which both the price and the feed
    # change, checked after each.
    # Prices no entry states (their claims would then be refused), or, for DeepSeek's, with
    # the entries' claims corrected too, as `brief check` would ask of an editor.
    prices = root / "sources" / "prices" / "openai.yaml"
    prices.write_text(prices.read_text().replace("{meter: cached_input, price: 0.075}",
                                                 "{meter: cached_input, price: 0.07}", 1))
    deepseek = root / "sources" / "prices" / "deepseek.yaml"  # the cut the 09-12 edition reports
    deepseek.write_text(deepseek.read_text().replace("{meter: cached_input, price: 0.02}",
                                                     "{meter: cached_input, price: 0.03}", 1))
    for name in ("09-10-deepseek-flash-cny-prices", "09-10-deepseek-flash-price-cut",
                 "11-06-deepseek-price-history"):
        claimed = root / "sources" / "entries" / "2026" / f"{name}.yaml"
        text = claimed.read_text()
        assert text.count("    stated_per_mtok: 0.02\n") == 1, name
        claimed.write_text(text.replace("    stated_per_mtok: 0.02\n", "    stated_per_mtok: 0.03\n"))
    build_site(root, public, today=TODAY)
    assert "0.03" in (public / "briefings" / "2026-09-12" / "index.html").read_text()
    snapshot = root / "sources" / "snapshots" / "feeds" / "mlcommons.json"
    snapshot.write_text(snapshot.read_text(encoding="utf-8").replace(
        "MLPerf Inference v6.1", "MLPerf Inference round v6.1", 1), encoding="utf-8")
    build_site(root, public, today=TODAY)
    assert "round v6.1" in (public / "briefings" / "2026-09-12" / "index.html").read_text()
    costs = root / "sources" / "hardware" / "costs.yaml"
    costs.write_text(costs.read_text().replace("amount_per_hour: 1.3\n", "amount_per_hour: 1.4\n", 1))
    build_site(root, public, today=TODAY)
    assert tree_digest(public) == cold_digest(root, tmp_path / "cold-cost", monkeypatch, code_copy)


def test_changed_output_is_rebuilt(tiny: Path) -> None:
    # The stamp covers the output too: a file edited or removed in public/ is put back.
    public = tiny / "public"
    build_site(tiny, public, today=TODAY)
    before = tree_digest(public)
    (public / "briefings" / "2026-09-12.txt").unlink()
    (public / "index.html").write_text("defaced")
    build_site(tiny, public, today=TODAY)
    assert tree_digest(public) == before


def test_a_page_is_kept_by_which_of_the_pages_it_links_the_site_has() -> None:
    # mkdocs rewrites a link to a page of the site, and leaves any other as written.
    md = b"See [the other](2026-09-05.md#top), [the market](../market.md) and ../x/."
    site = {"briefings/2026-09-05.md", "market.md"}
    assert linked_pages(md, "briefings/2026-09-12.md", site) == [
        ("briefings/2026-09-05.md", True), ("market.md", True)]
    assert linked_pages(md, "briefings/2026-09-12.md", {"market.md"}) == [
        ("briefings/2026-09-05.md", False), ("market.md", True)]
    links = linked_pages(md, "briefings/2026-09-12.md", site)
    assert page_key("s", "briefings/2026-09-12.md", md, links) != page_key(
        "s", "briefings/2026-09-12.md", md, linked_pages(md, "briefings/2026-09-12.md", set()))


def test_page_key_changes_with_path_markdown_and_site() -> None:
    base = page_key("site", "briefings/2026-09-12.md", b"# A")
    assert base != page_key("site", "briefings/2026-09-13.md", b"# A")
    assert base != page_key("site", "briefings/2026-09-12.md", b"# B")
    assert base != page_key("other", "briefings/2026-09-12.md", b"# A")


def test_store_keeps_only_pages_used_by_the_last_build(tmp_path: Path) -> None:
    codes = {"publish": "p1"}
    store = Store(tmp_path, codes)
    pages = PageStore(store)
    pages.put("a", "<html>a</html>", [{"location": "a/", "title": "A", "text": ""}])
    pages.put("b", "<html>b</html>", [])
    store.keep()
    again = Store(tmp_path, codes)
    assert PageStore(again).get("a") == ("<html>a</html>",
                                         [{"location": "a/", "title": "A", "text": ""}])
    again.keep()
    last = Store(tmp_path, codes)
    assert PageStore(last).get("a") is not None and PageStore(last).get("b") is None


def test_a_damaged_store_is_ignored(tmp_path: Path) -> None:
    store = Store(tmp_path, {"publish": "p1"})
    store.path("publish").write_bytes(b"not pickled data")
    assert PageStore(store).get("a") is None


def test_stub_renders_through_a_template_mkdocs_can_find(tmp_path: Path) -> None:
    # A reused page's source names the stub template; the plugin's environment must find it
    # (and render something: mkdocs writes nothing for an empty page), and still every
    # template of the theme.
    (tmp_path / "main.html").write_text("theme page")
    plugin = ReusePages(PageStore(Store(None, {})), "site", {})
    env = plugin.on_env(jinja2.Environment(loader=jinja2.FileSystemLoader(tmp_path)),
                        config=None, files=None)
    assert f"template: {page_cache.STUB_TEMPLATE}" in page_cache.STUB_SOURCE
    assert env.get_template(page_cache.STUB_TEMPLATE).render() == "stub"
    assert env.get_template("main.html").render() == "theme page"


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """Make `folder` read-only for this process: by permissions, or for root (whom permissions
    do not stop) by a read-only bind mount of it onto itself."""
    if os.geteuid() != 0:
        modes = {p: p.stat().st_mode for p in [folder, *folder.rglob("*")]}
        for p in modes:
            p.chmod(modes[p] & ~0o222)
        try:
            yield
        finally:
            for p, mode in modes.items():
                p.chmod(mode)
        return
    mount = ["mount", "--bind", str(folder), str(folder)]
    if subprocess.run(mount, capture_output=True).returncode != 0:
        if IN_CI:
            pytest.fail("root without mount(8): cannot make a read-only cache")
        pytest.skip("root without mount(8): cannot make a read-only cache")
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(folder)], check=True)
        yield
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def test_a_copy_built_with_the_bundled_builds_cache_is_the_bundled_site(
        copy_repo_sources, bundled_site: Path) -> None:
    # All the bundled sources, every catalogue's ~1,600 model pages: a copy built with the
    # cache of the bundled site's build (a cold build under CI=true, whose clone has no
    # .cache/) makes the same site, from values kept under keys of what they are computed from.
    root = copy_repo_sources()
    build_site(root, root / "public", today=TODAY)
    assert tree_digest(root / "public") == tree_digest(bundled_site)


def test_a_read_only_cache_still_builds_what_a_cold_build_makes(
        copy_few_models_sources, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A checkout whose .cache/ cannot be written (a read-only mount, a CI cache restored
    # read-only) builds from what the cache holds and keeps nothing new; no traceback.
    root = copy_few_models_sources()
    build_site(root, root / "public", today=TODAY)
    with read_only(root / ".cache"):
        with pytest.raises(OSError):
            (root / ".cache" / "probe").write_text("x")
        entry = root / "sources" / "entries" / "2026" / "09-12-tpu-efficiency.yaml"
        entry.write_text(entry.read_text().replace("up to 50% more", "up to half again as much"))
        series = root / "sources" / "editions.yaml"
        series.write_text(series.read_text().replace("  - 2026-11-20\n",
                                                     "  - 2026-11-20\n  - 2026-11-27\n"))
        build_site(root, root / "public", today=TODAY)
    assert "half again" in (root / "public" / "briefings" / "2026-09-12" / "index.html").read_text()
    assert tree_digest(root / "public") == cold_digest(root, tmp_path / "cold", monkeypatch)


def test_templates_compiled_by_other_code_are_not_reused(
        tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        code_copy: build_stamp.Code) -> None:
    # jinja2 keys a compiled template by its source alone, but how it compiles also depends on
    # the environment our code sets up (here `trim_blocks`): the compiled templates are kept
    # under the render stage's code digest, like every other value it computes. The tiny tree:
    # they are kept together, whichever templates a tree uses (the bundled sources' few models
    # took 8 s a cold build, and this test makes three).
    root = tiny
    shutil.copytree(REPO / "pipeline", code_copy.root / "pipeline",
                    ignore=shutil.ignore_patterns("__pycache__"))
    code = build_stamp.Code(code_copy.root, dirs=("templates", "pipeline"))
    build_site(root, root / "public", today=TODAY, code=code)
    untrimmed = tree_digest(root / "public")
    # Other code, the same templates: its environment trims blocks.
    with (code_copy.root / "pipeline" / "render" / "pages.py").open("a") as pages_py:
        pages_py.write("\nTRIM_BLOCKS = True\n")
    other = code
    env = pages.environment(other.templates)
    monkeypatch.setattr(env, "trim_blocks", True)
    env.cache.clear()  # what this process compiled
    build_site(root, root / "public", today=TODAY, code=other)
    env.cache.clear()  # the cold build compiles every template afresh
    assert tree_digest(root / "public") != untrimmed  # trimmed blocks change these pages
    assert tree_digest(root / "public") == cold_digest(root, tmp_path / "cold", monkeypatch, other)
    # The compiled templates are the render stage's values, under the other code's digest, in
    # the one file of that stage and templates.
    assert [p.name for p in (root / ".cache" / "store").glob("render-*.log")] == [
        f"render-{CodeDigests(other).files('render')[:16]}.log"]


@pytest.mark.parametrize("off", build_stamp.REUSES)
def test_a_build_with_a_reuse_turned_off_is_the_same_site(
        tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, off: str) -> None:
    """BRIEF_REUSE_OFF (what benchmarks/reuse.py times) changes how a build gets its values,
    never the site: after a new entry, a build with one reuse off makes the cold build's bytes,
    and the stamp turned off builds a tree with nothing changed again."""
    public = tiny / "public"
    build_site(tiny, public, today=TODAY)
    inode = public.stat().st_ino
    write_entry(tiny, "2026-09-11", "late-story", headline="A late story")
    monkeypatch.setenv("BRIEF_REUSE_OFF", off)
    build_site(tiny, public, today=TODAY)
    assert tree_digest(public) == cold_digest(tiny, tmp_path / "cold", monkeypatch)
    built = public.stat().st_ino
    assert built != inode
    build_site(tiny, public, today=TODAY)  # nothing changed since
    assert (public.stat().st_ino != built) == (off == "stamp")
