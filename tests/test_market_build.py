"""Issue 20's acceptance: the real LiteLLM map served from 127.0.0.1, ingested, then a copy with
three prices changed, one model removed and one added, ingested again, and the site built: the
Changes page and the next edition list exactly those moves with their dates, the Market page
holds every plausible text model with a token price, and no value anywhere is inf or nan.

Issue 36's acceptance on the same build: the map's implausible listings (Weights & Biases'
13 per-token prices about 100,000× too high among them) are held back, out of the Market page,
the data files and the model pages, and listed on the Discrepancies page; W&B's three correct
listings stay."""

from __future__ import annotations

import datetime as dt
import html
import json
import re
import shutil
from pathlib import Path

import pytest
import yaml
from test_ingest_prices import T0, CatalogueServer, history, run

from pipeline.orchestrate.site import build_site
from pipeline.paths import PRICE_SNAPSHOTS

# Three chat models no curated file prices (a curated price wins, and its moves are the
# curated figures'), each changed in one meter; one removed, one added.
CHANGED = {"gpt-4o": ("input_cost_per_token", 2.5e-06, 2e-06),
           "xai/grok-3": ("output_cost_per_token", 1.5e-05, 1.8e-05),
           "command-r-plus": ("input_cost_per_token", 2.5e-06, 2e-06)}
REMOVED, ADDED = "gpt-4o-mini", "example-model-9"
NEXT_EDITION = "2026-11-20"
"""The first edition after the second snapshot (2026-11-03)."""
WANDB_INFLATED = ("Qwen/Qwen3-235B-A22B-Instruct-2507", "Qwen/Qwen3-235B-A22B-Thinking-2507",
                  "Qwen/Qwen3-Coder-480B-A35B-Instruct", "deepseek-ai/DeepSeek-R1-0528",
                  "deepseek-ai/DeepSeek-V3-0324", "deepseek-ai/DeepSeek-V3.1",
                  "meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.3-70B-Instruct",
                  "meta-llama/Llama-4-Scout-17B-16E-Instruct", "microsoft/Phi-4-mini-instruct",
                  "openai/gpt-oss-120b", "openai/gpt-oss-20b", "zai-org/GLM-4.5")
"""The map's W&B listings of 2026-07-24 whose per-token costs hold per-Mtok-scale figures."""
WANDB_CORRECT = ("moonshotai/Kimi-K2-Instruct", "moonshotai/Kimi-K2.5", "MiniMaxAI/MiniMax-M2.5")
NOT_A_NUMBER = re.compile(r"(?<![A-Za-z])-?(?:inf|nan|NaN|Infinity)(?![A-Za-z])")


@pytest.fixture
def server():
    s = CatalogueServer()
    yield s
    s.httpd.shutdown()


def market_root(tmp_path: Path, repo: Path, url: str, catalogue: str = "litellm") -> Path:
    """The bundled sources, following only `catalogue` (served at `url`), with no snapshot
    yet."""
    root = tmp_path / "root"
    shutil.copytree(repo / "sources", root / "sources")
    shutil.rmtree(root / PRICE_SNAPSHOTS)
    path = root / "sources" / "catalogues.yaml"
    doc = yaml.safe_load(path.read_text())
    doc["catalogues"] = [dict(c, url=url) for c in doc["catalogues"] if c["id"] == catalogue]
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return root


def text_of(page: Path) -> str:
    body = page.read_text()
    # A span (a number kept whole, render/table_numbers.py) is inline: no space in its place.
    body = re.sub(r"</?span[^>]*>", "", body[body.find("<article"):])
    return html.unescape(re.sub(r"<[^>]+>", " ", body))


