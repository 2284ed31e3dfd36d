"""`brief ingest prices`: real catalogues served from 127.0.0.1, their histories and health."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from pipeline.cli.main import main
from pipeline.formats.litellm import read_litellm
from pipeline.formats.price_map import ImportedPrice
from pipeline.ingest.catalogues import ingest_prices
from pipeline.ingest.http import FetchSettings
from pipeline.load.price_histories import load_catalogues
from pipeline.paths import price_health_path, price_history_path
from pipeline.tables.catalogue_history import read_history_csv, snapshot_table

LOOPBACK = FetchSettings(allowed_networks=("127.0.0.0/8",), deadline_s=10.0)
T0 = dt.datetime(2026, 11, 1, 6, 0, tzinfo=dt.UTC)


class CatalogueServer:
    """Serves `bodies[path]` with a strong ETag and answers If-None-Match with 304; records the
    validators it was sent."""

    def __init__(self) -> None:
        self.bodies: dict[str, bytes] = {}
        self.seen: list[dict[str, str]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                server.seen.append({k.lower(): v for k, v in self.headers.items()})
                body = server.bodies.get(self.path)
                if body is None:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
                if self.headers.get("If-None-Match") == etag:
                    self.send_response(304)
                    self.send_header("ETag", etag)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("ETag", etag)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"


@pytest.fixture
def server():
    s = CatalogueServer()
    yield s
    s.httpd.shutdown()


def catalogue_root(tmp_path: Path, url: str, fmt: str = "litellm", cid: str = "litellm",
                   confirmed: str = "[]") -> Path:
    (tmp_path / "sources").mkdir()
    (tmp_path / "sources" / "catalogues.yaml").write_text(f"""
catalogues:
  - id: {cid}
    name: Test catalogue
    url: {url}
    page: https://example.org/catalogue
    format: {fmt}
    licence: MIT
    attribution: Test data.
    use: published
providers:
  together_ai: together
