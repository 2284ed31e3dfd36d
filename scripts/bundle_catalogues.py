"""Rebuild the bundled catalogue histories under sources/snapshots/prices/ from the real data in
../shared/data/real/ (whose READMEs allow shipping what `brief ingest prices` derives from it).

LiteLLM: the mirror's history of 22 models (640 snapshots, 2025-02-06 to 2026-07-24) replayed
snapshot by snapshot, then the whole map of 2026-07-24; genai-prices: its data.json of
2026-08-21. Each snapshot goes through the same code as `brief ingest prices --file`.

    .venv/bin/python scripts/bundle_catalogues.py [../shared/data/real]
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path

import pandas as pd

from pipeline.ingest.catalogues import ingest_file
from pipeline.load.price_histories import load_catalogues
from pipeline.models.catalogues import CatalogueHealth
from pipeline.paths import PRICE_SNAPSHOTS, price_health_path

REPO = Path(__file__).resolve().parents[1]
FIELDS = ["input_cost_per_token", "output_cost_per_token", "cache_read_input_token_cost",
          "cache_creation_input_token_cost", "input_cost_per_token_batches",
          "output_cost_per_token_batches", "input_cost_per_token_above_200k_tokens",
          "output_cost_per_token_above_200k_tokens", "input_cost_per_token_above_272k_tokens",
          "output_cost_per_token_above_272k_tokens", "input_cost_per_token_priority",
          "output_cost_per_token_priority", "input_cost_per_token_flex",
          "output_cost_per_token_flex"]
NOTICES = {
    "litellm": ("LiteLLM's model_prices_and_context_window.json (BerriAI/litellm), through the "
                "RoCry/llm-api-price mirror", "Copyright (c) 2023 Berri AI"),
    "genai-prices": ("pydantic/genai-prices, prices/new_data/v2/data.json",
                     "Copyright (c) Pydantic Services Inc."),
}
MIT = """Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
"""


def take(cid: str, data: bytes, at: dt.datetime) -> str:
    catalogues, histories, healths, problems = load_catalogues(REPO)
    assert catalogues is not None and not problems, problems
    (catalogue,) = [c for c in catalogues.catalogues if c.id == cid]
    run = ingest_file(REPO, catalogues, catalogue, data, histories, healths.get(cid),
                      at=at)
    if not run.ok:
        raise SystemExit(f"{cid} at {at.isoformat()}: {run.message}")
    return run.message


def replay_litellm(real: Path) -> None:
    events = pd.read_csv(real / "litellm" / "price_history_selected_models.csv", dtype=str,
                         keep_default_na=False)
    state: dict[str, dict] = {}
    for when, group in events.groupby("snapshot_committed_at", sort=False):
        for row in group.itertuples(index=False):
            if row.change == "removed":
                state.pop(row.model_key, None)
                continue
            state[row.model_key] = {"litellm_provider": row.litellm_provider, "mode": "chat",
                                    **{f: float(getattr(row, f)) for f in FIELDS
                                       if getattr(row, f) != ""}}
        at = dt.datetime.fromisoformat(str(when)).astimezone(dt.UTC)
        take("litellm", json.dumps(state).encode(), at)
    whole = (real / "litellm" / "model_prices_and_context_window.json").read_bytes()
    stamp = dt.datetime.fromisoformat(json.loads(whole)["last_updated"]).replace(microsecond=0)
    print("litellm:", take("litellm", whole, stamp))
    # The replayed models came first: the whole catalogue's history starts with its map.
    path = price_health_path(REPO, "litellm")
    health = CatalogueHealth.model_validate_json(path.read_bytes())
    path.write_text(health.model_copy(update={"whole_since": stamp}).model_dump_json(indent=1)
                    + "\n")


def main() -> None:
    real = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO.parent / "shared" / "data" / "real"
    folder = REPO / PRICE_SNAPSHOTS
    for cid in NOTICES:
        for path in folder.glob(f"{cid}.*"):
            path.unlink()
    replay_litellm(real)
    data = (real / "genai-prices" / "v2" / "data.json").read_bytes()
    print("genai-prices:", take("genai-prices", data, dt.datetime(2026, 8, 21, tzinfo=dt.UTC)))
    for cid, (what, holder) in NOTICES.items():
        (folder / f"{cid}.LICENSE.txt").write_text(
            f"{cid}.csv is derived by `brief ingest prices` from {what}.\n"
            f"That data is used under the MIT License:\n\nMIT License\n\n{holder}\n\n{MIT}")


if __name__ == "__main__":
    main()