def test_two_snapshots_of_the_real_map_built(real_data, server, tmp_path):
    from conftest import REPO

    real = (real_data / "litellm" / "model_prices_and_context_window.json").read_bytes()
    server.bodies["/map.json"] = real
    root = market_root(tmp_path, REPO, server.url("/map.json"))
    (first,) = run(root, T0)
    assert first.ok, first.message

    doc = json.loads(real)
    for key, (field, was, now) in CHANGED.items():
        assert doc[key]["mode"] == "chat" and doc[key][field] == was
        doc[key][field] = now
    assert doc.pop(REMOVED)["mode"] == "chat"
    doc[ADDED] = {"litellm_provider": "openai", "mode": "chat",
                  "input_cost_per_token": 1e-06, "output_cost_per_token": 4e-06}
    server.bodies["/map.json"] = json.dumps(doc).encode()
    (second,) = run(root, T0 + dt.timedelta(days=2))
    assert second.ok, second.message

    out = tmp_path / "public"
    build_site(root, out, today=dt.date(2026, 11, 30))

    # The Changes page of the month: those moves and no other, first seen 2026-11-03, under
    # one heading (a fetch, not a commit).
    page = (out / "changes" / "2026-11" / "index.html").read_text()
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", page, re.S)
    cells = [[html.unescape(re.sub(r"<[^>]+>", "", c)).strip()
              for c in re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)] for r in rows]
    cells = [c for c in cells if len(c) == 6]
    heads = [html.unescape(re.sub(r"<[^>]+>", "", h)) for h in
             re.findall(r'<th[^>]*colspan[^>]*>(.*?)</th>', page, re.S)]
    assert len(heads) == 1 and heads[0].startswith("2026-11-03"), heads
    got = sorted((c[1], c[2], c[3], c[4], c[5]) for c in cells)
    assert got == sorted([
        ("gpt-4o", "input", "$2.50", "$2.00", "-20.0%"),
        ("grok-3", "output", "$15.00", "$18.00", "+20.0%"),
        ("command-r-plus", "input", "$2.50", "$2.00", "-20.0%"),
        # gpt-4o-mini's five prices in the map (per token: cache read 7.5e-08, input 1.5e-07,
        # input batches 7.5e-08, output 6e-07, output batches 3e-07), priority aside.
        *((REMOVED, tier, price, "", "no longer listed")
          for tier, price in [("cached input", "$0.075"), ("input", "$0.15"),
                              ("input, batch", "$0.075"), ("output", "$0.60"),
                              ("output, batch", "$0.30")]),
        (ADDED, "input", "", "$1.00", "new"),
        (ADDED, "output", "", "$4.00", "new")])

    # The next edition lists exactly those moves, biggest first; the one before lists none.
    edition = text_of(out / "briefings" / NEXT_EDITION / "index.html")
    label = ("LiteLLM model price map since 2026-10-16: 5 models moved (3 repriced, "
             "1 newly listed, 1 no longer listed)")
    assert label in edition
    part = edition[edition.index(label):]
    end = "(first seen 2026-11-03)."
    part = part[:part.index(end, part.index("No longer listed")) + len(end)]
    assert re.findall(r"(?:Repriced, biggest move first|Newly listed|No longer listed): ",
                      part) == ["Repriced, biggest move first: ", "Newly listed: ",
                                "No longer listed: "]
    # Three moves of 20 %: by provider then.
    assert part.index("cohere") < part.index("openai gpt-4o:") < part.index("xai grok-3")
    assert "cohere command-r-plus: input $2.50 → $2.00 (-20%) (first seen 2026-11-03)" in part
    assert "openai gpt-4o: input $2.50 → $2.00 (-20%) (first seen 2026-11-03)" in part
    assert "xai grok-3: output $15.00 → $18.00 (+20%) (first seen 2026-11-03)" in part
    assert f"openai {ADDED}: input $1.00; output $4.00 (first seen 2026-11-03)" in part
    assert f"openai {REMOVED}: " in part
    assert part.count("first seen") == 5
    earlier = text_of(out / "briefings" / "2026-10-16" / "index.html")
    assert "LiteLLM model price map since" not in earlier

    # The Market page: every plausible text model with a token price in the history, plus the
    # curated.
    from pipeline.load.sources import load_sources
    sources = load_sources(root)
    table = sources.price_histories["litellm"]
    live = table[(table["gone_seen"] == "") & table["meter"].isin(["input", "output"])
                 & (table["mode"] == "realtime") & (table["context_above_tokens"] == "0")
                 & (table["window_utc"] == "")]
    pairs = set(zip(live["provider"], live["model"], strict=True))
    whole = history(root)
    assert len(set(zip(whole["provider"], whole["model"], strict=True)) - pairs) > 40
    curated = {(p.stem, m) for p in (root / "sources" / "prices").glob("*.yaml")
               for m in re.findall(r"^\s*- model: (\S+)", p.read_text(), re.M)}
    market = json.loads((out / "data" / "market.json").read_text())
    shown = {(r["provider"], r["model"]) for r in market}
    assert len(market) == len(shown) == len(pairs | curated) > 1500
    print(f"Market page: {len(market)} models with a token price")
    page = (out / "market" / "index.html").read_text()
    assert len(re.findall(r'<tr id="m-[^"]+" data-provider="', page)) == len(market)
    assert_implausible_held_back(out, market)
    assert_model_page_lists_every_provider(out, doc, root, "deepseek-r1-0528")

    # No inf or nan as a value in any page, feed or data file.
    for path in out.rglob("*"):
        if path.suffix in {".html", ".csv", ".json", ".xml", ".txt", ".ics"}:
            found = NOT_A_NUMBER.search(path.read_text(errors="replace"))
            assert found is None, f"{path.relative_to(out)}: {found.group()!r}"