confirmed: {confirmed}
""")
    return tmp_path


def run(root: Path, now: dt.datetime):
    catalogues, histories, healths, problems = load_catalogues(root)
    assert problems == []
    return ingest_prices(root, catalogues, histories, healths, now=now, settings=LOOPBACK)


def history(root: Path, cid: str = "litellm"):
    return read_history_csv(price_history_path(root, cid).read_bytes())


def health(root: Path, cid: str = "litellm") -> dict:
    return json.loads(price_health_path(root, cid).read_text())


def tiny_map(**prices: float) -> bytes:
    """A LiteLLM map of chat models with one input and one output price each (per token)."""
    return json.dumps({name: {"litellm_provider": "openai", "mode": "chat",
                              "input_cost_per_token": price, "output_cost_per_token": price * 4}
                       for name, price in prices.items()}).encode()


def test_the_real_map_then_three_changes_a_removal_and_an_addition(real_data, server, tmp_path):
    real = (real_data / "litellm" / "model_prices_and_context_window.json").read_bytes()
    server.bodies["/map.json"] = real
    root = catalogue_root(tmp_path, server.url("/map.json"))

    (first,) = run(root, T0)
    assert first.ok, first.message
    read = read_litellm(real)
    expected = snapshot_table(read.prices, {"together_ai": "together"}, dt.date(2026, 7, 24))
    table = history(root)
    # Every chat model with a token price, once per key (aliases merged), all in force.
    assert len(table) == len(expected) and (table["gone_seen"] == "").all()
    assert read.models > 1500 and table[["provider", "model"]].drop_duplicates().shape[0] > 1500
    assert set(table["first_seen"]) == {"2026-11-01T06:00Z"}
    assert set(table["checked"]) == {"2026-07-24"}  # the map's own date, not the fetch day
    assert "together_ai" in set(table["catalogue_provider"])
    assert "together_ai" not in set(table["provider"]) and "together" in set(table["provider"])
    assert all(math.isfinite(x) and x >= 0 for x in table["usd_per_mtok"])
    state = health(root)
    assert state["status"] == 200 and state["consecutive_failures"] == 0 and state["etag"]
    assert state["whole_since"] == "2026-11-01T06:00:00Z"

    # The same map again: a 304 to our validators; only the health record changes.
    before = price_history_path(root, "litellm").read_bytes()
    (second,) = run(root, T0 + dt.timedelta(days=1))
    assert second.ok and second.message == "unchanged (304)"
    assert server.seen[-1]["if-none-match"] == state["etag"]
    assert price_history_path(root, "litellm").read_bytes() == before
    assert health(root)["last_success"].startswith("2026-11-02")

    doc = json.loads(real)
    changed = {"gpt-4o": ("input_cost_per_token", 2e-06),
               "claude-sonnet-4-5": ("output_cost_per_token", 1.2e-05),
               "deepseek-chat": ("input_cost_per_token", 3e-07)}
    for key, (field, value) in changed.items():
        assert doc[key]["mode"] == "chat" and doc[key][field] != value
        doc[key][field] = value
    # An alias changed alone moves nothing: the entry under the model's own name wins.
    doc["deepseek/deepseek-chat"]["output_cost_per_token"] = 9e-07
    removed = doc.pop("gpt-4o-mini")
    doc["example-model-9"] = {"litellm_provider": "openai", "mode": "chat",
                              "input_cost_per_token": 1e-06, "output_cost_per_token": 4e-06}
    server.bodies["/map.json"] = json.dumps(doc).encode()
    third_at = T0 + dt.timedelta(days=2)
    (third,) = run(root, third_at)
    assert third.ok, third.message
    moves = third.changes
    got = {(r.model, r.meter, r.kind) for r in moves.itertuples()}
    gone = expected[(expected["model"] == "gpt-4o-mini") & (expected["provider"] == "openai")]
    removed_meters = set(gone["meter"])
    assert got == ({("gpt-4o", "input", "cut"), ("claude-sonnet-4-5", "output", "cut"),
                    ("deepseek-chat", "input", "rise")}
                   | {("gpt-4o-mini", m, "removed") for m in removed_meters}
                   | {("example-model-9", "input", "new"), ("example-model-9", "output", "new")})
    assert removed["mode"] == "chat"
    table = history(root)
    stamp = "2026-11-03T06:00Z"
    assert (table["gone_seen"] == stamp).sum() == 3 + len(gone)
    assert (table["first_seen"] == stamp).sum() == 3 + 2
    cut = table[(table["model"] == "gpt-4o") & (table["provider"] == "openai")
                & (table["meter"] == "input") & (table["context_above_tokens"] == "0")
                & (table["mode"] == "realtime")]
    assert list(cut["usd_per_mtok"]) == [2.5, 2.0] and list(cut["gone_seen"]) == [stamp, ""]
    for text in ("inf", "nan", "Infinity", "NaN"):
        assert f",{text}," not in price_history_path(root, "litellm").read_text()


def test_a_twentyfold_jump_is_held_until_a_second_snapshot_shows_it(server, tmp_path):
    server.bodies["/m.json"] = tiny_map(**{"model-a": 1e-06, "model-b": 2e-06})
    root = catalogue_root(tmp_path, server.url("/m.json"))
    run(root, T0)
    before = price_history_path(root, "litellm").read_bytes()
    server.bodies["/m.json"] = tiny_map(**{"model-a": 1e-04, "model-b": 2e-06})
    (held,) = run(root, T0 + dt.timedelta(hours=1))
    assert held.ok and "2 held back" in held.message
    assert price_history_path(root, "litellm").read_bytes() == before
    state = health(root)
    assert len(state["held"]) == 2 and "100-fold" in state["problems"][0]
    (taken,) = run(root, T0 + dt.timedelta(hours=2))  # same body: 304, still held
    assert taken.message == "unchanged (304)" and len(health(root)["held"]) == 2
    server.bodies["/m.json"] = tiny_map(**{"model-a": 1e-04, "model-b": 2e-06}) + b" "
    (taken,) = run(root, T0 + dt.timedelta(hours=3))
    assert taken.ok and health(root)["held"] == []
    table = history(root)
    a = table[(table["model"] == "model-a") & (table["meter"] == "input")]
    # Dated from the snapshot that showed it again: an edition built while it was held keeps
    # its figures on a later build.
    assert list(a["usd_per_mtok"]) == [1.0, 100.0]
    assert list(a["first_seen"]) == ["2026-11-01T06:00Z", "2026-11-01T09:00Z"]
    assert list(a["gone_seen"]) == ["2026-11-01T09:00Z", ""]


def test_an_editor_confirmed_jump_is_taken_at_once(server, tmp_path):
    server.bodies["/m.json"] = tiny_map(**{"model-a": 1e-06})
    root = catalogue_root(tmp_path, server.url("/m.json"), confirmed=(
        "[{catalogue: litellm, provider: openai, model: model-a, meter: input, "
        "usd_per_mtok: 100.0, note: checked on the provider's page}]"))
    run(root, T0)
    server.bodies["/m.json"] = tiny_map(**{"model-a": 1e-04})
    (run2,) = run(root, T0 + dt.timedelta(hours=1))
    # The input price was confirmed; the output price (400) was not, and waits.
    assert len(health(root)["held"]) == 1 and health(root)["held"][0]["key"][3] == "output"
    table = history(root)
    assert set(table[table["gone_seen"] == ""]["usd_per_mtok"]) == {100.0, 4.0}


@pytest.mark.parametrize("body, why", [
    (b'{"model-a": {"litellm_provider": "openai", "mode": "chat", "input_cost_per_tok',
     "not read as litellm"),
    (b"[1, 2, 3]", "not read as litellm"),
    (json.dumps({"x": {"mode": "embedding"}}).encode(), "no token prices"),
    (b"[" * 100_000, "not read as litellm"),  # nested past the parser's recursion limit
])
def test_a_broken_answer_keeps_the_history_and_counts_failures(server, tmp_path, body, why):
    server.bodies["/m.json"] = tiny_map(**{f"model-{i}": 1e-06 for i in range(30)})
    root = catalogue_root(tmp_path, server.url("/m.json"))
    run(root, T0)
    before = price_history_path(root, "litellm").read_bytes()
    server.bodies["/m.json"] = body
    for n in (1, 2, 3):
        (failed,) = run(root, T0 + dt.timedelta(hours=n))
        assert not failed.ok and why in failed.message
        assert health(root)["consecutive_failures"] == n
    assert price_history_path(root, "litellm").read_bytes() == before
    assert health(root)["last_success"] == "2026-11-01T06:00:00Z"


def test_a_much_smaller_catalogue_looks_truncated(server, tmp_path):
    server.bodies["/m.json"] = tiny_map(**{f"model-{i}": 1e-06 for i in range(30)})
    root = catalogue_root(tmp_path, server.url("/m.json"))
    run(root, T0)
    server.bodies["/m.json"] = tiny_map(**{f"model-{i}": 1e-06 for i in range(10)})
    (short,) = run(root, T0 + dt.timedelta(hours=1))
    assert not short.ok and short.message.startswith("looks truncated: 20 prices")
    assert (history(root)["gone_seen"] == "").all()


def test_a_whole_map_in_another_unit_keeps_the_history(server, tmp_path):
    # Issue 36: per-Mtok figures written into the per-token fields move every price ×1,000,000
    # at once; no single 20× jump check holds back a whole map.
    server.bodies["/m.json"] = tiny_map(**{f"model-{i}": 1e-06 for i in range(30)})
    root = catalogue_root(tmp_path, server.url("/m.json"))
    run(root, T0)
    before = price_history_path(root, "litellm").read_bytes()
    server.bodies["/m.json"] = tiny_map(**{f"model-{i}": 1.0 for i in range(30)})
    (wrong,) = run(root, T0 + dt.timedelta(hours=1))
    assert not wrong.ok
    assert wrong.message == ("100% of its prices are above the ceiling of $1,000 per Mtok: a "
                             "whole map in another unit?; the history is kept")
    assert price_history_path(root, "litellm").read_bytes() == before
    assert health(root)["consecutive_failures"] == 1
    # ×100: under the ceiling, still a whole map moved at once.
    server.bodies["/m.json"] = tiny_map(**{f"model-{i}": 1e-04 for i in range(30)})
    (again,) = run(root, T0 + dt.timedelta(hours=2))
    assert again.message == ("its prices moved ×100 up at the median against the last good "
                             "snapshot (60 prices): a whole map in another unit?; the history "
                             "is kept")
    assert price_history_path(root, "litellm").read_bytes() == before


def test_implausible_listings_are_recorded_and_fail_strict(server, tmp_path):
    # Three providers list one model; the third at a per-Mtok figure in a per-token field.
    body = {f"{p}/open-model": {"litellm_provider": p, "mode": "chat",
                                "input_cost_per_token": price, "output_cost_per_token": price}
            for p, price in (("hosta", 1e-06), ("hostb", 1.2e-06), ("hostc", 1.5))}
    server.bodies["/m.json"] = json.dumps(body).encode()
    root = catalogue_root(tmp_path, server.url("/m.json"))
    done = CliRunner().invoke(main, ["ingest", "prices", "--root", str(root), "--strict",
                                     "--allow-network", "127.0.0.0/8"])
    assert done.exit_code == 1
    assert ("ok  litellm: 6 prices of 3 models; 6 moves, 1 listings held back as implausible"
            in done.output)
    assert health(root)["problems"] == [
        f"hostc open-model {meter}: 1.5e+06 USD per Mtok held back as implausible, ×1,400,000 "
        "above the median of 2 other providers; above the ceiling of $1,000 per Mtok: a "
        "per-token field holding a per-Mtok (or per-1k) price?" for meter in ("input", "output")]
    # The history keeps what the catalogue said; the build leaves it out.
    assert set(history(root)["provider"]) == {"hosta", "hostb", "hostc"}


def test_a_missing_catalogue_is_a_failure_not_an_empty_market(server, tmp_path):
    root = catalogue_root(tmp_path, server.url("/nothing.json"))
    (missing,) = run(root, T0)
    assert not missing.ok and missing.message == "HTTP 404 Not Found"
    assert not price_history_path(root, "litellm").exists()


def test_the_real_genai_prices_feed(real_data, server, tmp_path):
    server.bodies["/data.json"] = (real_data / "genai-prices" / "v2" / "data.json").read_bytes()
    root = catalogue_root(tmp_path, server.url("/data.json"), fmt="genai-prices",
                          cid="genai-prices")
    (done,) = run(root, T0)
    assert done.ok, done.message
    table = history(root, "genai-prices")
    assert table["model"].nunique() > 500
    # Its own checked dates and its dated prices are kept beside what we saw.
    assert table["checked"].str.match(r"^\d{4}-\d{2}-\d{2}$").all()
    assert (table["from_date"] != "").any() and (table["window_utc"] != "").any()
    assert {"zhipuai", "moonshotai"} <= set(table["catalogue_provider"])
    assert table["provider"].str.match(r"^[a-z0-9][a-z0-9-]*$").all()


def test_aliases_zero_prices_and_provider_ids():
    prices = [ImportedPrice("openai", "gpt-x", "input", 3.0, entry="openai/gpt-x"),
              ImportedPrice("openai", "gpt-x", "input", 2.0, entry="gpt-x"),
              ImportedPrice("openai", "gpt-y", "input", 5.0, entry="openai/gpt-y"),
              ImportedPrice("openai", "gpt-y", "input", 6.0, entry="azure/openai/gpt-y"),
              ImportedPrice("together_ai", "free-model", "input", 0.0, entry="free-model"),
              ImportedPrice("Some_Cloud", "m", "output", 1.0)]
    table = snapshot_table(prices, {"together_ai": "together"}, dt.date(2026, 7, 24))
    got = {(r.provider, r.catalogue_provider, r.model): r.usd_per_mtok
           for r in table.itertuples()}
    # The entry under the model's own name wins; else the first in the file.
    assert got == {("openai", "openai", "gpt-x"): 2.0, ("openai", "openai", "gpt-y"): 5.0,
                   ("together", "together_ai", "free-model"): 0.0,
                   ("some-cloud", "Some_Cloud", "m"): 1.0}


def test_the_command(server, tmp_path):
    server.bodies["/m.json"] = tiny_map(**{"model-a": 1e-06})
    root = catalogue_root(tmp_path, server.url("/m.json"))
    runner = CliRunner()
    done = runner.invoke(main, ["ingest", "prices", "--root", str(root),
                                "--allow-network", "127.0.0.0/8"])
    assert done.exit_code == 0, done.output
    assert "ok  litellm: 2 prices of 1 models; 2 moves" in done.output
    refused = runner.invoke(main, ["ingest", "prices", "--root", str(root), "--strict"])
    assert refused.exit_code == 1 and "a loopback address" in refused.output
    unknown = runner.invoke(main, ["ingest", "prices", "--root", str(root), "--only", "nope"])
    assert unknown.exit_code == 2 and "no catalogue with id nope" in unknown.output


def test_a_stalled_server_is_given_up_on_at_the_deadline(tmp_path):
    import socket
    import time

    listener = socket.create_server(("127.0.0.1", 0))  # accepts, never answers
    try:
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/m.json"
        root = catalogue_root(tmp_path, url)
        catalogues, histories, healths, _ = load_catalogues(root)
        start = time.monotonic()
        (stalled,) = ingest_prices(root, catalogues, histories, healths, now=T0,
                                   settings=FetchSettings(allowed_networks=("127.0.0.0/8",),
                                                          deadline_s=0.5))
        assert time.monotonic() - start < 5  # a bound, not a timing: the deadline is 0.5 s
        assert not stalled.ok and "0.5 s deadline" in stalled.message
        assert health(root)["consecutive_failures"] == 1
    finally:
        listener.close()


def test_a_copy_read_elsewhere_is_a_snapshot_at_its_own_time(real_data, tmp_path):
    root = catalogue_root(tmp_path, "https://example.org/not-fetched.json")
    path = real_data / "litellm" / "model_prices_and_context_window.json"
    runner = CliRunner()
    done = runner.invoke(main, ["ingest", "prices", "--root", str(root), "--only", "litellm",
                                "--file", str(path), "--at", "2026-07-24T18:23+00:00"])
    assert done.exit_code == 0, done.output
    assert set(history(root)["first_seen"]) == {"2026-07-24T18:23Z"}
    alone = runner.invoke(main, ["ingest", "prices", "--root", str(root), "--file", str(path)])
    assert alone.exit_code == 2 and "one --only" in alone.output


def test_brief_check_names_the_file_the_entry_and_the_field(tmp_path):
    import shutil

    repo = Path(__file__).resolve().parents[1]
    shutil.copytree(repo / "sources", tmp_path / "sources")
    path = tmp_path / "sources" / "catalogues.yaml"
    text = path.read_text()
    path.write_text(text.replace("    licence: MIT\n", "    licence: none\n", 1)
                    .replace("    format: genai-prices\n", "    format: genai-prices\n    urll: x\n"))
    done = CliRunner().invoke(main, ["check", "--root", str(tmp_path)])
    assert done.exit_code == 1, done.output
    assert ("sources/catalogues.yaml:6:1: catalogues.0: a catalogue without a licence can only be "
            "used as a cross-check") in done.output
    assert "sources/catalogues.yaml:19:1: catalogues.1.urll: unknown key" in done.output
    path.write_text(text)
    # A damaged health record is the world's, not an editor's: a warning, rewritten by ingest.
    price_health_path(tmp_path, "genai-prices").write_text(
        '{"catalogue_id": "genai-prices", "url": "u", "prices": -1}')
    done = CliRunner().invoke(main, ["check", "--root", str(tmp_path)])
    assert done.exit_code == 0, done.output
    assert "sources/snapshots/prices/genai-prices.health.json: prices" in done.output
    assert "Traceback" not in done.output


def test_a_price_below_zero_is_left_out_and_said(server, tmp_path):
    body = json.loads(tiny_map(**{"model-a": 1e-06, "model-b": 2e-06}))
    body["model-b"]["output_cost_per_token"] = -8e-06
    server.bodies["/m.json"] = json.dumps(body).encode()
    root = catalogue_root(tmp_path, server.url("/m.json"))
    (done,) = run(root, T0)
    assert done.ok and done.message.startswith("3 prices of 2 models")
    assert health(root)["problems"] == [
        "openai model-b output_cost_per_token: -8e-06 is not a finite price of zero or more; its "
        "last good prices stay"]
    assert (history(root)["usd_per_mtok"] >= 0).all()
    (again,) = run(root, T0 + dt.timedelta(hours=1))  # the history still loads
    assert again.ok


def test_prices_that_do_not_read_keep_the_last_good_ones(server, tmp_path):
    # Issue 37: a 400-digit price stopped the whole ingest (OverflowError); NaN, inf and a
    # negative price read as the model no longer listed; 1e-400 read as free.
    server.bodies["/m.json"] = tiny_map(**{f"model-{c}": 1e-06 for c in "abcdefg"})
    root = catalogue_root(tmp_path, server.url("/m.json"))
    run(root, T0)
    before = history(root)
    text = tiny_map(**{f"model-{c}": 1e-06 for c in "abcdefg"}).decode()
    for model, written in (("model-a", "1" + "0" * 400), ("model-b", '"NaN"'),
                           ("model-c", "Infinity"), ("model-d", "-1e-06"), ("model-e", "1e-400"),
                           ("model-f", '"cheap"')):
        text = text.replace(f'"{model}": {{"litellm_provider": "openai", "mode": "chat", '
                            '"input_cost_per_token": 1e-06', f'"{model}": {{"litellm_provider": '
                            f'"openai", "mode": "chat", "input_cost_per_token": {written}', 1)
    server.bodies["/m.json"] = text.encode()
    (done,) = run(root, T0 + dt.timedelta(hours=1))
    assert done.ok, done.message
    assert done.message == "14 prices of 7 models; 0 moves"
    assert health(root)["problems"] == [
        f"openai model-{c} input_cost_per_token: {v} is not a finite price of zero or more; its "
        "last good prices stay"
        for c, v in (("a", "nan"), ("b", "NaN"), ("c", "inf"), ("d", "-1e-06"), ("e", "nan"),
                     ("f", "cheap"))]
    # Every listing keeps every price: none reads as delisted.
    assert history(root).equals(before)


def test_a_catalogue_that_does_not_read_never_stops_the_next(server, tmp_path):
    server.bodies["/a.json"] = b'{"m": {"litellm_provider": "openai", "mode": "chat", ' \
        b'"input_cost_per_token": ' + b"9" * 5000 + b"}}"
    server.bodies["/b.json"] = tiny_map(**{"model-a": 1e-06})
    root = catalogue_root(tmp_path, server.url("/a.json"))
    path = root / "sources" / "catalogues.yaml"
    doc = yaml.safe_load(path.read_text())
    doc["catalogues"].append(dict(doc["catalogues"][0], id="second", url=server.url("/b.json")))
    path.write_text(yaml.safe_dump(doc))
    first, second = run(root, T0)
    assert not first.ok and first.message.startswith("no token prices read as litellm")
    assert second.ok and second.message == "2 prices of 1 models; 2 moves"


def test_a_partial_export_is_held_as_failing(server, tmp_path):
    server.bodies["/m.json"] = tiny_map(**{f"model-{i}": 1e-06 for i in range(30)})
    root = catalogue_root(tmp_path, server.url("/m.json"))
    run(root, T0)
    before = price_history_path(root, "litellm").read_bytes()
    # 60 % of the models: over half the prices (not truncated), a third of the listings lost.
    server.bodies["/m.json"] = tiny_map(**{f"model-{i}": 1e-06 for i in range(18)})
    (partial,) = run(root, T0 + dt.timedelta(hours=1))
    assert not partial.ok
    assert partial.message == ("it lacks 12 of the 30 listings in force on 2026-11-01 (40%, more "
                               "than 20% within 30 days): a partial export?; the history is kept")
    assert price_history_path(root, "litellm").read_bytes() == before


def test_the_same_bytes_again_do_not_confirm_a_held_jump(tmp_path):
    # A server without validators answers the same file again: nothing new was shown.
    from pipeline.ingest.catalogues import ingest_file
    from pipeline.load.price_histories import load_catalogues

    root = catalogue_root(tmp_path, "https://example.org/m.json")

    def take(body: bytes, hours: int):
        catalogues, histories, healths, _ = load_catalogues(root)
        return ingest_file(root, catalogues, catalogues.catalogues[0], body, histories,
                           healths.get("litellm"), at=T0 + dt.timedelta(hours=hours))

    take(tiny_map(**{"model-a": 1e-06}), 0)
    jumped = tiny_map(**{"model-a": 1e-03})
    assert "2 held back" in take(jumped, 1).message
    assert "2 held back" in take(jumped, 2).message  # the same bytes: still held
    assert list(history(root)["usd_per_mtok"]) == [1.0, 4.0]
    assert "2 held back" not in take(jumped + b"\n", 3).message  # new content shows it again
    assert sorted(history(root)["usd_per_mtok"]) == [1.0, 4.0, 1000.0, 4000.0]


def test_a_partial_export_in_steps_is_held_against_the_most_listings_of_30_days(server,
                                                                                tmp_path):
    # Issue 50: against the last run only, 85 %, 72 %, 61 % and 52 % of the map each lost
    # under 20 % at once, and half the listings were delisted in four days.
    server.bodies["/m.json"] = tiny_map(**{f"model-{i}": 1e-06 for i in range(100)})
    root = catalogue_root(tmp_path, server.url("/m.json"))
    run(root, T0)
    runs = []
    for day, share in enumerate((85, 72, 61, 52), start=1):
        server.bodies["/m.json"] = tiny_map(**{f"model-{i}": 1e-06 for i in range(share)})
        (done,) = run(root, T0 + dt.timedelta(days=day))
        runs.append(done)
    assert runs[0].ok and runs[0].message == "170 prices of 85 models; 30 moves"
    assert [r.message for r in runs[1:]] == [
        f"it lacks {lost} of the 100 listings in force on 2026-11-01 ({lost}%, more than 20% "
        "within 30 days): a partial export?; the history is kept" for lost in (28, 39, 48)]
    assert not any(r.ok for r in runs[1:])
    assert (history(root)["gone_seen"] == "").sum() == 170
    assert health(root)["consecutive_failures"] == 3
    # Thirty days after the step to 85 %, the 100 are out of the window: 72 % is 15 % less.
    server.bodies["/m.json"] = tiny_map(**{f"model-{i}": 1e-06 for i in range(72)})
    (later,) = run(root, T0 + dt.timedelta(days=31, hours=1))
    assert later.ok and later.message == "144 prices of 72 models; 26 moves"
