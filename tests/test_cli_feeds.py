"""The lane's commands through click: ingest feeds, candidates, add."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import click
import pytest
import yaml
from click.testing import CliRunner

from pipeline.cli.editors import new
from pipeline.cli.feeds import ingest_feeds, register
from pipeline.models.entries import Entry
from pipeline.models.links import refused_links
from pipeline.problems import SourceError
from pipeline.render.markdown_html import markdown_html
from tests.feed_server import FeedServer

REPO = Path(__file__).resolve().parents[1]


def cli() -> click.Group:
    group = click.Group("brief")
    ingest = click.Group("ingest")
    ingest.add_command(ingest_feeds)
    group.add_command(ingest)
    register(group)
    return group


def copy_sources(tmp_path: Path) -> Path:
    # Without the curated entries: candidates are the items no entry has taken yet.
    shutil.copytree(REPO / "sources", tmp_path / "sources",
                    ignore=shutil.ignore_patterns("entries"))
    return tmp_path


def test_candidates_lists_ranked_items_with_also_reported_by(tmp_path: Path) -> None:
    root = copy_sources(tmp_path)
    result = CliRunner().invoke(cli(), ["candidates", "--root", str(root), "--date", "2026-09-12"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "3 candidates in (2026-09-04, 2026-09-12]; top 3:"
    assert "[mlcommons] MLPerf Inference v6.1 results" in lines[1]
    assert "(also: NVIDIA Technical Blog)" in lines[1]


def test_add_writes_a_valid_entry_for_an_editor_to_finish(tmp_path: Path) -> None:
    root = copy_sources(tmp_path)
    out = CliRunner().invoke(cli(), ["candidates", "--root", str(root), "--date", "2026-09-12"])
    local_id = next(line.split()[1] for line in out.output.splitlines() if "[36kr]" in line)
    result = CliRunner().invoke(cli(), ["add", "--root", str(root), local_id[:8]])
    assert result.exit_code == 0, result.output
    written = list((root / "sources" / "entries").rglob("*.yaml"))
    assert len(written) == 1 and written[0].parent.name == "2026"
    doc = yaml.safe_load(written[0].read_text("utf-8"))
    assert doc.pop("draft") is True  # refused until an editor deletes it (test below)
    entry = Entry.model_validate(doc)
    assert entry.section == "local" and entry.original_headline.startswith("DeepSeek Flash")
    assert entry.links[0].publisher == "36氪 (36Kr)" and entry.links[0].language == "zh"
    again = CliRunner().invoke(cli(), ["add", "--root", str(root), local_id[:8]])
    assert again.exit_code == 1 and "exists already" in again.output
    missing = CliRunner().invoke(cli(), ["add", "--root", str(root), "nope"])
    assert "no feed item with id 'nope'" in missing.output


def test_an_added_entry_is_a_draft_whose_feed_text_is_escaped(tmp_path: Path) -> None:
    # A feed summary that writes Markdown: a script link, an image from a data: URL. Pre-filled
    # into our Markdown it must read as those characters, and the draft must not build.
    root = copy_sources(tmp_path)
    snapshot = root / "sources" / "snapshots" / "feeds" / "36kr.json"
    doc = json.loads(snapshot.read_text("utf-8"))
    item = doc["items"][0]
    item["summary_text"] = "Cheaper: [read](javascript:alert(1)) ![x](data:text/html,hi) <b>"
    snapshot.write_text(json.dumps(doc, ensure_ascii=False, indent=1), encoding="utf-8")
    result = CliRunner().invoke(cli(), ["add", "--root", str(root), item["id"][:10]])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("wrote sources/entries/")
    assert result.output.rstrip().endswith("a draft; write it in our own words, delete its "
                                           "`draft: true` line, then run `brief check`")
    [path] = (root / "sources" / "entries").rglob("*.yaml")
    entry_doc = yaml.safe_load(path.read_text("utf-8"))
    assert entry_doc["summary"].endswith(
        r"Feed summary: Cheaper: \[read\]\(javascript:alert\(1\)\) \!\[x\]\(data:text/html,hi\) "
        "&lt;b&gt;")
    assert refused_links(entry_doc["summary"]) == []
    assert markdown_html(entry_doc["summary"]).count("<a") == 0
    with pytest.raises(SourceError) as err:
        load_entries_of(root)
    assert [(p.path, p.field, p.message) for p in err.value.problems] == [(
        path.relative_to(root).as_posix(), "draft", "this entry is a draft pre-filled by "
        "`brief add`; write the headline and summary in our own words, then delete the "
        "`draft: true` line (got True)")]
    # Without its draft line, the TODOs `brief add` wrote still keep it off the site.
    text = path.read_text("utf-8")
    path.write_text(text.replace("draft: true\n", ""), encoding="utf-8")
    with pytest.raises(SourceError) as err:
        load_entries_of(root)
    rel_path = path.relative_to(root).as_posix()
    line = {key: n for n, key in enumerate((ln.split(":")[0] for ln in text.splitlines()), 1)}
    assert [p.located() for p in err.value.problems] == [
        f"{rel_path}:{line[field]}:1: {field}: still says TODO, as `brief add` pre-filled it; "
        "write it in our own words" for field in ("headline", "summary")]
    entry_doc |= {"headline": "DeepSeek cuts Flash prices", "summary": "A paragraph of ours."}
    del entry_doc["draft"]
    path.write_text(yaml.safe_dump(entry_doc, allow_unicode=True), encoding="utf-8")
    load_entries_of(root)


def test_an_added_entry_starts_as_brief_new_starts_one(tmp_path: Path) -> None:
    root = copy_sources(tmp_path)
    item = json.loads((root / "sources" / "snapshots" / "feeds" / "36kr.json").read_text("utf-8"))
    assert CliRunner().invoke(cli(), ["add", "--root", str(root), item["items"][0]["id"][:10]]
                              ).exit_code == 0
    [added] = (root / "sources" / "entries").rglob("*.yaml")
    assert CliRunner().invoke(new, ["entry", "--slug", "by-hand", "--date", "2026-09-12",
                                    "--root", str(root)]).exit_code == 0
    made = root / "sources" / "entries" / "2026" / "09-12-by-hand.yaml"
    first_lines = [p.read_text("utf-8").splitlines()[0] for p in (added, made)]
    assert first_lines[0] == first_lines[1] == (
        "# yaml-language-server: $schema=../../../schemas/entry.schema.json")
    dated = [ln for ln in added.read_text("utf-8").splitlines() if ln.startswith("date:")]
    assert dated == [f"date: {item['items'][0]['published'][:10]}"]  # unquoted, as brief new's


def load_entries_of(root: Path) -> None:
    from pipeline.load.sources import load_sources

    load_sources(root)


def test_ingest_feeds_command_fetches_and_reports(tmp_path: Path) -> None:
    with FeedServer() as server:
        (tmp_path / "sources").mkdir()
        (tmp_path / "sources" / "feeds.yaml").write_text(
            "topics:\n  pricing: [price]\nfeeds:\n"
            f"  - id: normal\n    url: {server.url('/normal.xml')}\n    title: Normal\n"
            f"  - id: broken\n    url: {server.url('/status/500')}\n    title: Broken\n",
            encoding="utf-8")
        args = ["ingest", "feeds", "--root", str(tmp_path), "--allow-network", "127.0.0.0/8"]
        result = CliRunner().invoke(cli(), args)
        assert result.exit_code == 0, result.output
        assert "[1/2]" in result.output or "[2/2]" in result.output
        assert "2 feeds in" in result.output and "1 ok or skipped, 1 failed" in result.output
        assert (tmp_path / "sources" / "snapshots" / "feeds" / "normal.json").exists()
        strict = CliRunner().invoke(cli(), [*args, "--strict"])
        assert strict.exit_code == 1


def test_ingest_feeds_runs_with_stderr_closed(tmp_path: Path) -> None:
    # A cron job or daemon may start `brief` with stderr closed (Python then sets it to None).
    import subprocess
    import sys

    with FeedServer() as server:
        (tmp_path / "sources").mkdir()
        (tmp_path / "sources" / "feeds.yaml").write_text(
            "topics:\n  pricing: [price]\nfeeds:\n"
            f"  - id: normal\n    url: {server.url('/normal.xml')}\n    title: Normal\n",
            encoding="utf-8")
        proc = subprocess.run(
            f'"{sys.executable}" -m pipeline.cli.main ingest feeds --root "{tmp_path}" '
            "--allow-network 127.0.0.0/8 2>&-", shell=True, cwd=REPO, check=False,
            capture_output=False, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
        assert proc.returncode == 0
        assert (tmp_path / "sources" / "snapshots" / "feeds" / "normal.json").exists()