def assert_implausible_held_back(out: Path, market: list[dict]) -> None:
    """No published figure is an implausible listing, and each held one is on the
    Discrepancies page."""
    wandb = {r["model"] for r in market if r["provider"] == "wandb"}
    assert wandb == set(WANDB_CORRECT)
    for row in market:
        for meter in ("input", "cached_input", "output"):
            price = row[f"{meter}_usd_per_mtok"]
            assert price is None or price <= 1000, (row["provider"], row["model"], price)
    for path in [*(out / "data").glob("*.csv"), *(out / "data").glob("*.json")]:
        text = path.read_text()
        for model in WANDB_INFLATED:
            assert f"wandb,wandb,{model}," not in text and f"wandb,{model}," not in text, (path, model)
            assert f'"provider":"wandb","model":"{model}"' not in text, (path, model)
    for path in [out / "market" / "index.html", *(out / "models").rglob("*.html")]:
        rows = re.findall(r'<tr[^>]* data-provider="wandb".*?</tr>', path.read_text(), re.S)
        for model in WANDB_INFLATED:
            assert not any(f">{model}<" in r for r in rows), (path, model)
    held = " ".join(text_of(out / "discrepancies" / "index.html").split())
    section = held[held.index("Held back as implausible"):held.index("Catalogues against")]
    for model in WANDB_INFLATED:
        # The median beside it where at least two other providers list the model.
        assert re.search(rf"wandb {re.escape(model)} (input|output) \$[\d,]+\.\d\d "
                         rf"(\$[\d.]+ \(median of \d+\) )?\d{{4}}-", section), model
    # By model identity (issue 50): the 0528 listings however each host spells them.
    assert "wandb deepseek-ai/DeepSeek-R1-0528 input $135,000.00 $0.75 (median of 9)" in section
    assert "×180,000 above the median of 9 other providers" in section
    assert "azure jais-30b-chat input $3,200.00" in section
    assert "above the ceiling of $1,000 per Mtok" in section
    for model in WANDB_CORRECT:
        assert f"wandb {model}" not in section


def assert_model_page_lists_every_provider(out: Path, doc: dict, root: Path,
                                           canonical: str) -> None:
    """Issue 39's acceptance: the model's page lists every provider the map prices it at (a
    listing held back as implausible named apart, unpriced), cheapest first by the first
    workload's blend, each listing linked to its own row on the Market page."""
    from pipeline.normalize.model_ids import canonical_model
    from pipeline.normalize.providers import our_provider

    providers = yaml.safe_load((root / "sources" / "catalogues.yaml").read_text())["providers"]
    expected = {(our_provider(entry["litellm_provider"], providers), key)
                for key, entry in doc.items()
                if isinstance(entry, dict) and entry.get("mode") == "chat"
                and canonical_model(key) == canonical
                and entry.get("input_cost_per_token") is not None}
    assert len({p for p, _ in expected}) >= 8  # DeepSeek-R1-0528 is hosted widely
    page = (out / "models" / canonical / "index.html").read_text()
    table = page[page.index("<tbody>"):page.index("</tbody>")]
    # The provider links to its page, the model id to the listing's row on the Market page.
    rows = re.findall(r'<tr><th scope="row"><a href="../../providers/[^"]+/">([^<]+)</a></th>'
                      r'<td><a href="../../market/#([^"]+)">([^<]+)</a>(.*?)</tr>', table, re.S)
    rows = [(anchor, provider, model, rest) for provider, anchor, model, rest in rows]
    listed = {(html.unescape(p), html.unescape(m)) for _, p, m, _ in rows}
    held = {(html.unescape(p), html.unescape(m)) for p, m in re.findall(
        r"([\w-]+) \(<code>([^<]+)</code>\)", page[page.index("Held back as implausible"):])}
    assert {p for p, _ in listed | held} == {p for p, _ in expected}
    # Cheapest first: the first blend column (after the six meters and the context).
    blends = [float(c.removeprefix("$").replace(",", "")) for _, _, _, rest in rows
              if (c := re.findall(r'<td class="brief-num">([^<]*)</td>', rest)[7])
              and c != "free"]
    assert blends == sorted(blends) and len(blends) >= 8
    market = (out / "market" / "index.html").read_text()
    for anchor, provider, model, _ in rows:
        row = re.search(rf'<tr id="{re.escape(anchor)}" data-provider="([^"]+)".*?</tr>',
                        market, re.S)
        assert row is not None, anchor
        assert row.group(1) == provider and f">{model}</a>" in row.group(0), anchor
        # And back: the row's model links to this page.
        assert f'href="../models/{canonical}/"' in row.group(0)
