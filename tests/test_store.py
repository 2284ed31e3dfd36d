"""The one store (cache/store.py): values by stage, code and inputs, large bytes kept apart once
under blobs/, read back by the next build; pruned of what no build used."""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest

from pipeline.cache.bytecode import StoreBytecode
from pipeline.cache.store import BLOB_MIN_BYTES, Store
from pipeline.publish.output import DiskBody, body_bytes
from pipeline.render.chart_image import ready

BIG = b"x" * BLOB_MIN_BYTES
CODES = {"render": "r1", "compose": "c1"}


def read_back(value: dict) -> dict:
    """A loaded value with its blobs read (they are loaded as open files, output.DiskBody)."""
    return {name: body_bytes(body) for name, body in value.items()}


def build(folder: Path, *calls: tuple, codes: dict | None = None) -> Store:
    """Run one build's `calls` (stage, fn, inputs) on a store of `folder`, keep and prune it."""
    store = Store(folder, codes or CODES)
    for stage, fn, inputs in calls:
        store.cached(stage, fn, inputs)
    store.keep()
    store.prune()
    return store


def test_a_value_is_computed_once_and_read_back_by_the_next_build(tmp_path: Path) -> None:
    build(tmp_path, ("compose", lambda: [1, 2], ("a",)))
    again = Store(tmp_path, CODES)
    assert again.cached("compose", lambda: [3], ("a",)) == [1, 2]
    assert again.cached("compose", lambda: [3], ("b",)) == [3]
    assert again.computed == {"compose": 1}


def test_the_key_holds_the_stage_and_its_code(tmp_path: Path) -> None:
    build(tmp_path, ("compose", lambda: "old", ("a",)), ("render", lambda: "page", ("a",)))
    assert Store(tmp_path, CODES).cached("render", lambda: "new", ("a",)) == "page"
    # Another compose code: the compose value is computed again, the render one is not.
    codes = {**CODES, "compose": "c2"}
    after = build(tmp_path, ("compose", lambda: "new", ("a",)), ("render", lambda: "x", ("a",)),
                  codes=codes)
    assert after.computed == {"compose": 1, "render": 0}
    # The old code's file is pruned.
    assert sorted(p.name for p in tmp_path.glob("*.log")) == sorted(
        [after.path("compose").name, after.path("render").name])


def test_large_files_are_stored_apart_and_read_back(tmp_path: Path) -> None:
    build(tmp_path, ("render", lambda: {"data/hardware.json": BIG, "data/small.csv": b"a,b\n"},
                     ("hardware",)))
    # The large value is a file of its own, not in the stage's file; the small one stays in it.
    assert [f.read_bytes() for f in (tmp_path / "blobs").iterdir()] == [BIG]
    assert Store(tmp_path, CODES).path("render").stat().st_size < BLOB_MIN_BYTES
    again = Store(tmp_path, CODES)
    value = again.cached("render", lambda: None, ("hardware",))
    assert isinstance(value["data/hardware.json"], DiskBody)
    assert read_back(value) == {"data/hardware.json": BIG, "data/small.csv": b"a,b\n"}
    assert again.computed == {"render": 0}
    # keep() says which blobs it kept, by path in the site.
    assert list(again.keep()) == ["data/hardware.json"]
    again.close()


def test_a_drawing_is_kept_as_its_bytes(tmp_path: Path) -> None:
    build(tmp_path, ("render", lambda: {"charts/big.svg": ready(BIG)}, ("charts",)))
    kept = Store(tmp_path, CODES).cached("render", lambda: None, ("charts",))
    assert read_back(kept) == {"charts/big.svg": BIG}


def test_a_blob_pruned_after_loading_is_still_read(tmp_path: Path) -> None:
    """Another build may prune blobs/ while this one runs: what it opened stays readable."""
    build(tmp_path, ("render", lambda: {"data/big.csv": BIG}, ("k",)))
    value = Store(tmp_path, CODES).cached("render", lambda: None, ("k",))
    for f in (tmp_path / "blobs").iterdir():
        f.unlink()
    assert read_back(value) == {"data/big.csv": BIG}


def test_a_missing_blob_is_computed_again(tmp_path: Path) -> None:
    build(tmp_path, ("render", lambda: {"data/big.csv": BIG}, ("k",)))
    for f in (tmp_path / "blobs").iterdir():
        f.unlink()
    again = Store(tmp_path, CODES)
    assert again.cached("render", lambda: {"data/big.csv": BIG + b"!"}, ("k",)) == {
        "data/big.csv": BIG + b"!"}
    assert again.computed == {"render": 1}


def test_what_no_build_used_is_pruned(tmp_path: Path) -> None:
    build(tmp_path, ("render", lambda: {"data/a.csv": BIG}, ("old",)))
    build(tmp_path, ("render", lambda: {"data/a.csv": BIG + b"2"}, ("new",)))
    assert [f.read_bytes() for f in (tmp_path / "blobs").iterdir()] == [BIG + b"2"]
    again = Store(tmp_path, CODES)
    assert again.cached("render", lambda: "computed", ("old",)) == "computed"


def test_a_read_only_cache_does_not_fail_the_build(tmp_path: Path) -> None:
    (tmp_path / "blobs").write_text("not a folder")  # storing into it fails with an OSError
    build(tmp_path, ("render", lambda: {"data/big.csv": BIG}, ("k",)))
    assert not Store(tmp_path, CODES).path("render").exists()


def test_the_cache_folder_can_move(tmp_path: Path) -> None:
    build(tmp_path / "a", ("render", lambda: {"data/big.csv": BIG}, ("k",)))
    (tmp_path / "a").rename(tmp_path / "b")
    moved = Store(tmp_path / "b", CODES)
    assert read_back(moved.cached("render", lambda: None, ("k",))) == {"data/big.csv": BIG}
    assert moved.computed == {"render": 0}


def test_without_a_folder_values_are_computed_once_a_build(tmp_path: Path) -> None:
    store = Store(None, {})
    calls = []
    for _ in range(2):
        store.cached("render", lambda: calls.append(1), ("k",))
    assert calls == [1] and store.keep() == {}


def test_compiled_templates_are_kept_as_a_stages_values(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    def env(store: Store) -> jinja2.Environment:
        return jinja2.Environment(loader=jinja2.DictLoader({"a.md": "{{ x }} and {{ y }}"}),
                                  bytecode_cache=StoreBytecode(store, "render", "pipeline.render.pages"))

    first = Store(tmp_path, CODES)
    assert env(first).get_template("a.md").render(x=1, y=2) == "1 and 2"
    first.keep()
    again = env(Store(tmp_path, CODES))
    monkeypatch.setattr(again, "compile", lambda *a, **k: pytest.fail("compiled again"))
    assert again.get_template("a.md").render(x=3, y=4) == "3 and 4"
    # Other render code: compiled afresh.
    other = env(Store(tmp_path, {**CODES, "render": "r2"}))
    compiled = []
    original = other.compile
    monkeypatch.setattr(other, "compile", lambda *a, **k: compiled.append(1) or original(*a, **k))
    assert other.get_template("a.md").render(x=5, y=6) == "5 and 6" and compiled == [1]
