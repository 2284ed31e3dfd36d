"""Hostile curated and third-party input (issue 18): refused with the file, the field and the
line, exit 1, no traceback; never published."""

from __future__ import annotations

import datetime as dt
import json
import re
import resource
import subprocess
import sys
from html import escape as html_escape
from pathlib import Path

import pytest
from conftest import REPO, brief_here

from pipeline.formats.genai_prices import read_genai_prices
from pipeline.formats.litellm import read_litellm
from pipeline.formats.llm_prices import read_llm_prices
from pipeline.formats.numbers import NOT_A_PRICE
from pipeline.load.yaml_lines import dump_yaml, parse_yaml
from pipeline.models.links import refused_links
from pipeline.render.markdown_html import markdown_html

ENTRY = "sources/entries/2026/08-16-deepseek-peak-hours-beijing.yaml"
PRICES = "sources/prices/deepseek.yaml"
COSTS = "sources/hardware/costs.yaml"
MEMORY_CAP = 2 << 30  # bytes: a check that expands a bomb runs out of this, and fails


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def brief(root: Path, *args: str, capped: bool = False) -> subprocess.CompletedProcess:
    """Run `brief ARGS --root root` as an editor would. `capped`: in a process of its own
    under a memory cap (input that could expand), where a hang fails the test at the bound on
    the whole run rather than waiting for ever; else in this process (conftest.brief_here)."""
    if capped:
        return subprocess.run([sys.executable, "-m", "pipeline.cli", *args, "--root", str(root)],
                              capture_output=True, text=True, cwd=REPO, timeout=120,
                              preexec_fn=_capped,
                              env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    return brief_here(*args, "--root", str(root))


def refused(root: Path, *args: str, capped: bool = False) -> list[str]:
    """Return the problem lines of a command that must fail cleanly (brief)."""
    done = brief(root, *args, capped=capped)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "Error:" not in done.stderr
    return [line for line in done.stderr.splitlines() if not line.endswith("found.")
            and "nothing was written" not in line]


def alias_bomb(levels: int = 9, width: int = 9) -> str:
    lines = [f"a0: &a0 [{', '.join(['lol'] * width)}]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(("text", "expected"), [
    (alias_bomb(), f"{ENTRY}:2:1: a1.0: line 2 repeats a list or mapping by YAML alias (*name); "
     "write it out: such aliases are not read in these files"),
    # Hidden in a field the schema knows, after valid keys.
    ("date: 2026-08-16\nsection: local\nlinks: &l [{url: 'https://a.example/'}]\n"
     "claims: *l\n",
     f"{ENTRY}:4:1: claims: line 4 repeats a list or mapping by YAML alias (*name); write it out: "
     "such aliases are not read in these files"),
    ("date: 2026-08-16\n? [a, b]\n: 1\n",
     f"{ENTRY}:2:1: line 2 has a key that is a list or a mapping (`? ...`); keys are plain names"),
    ("date: 2026-08-16\n{? {x: 1} : 2}: 3\n",
     f"{ENTRY}:2:1: line 2 has a key that is a list or a mapping (`? ...`); keys are plain names"),
    ("links:\n" + "".join("  " * (i + 1) + f"- k{i}:\n" for i in range(40)),
     None),  # too deep: named below by its own message
])
def test_yaml_that_would_expand_or_not_load_is_refused_before_it_is_built(
        copy_repo_sources, text: str, expected: str | None) -> None:
    root = copy_repo_sources()
    (root / ENTRY).write_text(text, encoding="utf-8")
    for command in ("check", "build"):
        lines = refused(root, command, capped=True)
        if expected is None:
            assert len(lines) == 1 and lines[0].startswith(f"{ENTRY}:")
            assert "values nest more than 32 levels deep" in lines[0]
        else:
            assert lines == [expected]
    assert not (root / "public").exists()


def test_an_alias_of_a_single_value_is_read_and_ours_are_written_without_any() -> None:
    # It cannot multiply (PyYAML writes one for a date used twice); brief add and brief import
    # write none at all.
    doc, _, problems = parse_yaml(b"a: &d 2026-08-16\nb: *d\n", "f.yaml")
    assert problems == [] and doc == {"a": "2026-08-16", "b": "2026-08-16"}
    shared = ["x"]
    assert "*" not in dump_yaml({"a": shared, "b": shared, "c": dt.date(2026, 1, 1),
                                 "d": dt.date(2026, 1, 1)})


@pytest.mark.parametrize(("value", "got"), [
    (".nan", "nan"), ("'NaN'", "'NaN'"), (".inf", "inf"), ("-.inf", "-inf"),
    # YAML 1.1 reads 1e400 as a string; as a number it is infinite: refused as written (issue 37)
    ("1e400", None), ("'Infinity'", "'Infinity'"), (".NaN", "nan")])
