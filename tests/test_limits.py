"""The size limits of pipeline/limits.py, each met with a clear refusal and nothing published
changed (issue 37: a catalogue of 100,000 models made a 214 MB site; 10,000 edition dates ran
past 300 s). The limits are lowered here so small inputs meet them."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from test_ingest_prices import T0, catalogue_root, run, tiny_map

from pipeline.load.sources import load_sources
from pipeline.orchestrate.site import build_site
from pipeline.problems import BuildError, SourceError

TODAY = dt.date(2026, 9, 20)


@pytest.fixture
def server():
    from test_ingest_prices import CatalogueServer

    s = CatalogueServer()
    yield s
    s.httpd.shutdown()


def test_a_catalogue_over_its_listings_limit_keeps_its_history(server, tmp_path, monkeypatch):
    server.bodies["/m.json"] = tiny_map(**{f"model-{i}": 1e-06 for i in range(5)})
    root = catalogue_root(tmp_path, server.url("/m.json"))
    assert run(root, T0)[0].ok
    monkeypatch.setattr("pipeline.ingest.snapshot.MAX_CATALOGUE_LISTINGS", 5)
    server.bodies["/m.json"] = tiny_map(**{f"model-{i}": 1e-06 for i in range(6)})
    (big,) = run(root, T0 + dt.timedelta(hours=1))
    assert not big.ok
    assert big.message == ("6 listings, more than the 5 one catalogue may hold "
                           "(pipeline/limits.py); the history is kept")


def test_a_series_over_its_editions_limit_is_refused(tiny: Path, monkeypatch) -> None:
    monkeypatch.setattr("pipeline.models.series.MAX_EDITIONS", 1)
    with pytest.raises(SourceError) as refused:
        load_sources(tiny)
    assert [str(p) for p in refused.value.problems if "limits" in p.message] == [
        "sources/editions.yaml:1: 2 edition dates, more than the 1 a series may have "
        "(pipeline/limits.py): start a new series"]


@pytest.mark.parametrize(("limit", "bytes_", "message"), [
    ("MAX_PAGE_BYTES", 2_000, r"^(?!data/)\S+ would be [\d,]+ bytes, more than the 2,000 a page may "
                       r"have \(pipeline/limits.py\); the published site is left as it was$"),
    # The tiny tree's data files are a few hundred bytes.
    ("MAX_DATA_FILE_BYTES", 50, r"^data/\S+ would be [\d,]+ bytes, more than the 50 a data file "
                            r"may have \(pipeline/limits.py\); the published site is left as it "
                            r"was$"),
    ("MAX_SITE_BYTES", 2_000, r"^the site would be [\d,]+ bytes, more than the 2,000 it may have "
                       r"\(pipeline/limits.py\); the published site is left as it was$"),
])
def test_a_build_past_a_size_limit_leaves_the_site_as_it_was(tiny: Path, tmp_path: Path,
                                                             monkeypatch, limit, bytes_,
                                                             message) -> None:
    out = tmp_path / "public"
    build_site(tiny, out, today=TODAY)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    (tiny / "sources" / "editions.yaml").write_text(
        (tiny / "sources" / "editions.yaml").read_text().replace("A tiny series", "A tiny serie"))
    monkeypatch.setattr(f"pipeline.publish.output.{limit}", bytes_)
    with pytest.raises(BuildError, match=message):
        build_site(tiny, out, today=TODAY)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
