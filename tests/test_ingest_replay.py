"""`brief ingest prices --history`: a catalogue's git history replayed into its price history,
from small repositories made here with fixed commit dates (and the real bundle when present)."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import IN_CI, tree_digest
from test_ingest_prices import catalogue_root

import pipeline.ingest.replay as replay_module
from pipeline.cli.main import main
from pipeline.ingest.catalogues import read_catalogue
from pipeline.ingest.replay import read_log, replay_history
from pipeline.load.price_histories import load_catalogues
from pipeline.paths import price_commits_path, price_health_path, price_history_path
from pipeline.tables.catalogue_history import KEY, read_history_csv, snapshot_table

GENAI = "genai-prices"
REPOSITORY = "https://github.com/pydantic/genai-prices"
NEW, OLD = "prices/new_data/v2/data.json", "prices/data.json"
ROW = ["provider", "model", "meter", "usd_per_mtok", "first_seen", "gone_seen", "from_date",
       "commit", "dated_by"]


def git(repo: Path, *args: str, at: str | None = None) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    if at:
        env |= {"GIT_AUTHOR_DATE": at, "GIT_COMMITTER_DATE": at}
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          env=env, check=True)
    return done.stdout.strip()


def new_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    return path


def commit(repo: Path, at: str, subject: str, files: dict[str, bytes]) -> str:
    """Commit `files` (path: bytes) at `at` (ISO 8601 with its zone); return the sha."""
    for name, data in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_bytes(data)
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q",
        "--allow-empty", "-m", subject, at=at)
    return git(repo, "rev-parse", "HEAD")


def data(**models: object) -> bytes:
    """A genai-prices data.json: `provider__model=(input, output)` or a list of conditional
    prices."""
    providers: dict[str, list] = {}
    for key, prices in models.items():
        provider, model = key.split("__")
        if isinstance(prices, tuple):
            prices = {"input_mtok": prices[0], "output_mtok": prices[1]}
        providers.setdefault(provider, []).append({"id": model, "prices": prices})
    return json.dumps([{"id": p, "models": m} for p, m in providers.items()]).encode()


def replay_root(path: Path) -> Path:
    path.mkdir(parents=True)
    catalogue_root(path, f"https://raw.githubusercontent.com/pydantic/genai-prices/main/{NEW}",
                   fmt=GENAI, cid=GENAI)
    file = path / "sources" / "catalogues.yaml"
    doc = yaml.safe_load(file.read_text())
    doc["catalogues"][0].update(repository=REPOSITORY, history_files=[NEW, OLD])
    file.write_text(yaml.safe_dump(doc))
    return path


def replay(root: Path, repo: Path, **kwargs):
    catalogues, histories, healths, problems = load_catalogues(root)
    assert problems == []
    return replay_history(root, catalogues, catalogues.catalogues[0], repo, histories,
                          healths.get(GENAI), **kwargs)


def rows(root: Path, columns: list[str] = ROW) -> list[tuple]:
    table = read_history_csv(price_history_path(root, GENAI).read_bytes())
    return sorted(tuple(r) for r in table[columns].itertuples(index=False))


def log(root: Path) -> list[tuple]:
    return [tuple(r) for r in read_log(price_commits_path(root, GENAI)).itertuples(index=False)]


def files(root: Path) -> tuple[bytes, bytes]:
    return (price_history_path(root, GENAI).read_bytes(),
            price_commits_path(root, GENAI).read_bytes())


def four_commits(repo: Path) -> list[str]:
    """A cut, a rename, a cut: four versions of prices/data.json, a day apart."""
    return [commit(repo, "2025-06-21T10:00:00+05:30", "first", {
                OLD: data(openai__gpt_a=(1.0, 2.0), anthropic__claude_b=(3.0, 15.0))}),
            commit(repo, "2025-06-22T09:15:30+00:00", "cut gpt_a", {
                OLD: data(openai__gpt_a=(0.5, 2.0), anthropic__claude_b=(3.0, 15.0))}),
            commit(repo, "2025-06-23T12:00:00-07:00", "rename claude_b", {
                OLD: data(openai__gpt_a=(0.5, 2.0), anthropic__claude_c=(3.0, 15.0))}),
            commit(repo, "2025-06-24T08:00:00+00:00", "cut claude_c", {
                OLD: data(openai__gpt_a=(0.5, 2.0), anthropic__claude_c=(2.0, 15.0))})]


def test_each_commit_dates_the_prices_it_first_showed_in_utc(tmp_path):
    repo = new_repo(tmp_path / "repo")
    c1, c2, c3, _c4 = four_commits(repo)
    git(repo, "reset", "-q", "--hard", c3)
    root = replay_root(tmp_path / "root")
    run = replay(root, repo)
    assert (run.commits, run.moves, run.prices, run.unreadable) == (3, 9, 4, [])
    t1, t2, t3 = "2025-06-21T04:30Z", "2025-06-22T09:15Z", "2025-06-23T19:00Z"
    assert rows(root) == [
        ("anthropic", "claude_b", "input", 3.0, t1, t3, "", c1, "commit"),
        ("anthropic", "claude_b", "output", 15.0, t1, t3, "", c1, "commit"),
        ("anthropic", "claude_c", "input", 3.0, t3, "", "", c3, "commit"),
        ("anthropic", "claude_c", "output", 15.0, t3, "", "", c3, "commit"),
        ("openai", "gpt_a", "input", 0.5, t2, "", "", c2, "commit"),
        ("openai", "gpt_a", "input", 1.0, t1, t2, "", c1, "commit"),
        ("openai", "gpt_a", "output", 2.0, t1, "", "", c1, "commit")]
    assert log(root) == [(c1, t1, "first", "4", "", ""), (c2, t2, "cut gpt_a", "1", "", ""),
                         (c3, t3, "rename claude_b", "4", "", "")]


def test_a_merged_branch_is_read_at_its_merge_on_the_main_line(tmp_path):
    repo = new_repo(tmp_path / "repo")
    c1 = commit(repo, "2025-06-21T10:00:00+00:00", "first", {OLD: data(openai__gpt_a=(1.0, 2.0))})
    git(repo, "checkout", "-q", "-b", "side")
    commit(repo, "2025-06-22T10:00:00+00:00", "on a branch", {OLD: data(openai__gpt_a=(0.5, 2.0))})
    git(repo, "checkout", "-q", "main")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "merge", "-q", "--no-ff",
        "-m", "merge side", "side", at="2025-06-23T10:00:00+00:00")
    merge = git(repo, "rev-parse", "HEAD")
    root = replay_root(tmp_path / "root")
    replay(root, repo)
    assert log(root) == [(c1, "2025-06-21T10:00Z", "first", "2", "", ""),
                         (merge, "2025-06-23T10:00Z", "merge side", "1", "", "")]
    assert rows(root)[0] == ("openai", "gpt_a", "input", 0.5, "2025-06-23T10:00Z", "", "",
                             merge, "commit")

def test_a_start_date_or_a_daily_window_is_the_catalogues_own(tmp_path):
    repo = new_repo(tmp_path / "repo")
    sha = commit(repo, "2025-07-01T00:00:00+00:00", "dated", {OLD: data(
        openai__gpt_a=[{"prices": {"input_mtok": 1.0}},
                       {"constraint": {"start_date": "2025-08-01"}, "prices": {"input_mtok": 0.8}}],
        deepseek__chat=[{"prices": {"input_mtok": 0.27}},
                        {"constraint": {"start_time": "16:30:00Z", "end_time": "00:30:00Z"},
                         "prices": {"input_mtok": 0.135}}])})
    root = replay_root(tmp_path / "root")
    replay(root, repo)
    t = "2025-07-01T00:00Z"
    assert rows(root, [*ROW, "window_utc"]) == [
        ("deepseek", "chat", "input", 0.135, t, "", "", sha, "commit", "16:30-00:30"),
        ("deepseek", "chat", "input", 0.27, t, "", "", sha, "commit", ""),
        ("openai", "gpt_a", "input", 0.8, t, "", "2025-08-01", sha, "catalogue", ""),
        ("openai", "gpt_a", "input", 1.0, t, "", "", sha, "commit", "")]


def test_a_version_that_does_not_read_is_logged_and_the_next_one_read(tmp_path):
    repo = new_repo(tmp_path / "repo")
    good = data(openai__gpt_a=(1.0, 2.0))
    c1 = commit(repo, "2025-06-21T10:00:00+00:00", "first", {OLD: good})
    c2 = commit(repo, "2025-06-22T10:00:00+00:00", "broken", {OLD: good[:25]})
    c3 = commit(repo, "2025-06-23T10:00:00+00:00", "fixed", {OLD: data(openai__gpt_a=(0.5, 2.0))})
    root = replay_root(tmp_path / "root")
    run = replay(root, repo)
    entries = log(root)
    assert entries[:3] == [(c1, "2025-06-21T10:00Z", "first", "2", "", ""),
                           (c2, "2025-06-22T10:00Z", "broken", "0", "", ""),
                           (c2, "2025-06-22T10:00Z", "broken", "0", OLD, entries[2][5])]
    assert entries[2][5].startswith("not read as genai-prices: ")
    assert entries[3:] == [(c3, "2025-06-23T10:00Z", "fixed", "1", "", "")]
    assert [(c, f) for c, f, _why in run.unreadable] == [(c2, OLD)]
    assert rows(root)[0] == ("openai", "gpt_a", "input", 0.5, "2025-06-23T10:00Z", "", "", c3,
                             "commit")


def test_the_new_file_is_read_once_a_commit_holds_it(tmp_path):
    repo = new_repo(tmp_path / "repo")
    c1 = commit(repo, "2025-06-21T10:00:00+00:00", "old", {OLD: data(openai__gpt_a=(1.0, 2.0))})
    c2 = commit(repo, "2025-06-22T10:00:00+00:00", "v2", {NEW: data(openai__gpt_a=(0.5, 2.0))})
    c3 = commit(repo, "2025-06-23T10:00:00+00:00", "old again", {
        OLD: data(openai__gpt_a=(9.0, 9.0))})
    root = replay_root(tmp_path / "root")
    replay(root, repo)
    assert rows(root) == [
        ("openai", "gpt_a", "input", 0.5, "2025-06-22T10:00Z", "", "", c2, "commit"),
        ("openai", "gpt_a", "input", 1.0, "2025-06-21T10:00Z", "2025-06-22T10:00Z", "", c1,
         "commit"),
        ("openai", "gpt_a", "output", 2.0, "2025-06-21T10:00Z", "", "", c1, "commit")]
    assert log(root) == [(c1, "2025-06-21T10:00Z", "old", "2", "", ""),
                         (c2, "2025-06-22T10:00Z", "v2", "1", "", ""),
                         (c3, "2025-06-23T10:00Z", "old again", "0", "", "")]


def test_a_second_run_adds_nothing_and_a_third_reads_only_the_new_commits(tmp_path):
    repo = new_repo(tmp_path / "repo")
    shas = four_commits(repo)
    git(repo, "reset", "-q", "--hard", shas[1])
    root = replay_root(tmp_path / "root")
    assert replay(root, repo).commits == 2
    before = files(root)
    again = replay(root, repo)
    assert (again.commits, again.moves) == (0, 0) and files(root) == before
    git(repo, "reset", "-q", "--hard", shas[3])
    third = replay(root, repo)
    assert (third.commits, third.moves) == (2, 5)
    assert [r[0] for r in log(root)] == shas
    whole = replay_root(tmp_path / "whole")
    replay(whole, repo)
    assert files(root) == files(whole)


def jump_commits(repo: Path) -> list[str]:
    """A 100-fold rise held back at the second commit, taken when the third shows it again."""
    return [commit(repo, f"2025-06-2{day}T10:00:00+00:00", f"v{day}", {OLD: data(**models)})
            for day, models in ((1, {"openai__gpt_a": (1.0, 2.0)}),
                                (2, {"openai__gpt_a": (100.0, 2.0)}),
                                (3, {"openai__gpt_a": (100.0, 2.0), "openai__x": (1.0, 1.0)}),
                                (4, {"openai__gpt_a": (100.0, 2.5), "openai__x": (1.0, 1.0)}))]


def kill_at(monkeypatch: pytest.MonkeyPatch, call: int) -> None:
    """Make the replay stop (KeyboardInterrupt) at its `call`-th snapshot."""
    taken = replay_module.take_snapshot
    calls = []

    def take(*args, **kwargs):
        calls.append(1)
        if len(calls) == call:
            raise KeyboardInterrupt
        return taken(*args, **kwargs)

    monkeypatch.setattr(replay_module, "take_snapshot", take)


def test_a_replay_killed_mid_run_leaves_a_whole_earlier_state_and_resumes(tmp_path, monkeypatch):
    repo = new_repo(tmp_path / "repo")
    shas = jump_commits(repo)
    whole = replay_root(tmp_path / "whole")
    replay(whole, repo)
    root = replay_root(tmp_path / "root")
    kill_at(monkeypatch, 3)
    with pytest.raises(KeyboardInterrupt):
        replay(root, repo, checkpoint_s=0)
    monkeypatch.undo()
    assert [r[0] for r in log(root)] == shas[:2]
    read_history_csv(price_history_path(root, GENAI).read_bytes())  # reads whole
    git(repo, "checkout", "-q", "--detach", shas[1])
    two = replay_root(tmp_path / "two")
    replay(two, repo)
    assert files(root) == files(two)
    git(repo, "checkout", "-q", "main")
    assert replay(root, repo).commits == 2
    assert files(root) == files(whole)
    assert rows(root)[1][:5] == ("openai", "gpt_a", "input", 100.0, "2025-06-23T10:00Z")
    health = price_health_path(root, GENAI).read_bytes()
    assert health == price_health_path(whole, GENAI).read_bytes()


def test_a_history_written_without_its_log_goes_back_to_the_logs_last_commit(tmp_path):
    repo = new_repo(tmp_path / "repo")
    shas = jump_commits(repo)
    whole = replay_root(tmp_path / "whole")
    replay(whole, repo)
    root = replay_root(tmp_path / "root")
    git(repo, "checkout", "-q", "--detach", shas[0])
    replay(root, repo)
    git(repo, "checkout", "-q", "--detach", shas[1])
    later = replay_root(tmp_path / "later")
    replay(later, repo)
    # Stopped before the log's write: the history and health of the second commit (its rise
    # held back), the log of the first.
    for path in (price_history_path, price_health_path):
        path(root, GENAI).write_bytes(path(later, GENAI).read_bytes())
    git(repo, "checkout", "-q", "main")
    assert replay(root, repo).commits == 3
    assert files(root) == files(whole)
    health = price_health_path(root, GENAI).read_bytes()
    assert health == price_health_path(whole, GENAI).read_bytes()


def refused(root: Path, *args: str, code: int = 1) -> str:
    """Run the command, which must refuse (exit `code`) and change nothing; return its output."""
    before = tree_digest(root)
    done = CliRunner().invoke(main, ["ingest", "prices", "--root", str(root), *args])
    assert done.exit_code == code and "Traceback" not in done.output, done.output
    assert tree_digest(root) == before
    return done.output


def test_what_is_not_the_catalogues_repository_is_refused_in_one_line(tmp_path):
    repo = new_repo(tmp_path / "repo")
    sha = four_commits(repo)[-1]
    root = replay_root(tmp_path / "root")
    (tmp_path / "file").write_text("x")
    empty = new_repo(tmp_path / "empty")
    other = new_repo(tmp_path / "other")
    commit(other, "2025-06-21T10:00:00+00:00", "readme", {"README.md": b"hello"})
    refusals = {tmp_path / "file": f"{tmp_path / 'file'} is not a folder",
                tmp_path: f"{tmp_path} is not a git repository",
                empty: f"{empty} is a git repository without commits",
                other: f"{other} holds no version of {NEW}, {OLD}: is it {REPOSITORY}?"}
    for git_dir, line in refusals.items():
        assert refused(root, "--only", GENAI, "--history", str(git_dir)) == f"Error: {line}\n"
    assert ("name the catalogue whose repository it is with one --only (and no --file)"
            in refused(root, "--history", str(repo), code=2))
    replay(root, repo)
    assert refused(root, "--only", GENAI, "--history", str(other)) == (
        f"Error: {other} does not hold commit {sha[:12]}, the last one genai-prices.commits.csv "
        f"logged: is it {REPOSITORY}?\n")
    price_commits_path(root, GENAI).unlink()  # a history as our fetches leave it
    assert refused(root, "--only", GENAI, "--history", str(repo)) == (
        f"Error: {price_history_path(root, GENAI)} holds snapshots our fetches took, and a "
        f"replay starts a history at the repository's first commit: move it aside to replay "
        f"{REPOSITORY}\n")


def test_a_shallow_clone_is_replayed_from_its_first_commit_with_a_note(tmp_path):
    repo = new_repo(tmp_path / "repo")
    shas = four_commits(repo)
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "2", f"file://{repo}", str(shallow))
    root = replay_root(tmp_path / "root")
    done = CliRunner().invoke(main, ["ingest", "prices", "--root", str(root), "--only", GENAI,
                                     "--history", str(shallow)])
    assert done.exit_code == 0, done.output
    assert done.stderr.startswith(f"note: {shallow} is a shallow clone: the history starts at "
                                  "its first commit, not the catalogue's\n")
    assert "ok  genai-prices: 2 commits read, 5 moves, 4 prices in force" in done.stderr
    assert [r[0] for r in log(root)] == shas[2:]
    assert {r[4] for r in rows(root)} == {"2025-06-23T19:00Z", "2025-06-24T08:00Z"}


def test_commits_of_one_utc_minute_are_read_as_one(tmp_path):
    repo = new_repo(tmp_path / "repo")
    commit(repo, "2025-06-21T10:00:05+00:00", "a", {OLD: data(openai__gpt_a=(1.0, 2.0))})
    c2 = commit(repo, "2025-06-21T12:00:40+02:00", "b", {OLD: data(openai__gpt_a=(0.5, 2.0))})
    root = replay_root(tmp_path / "root")
    replay(root, repo)
    t = "2025-06-21T10:00Z"
    assert log(root) == [(c2, t, "b", "2", "", "")]
    assert rows(root) == [("openai", "gpt_a", "input", 0.5, t, "", "", c2, "commit"),
                          ("openai", "gpt_a", "output", 2.0, t, "", "", c2, "commit")]


def test_the_real_genai_prices_history(real_data, tmp_path):
    bundle = real_data / "catalogue-histories" / "genai-prices.bundle"
    if not bundle.is_file():
        if IN_CI:
            pytest.fail(f"{bundle} is missing and CI=true: the real-data tests must run")
        pytest.skip(f"{bundle} is absent")
    repo = tmp_path / "genai-prices"
    git(tmp_path, "clone", "-q", str(bundle), str(repo))
    root = replay_root(tmp_path / "root")
    run = replay(root, repo)
    # Its time is measured by benchmarks/replay.py, never asserted here.
    assert len({r[0] for r in log(root)}) == run.commits == 187 and run.unreadable == []
    assert run.prices == 3232
    table = read_history_csv(price_history_path(root, GENAI).read_bytes())
    assert (table["commit"].str.len() == 40).all()
    assert set(table["dated_by"]) == {"catalogue", "commit"}
    now = table[table["gone_seen"] == ""]
    claude = now[(now["model"] == "claude-2") & (now["provider"] == "anthropic")
                 & (now["meter"] == "input")]
    assert list(claude["usd_per_mtok"]) == [8.0]
    # Its last commit's v2/data.json is the copy in ../shared: what a fetch of it reads.
    catalogues, *_ = load_catalogues(root)
    fetched = read_catalogue(catalogues.catalogues[0],
                             (real_data / "genai-prices" / "v2" / "data.json").read_bytes())
    expected = snapshot_table(fetched.prices, catalogues.providers, dt.date(2026, 8, 21))
    assert (sorted(now[[*KEY, "usd_per_mtok"]].itertuples(index=False, name=None))
            == sorted(expected[[*KEY, "usd_per_mtok"]].itertuples(index=False, name=None)))

def test_a_replay_starting_a_history_forgets_the_health_of_the_one_moved_aside(tmp_path):
    repo = new_repo(tmp_path / "repo")
    four_commits(repo)
    root = replay_root(tmp_path / "root")
    health = price_health_path(root, GENAI)
    health.parent.mkdir(parents=True)
    health.write_text(json.dumps({"catalogue_id": GENAI, "url": "https://example.org/d.json",
                                  "whole_since": "2026-08-21T00:00:00Z"}))
    replay(root, repo)
    # Else every price listed before the fetches began would never read as new.
    assert json.loads(health.read_text())["whole_since"] == "2025-06-21T04:30:00Z"


def test_a_replay_never_puts_commits_after_a_snapshot_our_fetch_took(tmp_path):
    repo = new_repo(tmp_path / "repo")
    shas = four_commits(repo)
    git(repo, "reset", "-q", "--hard", shas[1])
    root = replay_root(tmp_path / "root")
    replay(root, repo)
    # The scheduled fetch then saw a price the repository's later commits do not explain.
    path = price_history_path(root, GENAI)
    path.write_bytes(path.read_bytes() + b"openai,openai,gpt_z,input,,0,realtime,,,,9.0,"
                     b"2025-07-01T06:00Z,,2025-07-01,,,fetch\n")
    git(repo, "reset", "-q", "--hard", shas[3])
    said = refused(root, "--only", GENAI, "--history", str(repo))
    assert said == (f"Error: {path} holds snapshots our fetches took after "
                    "genai-prices.commits.csv's last commit (2025-07-01T06:00Z): a replay cannot "
                    "put older commits after them\n")