def test_non_finite_numbers_are_refused_in_prices_and_costs(copy_repo_sources, value,
                                                            got) -> None:
    root = copy_repo_sources()
    prices = root / PRICES
    prices.write_text(prices.read_text().replace("{meter: input, price: 2}",
                                                 f"{{meter: input, price: {value}}}", 1))
    costs = root / COSTS
    costs.write_text(costs.read_text().replace("amount_per_hour: 1.3\n",
                                               f"amount_per_hour: {value}\n", 1))
    why = (f"Input should be a finite number (got {got})" if got else
           "1e400 is beyond the range of numbers these files hold; write the figure itself")
    cost_line = line_with(costs, f"amount_per_hour: {value}\n")
    price_line = line_with(prices, f"{{meter: input, price: {value}}}")
    assert sorted(refused(root, "check")) == [
        f"{COSTS}:{cost_line}:1: costs.0.amount_per_hour: {why}",
        f"{PRICES}:{price_line}:1: lists.0.records.0.prices.0.price: {why}"]


def line_with(path: Path, text: str) -> int:
    """Return the number of the first line of `path` holding `text`."""
    return next(n for n, line in enumerate(path.read_text().splitlines(keepends=True), 1)
                if text in line)


def test_every_json_file_the_build_writes_is_strict_json(bundled_site: Path) -> None:
    def refuse(constant: str) -> None:
        raise AssertionError(f"non-standard JSON constant {constant}")

    files = sorted(bundled_site.rglob("*.json"))
    assert {"prices.json", "hardware.json", "feed.json"} <= {p.name for p in files}
    for path in files:
        json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse)


ACME = """\
provider: acme
name: Acme
lists:
  - currency: USD
    records:
{records}
"""
RECORD = """\
      - model: acme-1
        from: {start}
        {to}
        source_url: https://acme.example/pricing
        checked: {start}
        prices:
          - {{meter: input, price: {price}}}
          - {{meter: output, price: 2}}
"""


def acme(*prices: float) -> str:
    starts = [f"2026-0{m + 1}-01" for m in range(len(prices))]
    return ACME.format(records="".join(RECORD.format(
        start=start, price=price, to=f"to: {starts[i + 1]}" if i + 1 < len(starts) else "")
        for i, (start, price) in enumerate(zip(starts, prices))))


@pytest.mark.parametrize(("prices", "jumped"), [
    ((1.0, 1000.0, 1.1), [(1, "1000 is over 100× the previous input price (1, records.0)")]),
    ((1.0, 0.001, 1.2, 1.3), [(1, "0.001 is under 1/100 of the previous input price (1, "
                                  "records.0)")]),
    ((1.0, 1000.0, 1000.0), [(1, "1000 is over 100× the previous input price (1, records.0)"),
                             (2, "1000 is over 100× the previous input price (1, records.0)")]),
    ((1.0, 1.5, 2.0), []),
])
def test_a_jump_names_the_record_that_jumped_not_the_one_after(copy_repo_sources, prices,
                                                                jumped) -> None:
    root = copy_repo_sources()
    (root / "sources" / "prices" / "acme.yaml").write_text(acme(*prices), encoding="utf-8")
    # Each record is eight lines, from line 6; its input price is its seventh.
    expected = [f"sources/prices/acme.yaml:{12 + 8 * i}:1: lists.0.records.{i}.prices.0.price: "
                f"{message}; "
                "check the unit (per_1m_tokens) for a per-1K vs per-1M slip, or set "
                "`jump_is_real: true` on this record" for i, message in jumped]
    if expected:
        assert refused(root, "check") == expected
    else:
        assert brief(root, "check").returncode == 0


@pytest.mark.parametrize("link", [
    "javascript:alert(document.domain)", "JaVaScRiPt:alert(1)", "java&#9;script:alert(1)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==", " vbscript:msgbox(1)",
    "file:///etc/passwd"])
def test_a_markdown_link_with_another_scheme_is_refused_with_its_field(copy_repo_sources,
                                                                       link: str) -> None:
    root = copy_repo_sources()
    entry = root / ENTRY
    entry.write_text(entry.read_text().replace(
        "  DeepSeek's Chinese-language", f"  See [the table]({link}). DeepSeek's Chinese-language"))
    scheme = link.replace("&#9;", "").strip().split(":")[0].lower()
    assert refused(root, "check") == [
        f"{ENTRY}:6:1: summary: a link uses the {scheme}: scheme; only http, https and mailto links "
        "(or links within the site) may be used"]


