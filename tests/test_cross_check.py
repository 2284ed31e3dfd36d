"""llm-prices as a cross-check: its eleven real vendor files served from 127.0.0.1 and read as
one snapshot; compared on the Discrepancies page, never shown on the Market page (its data has
no licence)."""

from __future__ import annotations

import datetime as dt
import html
import json
import re

import pytest
import yaml
from conftest import REPO
from test_ingest_prices import T0, CatalogueServer, history, run
from test_market_build import market_root

from pipeline.orchestrate.site import build_site
from pipeline.paths import price_health_path


@pytest.fixture
def server():
    s = CatalogueServer()
    yield s
    s.httpd.shutdown()


def test_the_vendor_files_are_one_snapshot_compared_but_not_published(real_data, server,
                                                                     tmp_path):
    folder = real_data / "llm-prices" / "data"
    root = market_root(tmp_path, REPO, server.url("/data/"), "llm-prices")
    files = yaml.safe_load((root / "sources" / "catalogues.yaml").read_text())[
        "catalogues"][0]["files"]
    assert sorted(files) == sorted(p.name for p in folder.glob("*.json"))  # all eleven
    for name in files:
        server.bodies[f"/data/{name}"] = (folder / name).read_bytes()
    (first,) = run(root, T0)
    assert first.ok, first.message
    table = history(root, "llm-prices")
    # The README: 142 models in the eleven files; xai.json lists grok-4-fast twice.
    assert len(table[["provider", "model"]].drop_duplicates()) == 141
    # Its provider ids are ours (amazon is aws, moonshot-ai moonshot).
    assert {"aws", "moonshot"} <= set(table["provider"]) and "amazon" not in set(table["provider"])

    out = tmp_path / "public"
    build_site(root, out, today=dt.date(2026, 11, 30))
    body = (out / "discrepancies" / "index.html").read_text()
    text = html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body)))
    # llm-prices still lists deepseek-chat at 0.27/1.10 (its README), where DeepSeek's own page
    # (our curated file) has given 0.28/0.42 since 2025-09-29: output 1.10/0.42 - 1 = +161.9 %,
    # from the first snapshot (2026-11-01) to the newest edition; input 0.27 is within 5 %.
    assert ("deepseek deepseek-chat output $0.42 (DeepSeek (curated)) $1.10 (llm-prices) "
            "+161.9% 2026-11-01 (still; 20 days)") in text
    assert "deepseek deepseek-chat input $0.28 (DeepSeek (curated)) $0.27 (llm-prices)" not in text
    market = json.loads((out / "data" / "market.json").read_text())
    assert market and all(r["source"] != "llm-prices" for r in market)

    # One file failing fails the run and keeps the history.
    before = table.copy()
    del server.bodies["/data/xai.json"]
    (second,) = run(root, T0 + dt.timedelta(days=1))
    assert not second.ok and "404" in second.message, second.message
    assert history(root, "llm-prices").equals(before)
    assert json.loads(price_health_path(root, "llm-prices").read_text())[
        "consecutive_failures"] == 1


@pytest.mark.parametrize("url, files, why", [
    ("https://c.example/data", ["a.json"], "ends in /"),
    ("https://c.example/data/", ["../secrets.json"], "plain file names"),
    ("https://c.example/data/", ["a b.json"], "plain file names"),
])
def test_files_are_names_in_the_urls_folder(url, files, why):
    from pydantic import ValidationError

    from pipeline.models.catalogues import Catalogue

    with pytest.raises(ValidationError, match=why):
        Catalogue(id="c", name="C", url=url, page="https://c.example/", format="llm-prices",
                  licence="none", attribution="a", use="cross-check", files=files)
