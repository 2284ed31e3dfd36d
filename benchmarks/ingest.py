"""Time `brief ingest prices` of the real catalogues (LiteLLM's map, genai-prices' data.json)
served from 127.0.0.1, as the scheduled workflow runs it: into an empty history (the first
snapshot), again unchanged (the server answers 304), and with a copy of the LiteLLM map whose
three prices changed. Prints the median of each over `--runs` and the histories' sizes.

    python -m benchmarks.ingest --runs 3
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
REAL = REPO.parent / "shared" / "data" / "real"
FILES = {"/litellm.json": REAL / "litellm" / "model_prices_and_context_window.json",
         "/genai.json": REAL / "genai-prices" / "v2" / "data.json"}


def serve(bodies: dict[str, bytes]) -> ThreadingHTTPServer:
    """Serve `bodies` on 127.0.0.1 with strong ETags, answering If-None-Match with 304."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            body = bodies.get(self.path)
            etag = '"' + hashlib.sha256(body or b"").hexdigest()[:16] + '"'
            if body is None or self.headers.get("If-None-Match") == etag:
                self.send_response(404 if body is None else 304)
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

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def catalogue_root(folder: Path, port: int) -> Path:
    """A tree whose catalogues.yaml is the bundled one, each catalogue at the loopback server."""
    doc = yaml.safe_load((REPO / "sources" / "catalogues.yaml").read_text(encoding="utf-8"))
    urls = {"litellm": "/litellm.json", "genai-prices": "/genai.json"}
    doc["catalogues"] = [dict(c, url=f"http://127.0.0.1:{port}{urls[c['id']]}")
                         for c in doc["catalogues"] if c["id"] in urls]
    (folder / "sources").mkdir(parents=True)
    (folder / "sources" / "catalogues.yaml").write_text(yaml.safe_dump(doc, sort_keys=False),
                                                        encoding="utf-8")
    return folder


def ingest(root: Path) -> float:
    """Run `brief ingest prices` on `root`; return its wall time in seconds."""
    began = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pipeline.cli", "ingest", "prices", "--root",
                    str(root), "--allow-network", "127.0.0.0/8", "--strict"], check=True,
                   cwd=REPO, stdout=subprocess.DEVNULL)
    return time.perf_counter() - began


def changed(litellm: bytes) -> bytes:
    """Return the map with three chat models' input prices cut by a fifth (the first three that
    have one, so a renamed model does not stop the benchmark)."""
    doc = json.loads(litellm)
    chat = [e for e in doc.values() if isinstance(e, dict) and e.get("mode") == "chat"
            and isinstance(e.get("input_cost_per_token"), float)]
    for entry in chat[:3]:
        entry["input_cost_per_token"] *= 0.8
    return json.dumps(doc).encode()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    missing = [str(f) for f in FILES.values() if not f.is_file()]
    if missing:
        print(f"no real catalogue at {', '.join(missing)}: this benchmark reads the real maps "
              "in ../shared/data/real/", file=sys.stderr)
        return 2
    bodies = {path: file.read_bytes() for path, file in FILES.items()}
    server = serve(bodies)
    times: dict[str, list[float]] = {"first": [], "unchanged": [], "three changed": []}
    sizes: dict[str, int] = {}
    try:
        for _ in range(args.runs):
            bodies["/litellm.json"] = FILES["/litellm.json"].read_bytes()
            with tempfile.TemporaryDirectory() as scratch:
                root = catalogue_root(Path(scratch), server.server_address[1])
                times["first"].append(ingest(root))
                times["unchanged"].append(ingest(root))
                bodies["/litellm.json"] = changed(bodies["/litellm.json"])
                times["three changed"].append(ingest(root))
                folder = root / "sources" / "snapshots" / "prices"
                sizes = {p.name: p.stat().st_size for p in sorted(folder.glob("*.csv"))}
    finally:
        server.shutdown()
    for name, values in times.items():
        print(f"ingest prices, {name:13}: median {statistics.median(values):.2f} s of "
              f"{len(values)} ({', '.join(f'{v:.2f}' for v in values)})")
    for name, size in sizes.items():
        print(f"history {name}: {size:,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