@pytest.mark.parametrize(("markdown", "html"), [
    ("[x](javascript:alert(1))", "<p><a>x</a></p>"),
    ("[x](JaVa&#09;Script:alert(1))", "<p><a>x</a></p>"),
    ("![chart](data:image/svg+xml;base64,PHN2Zz4=)", '<p><img alt="chart"></p>'),
    ("[x][r]\n\n[r]: vbscript:msgbox(1)", "<p><a>x</a></p>"),
    ('[x](https://example.com/){: onclick="alert(1)" style="position:fixed" }',
     '<p><a href="https://example.com/">x</a></p>'),
    ("[ok](https://example.com/a) [here](../prices/) [mail](mailto:desk@example.com)",
     '<p><a href="https://example.com/a">ok</a> <a href="../prices/">here</a> '
     '<a href="mailto:desk@example.com">mail</a></p>'),
    ("| a |\n|--:|\n| 1 |", '<table>\n<thead>\n<tr>\n<th style="text-align: right;">a</th>\n'
     '</tr>\n</thead>\n<tbody>\n<tr>\n<td style="text-align: right;">1</td>\n</tr>\n</tbody>\n'
     '</table>'),
])
def test_no_unsafe_link_leaves_rendered_markdown_whoever_wrote_it(markdown: str, html: str) -> None:
    # The renderer's own guard, for Markdown the schema never saw (the pages we generate,
    # hand-written site pages): what feeds and e-mail get, and mkdocs with the same extensions.
    assert markdown_html(markdown).strip() == html


def test_the_link_check_finds_every_form_of_link() -> None:
    assert refused_links("[a](javascript:x) ![b](data:y) <vbscript:z>\n\n[r]: file:///etc\n"
                         "[ok](https://x.example/) <mailto:a@b.example> [rel](#src-1)") == [
        "javascript:x", "data:y", "file:///etc", "vbscript:z"]


def test_non_finite_prices_in_third_party_maps_are_left_out_and_counted() -> None:
    litellm = read_litellm(json.dumps({"m": {
        "litellm_provider": "openai", "mode": "chat", "input_cost_per_token": float("nan"),
        "output_cost_per_token": 1e-6}}).encode())  # json writes NaN, which json reads back
    assert [p.meter for p in litellm.prices] == ["output"]
    # Recorded with what was written, so ingest says it and keeps the last good price.
    assert litellm.invalid == [("openai", "m", "input_cost_per_token", "nan", NOT_A_PRICE)]
    llm = read_llm_prices(b'{"vendor": "v", "models": [{"id": "m", "price_history": [{"input": '
                          b'Infinity, "output": 1e400, "input_cached": 0.1, "from_date": null}]}]}')
    assert [p.meter for p in llm.prices] == ["cached_input"]
    assert llm.invalid == [("v", "m", "input", "inf", NOT_A_PRICE),
                           ("v", "m", "output", "inf", NOT_A_PRICE)]
    genai = read_genai_prices(b"id: p\nmodels:\n- id: m\n  prices: {input_mtok: .nan, "
                              b"output_mtok: 2}\n")
    assert [p.meter for p in genai.prices] == ["output"]
    assert genai.invalid == [("p", "m", "input_mtok", "nan", NOT_A_PRICE)]


V51 = "sources/benchmarks/mlperf-inference/v5.1/summary_results.json"


def test_a_truncated_benchmark_file_is_shown_and_fails_a_strict_build(copy_repo_sources) -> None:
    root = copy_repo_sources()
    results = root / V51
    data = results.read_bytes()
    results.write_bytes(data[: len(data) // 2])  # cut mid-file, as a failed download leaves it
    done = brief(root, "check")
    assert done.returncode == 0, done.stderr
    [warning] = [line for line in done.stdout.splitlines() if V51 in line]
    assert warning.startswith(f"{V51}: warning: not read as mlperf-inference: ")
    assert warning.endswith("; its results are left out (the Hardware page lists the file)")
    why = warning.split("warning: ", 1)[1].split("; its results")[0]
    # --strict: the warning is an error, and nothing is built.
    assert refused(root, "check", "--strict") == [warning.replace("warning: ", "")]
    assert refused(root, "build", "--strict") == [warning.replace("warning: ", "")]
    assert not (root / "public").exists()
    built = brief(root, "build", "--today", "2026-11-30")
    assert built.returncode == 0, built.stderr
    page = (root / "public" / "hardware" / "index.html").read_text(encoding="utf-8")
    assert "Files not read" in page and "none of their results are on this page" in page
    assert f"<td>{V51}</td>" in page.replace("\u200b", "")
    # Its numbers each kept whole in a span (render/table_numbers.py): read without them.
    assert html_escape(why) in re.sub(r'<span class="brief-nobr">([^<]*)</span>', r"\1", page)
    # A strict build of the tree the lenient build left is not taken as up to date.
    assert refused(root, "build", "--strict", "--today", "2026-11-30") == [
        warning.replace("warning: ", "")]
