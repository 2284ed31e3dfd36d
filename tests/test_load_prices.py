"""Loading price files: every data-quality gate, with the exact text editors see."""

from __future__ import annotations

from pathlib import Path

from pipeline.load.prices import load_prices

HEAD = "provider: acme\nname: Acme\nlists:\n"


def write(root: Path, text: str, name: str = "acme.yaml") -> Path:
    folder = root / "sources" / "prices"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return root


def record(model="m", frm="2026-01-01", to=None, price=1, extra=""):
    to_line = f"\n        to: {to}" if to else ""
    return (f"      - model: {model}\n        from: {frm}{to_line}\n"
            f"        source_url: https://acme.example/pricing\n        checked: 2026-01-02\n"
            f"{extra}"
            f"        prices:\n          - {{meter: input, price: {price}}}\n")


def messages(root: Path) -> list[str]:
    return [str(p) for p in load_prices(root)[1]]


def test_clean_file_loads(tmp_path):
    text = HEAD + "  - currency: USD\n    records:\n" + record(to="2026-02-01") + record(
        frm="2026-02-01", price=2)
    files, problems = load_prices(write(tmp_path, text))
    assert problems == []
    assert files["acme"].path == "sources/prices/acme.yaml"


def test_overlapping_periods(tmp_path):
    text = HEAD + "  - currency: USD\n    records:\n" + record() + record(frm="2026-03-01")
    assert messages(write(tmp_path, text)) == [
        ("sources/prices/acme.yaml: lists.0.records.1.from: m: this period overlaps records.0 "
        "(from 2026-01-01 00:00Z, open-ended); give records.0 a `to` at or before this `from`")]


def test_hundredfold_jump_unless_real(tmp_path):
    text = HEAD + "  - currency: USD\n    records:\n" + record(to="2026-02-01", price=2) + record(
        frm="2026-02-01", price=2000)
    assert messages(write(tmp_path, text)) == [
        ("sources/prices/acme.yaml: lists.0.records.1.prices.0.price: 2000 is over 100× the "
        "previous input price (2, records.0); check the unit (per_1m_tokens) for a per-1K vs "
        "per-1M slip, or set `jump_is_real: true` on this record")]
    real = HEAD + "  - currency: USD\n    records:\n" + record(to="2026-02-01", price=2) + record(
        frm="2026-02-01", price=2000, extra="        jump_is_real: true\n")
    assert messages(write(tmp_path, real)) == []


def test_unknown_currency_and_negative_price(tmp_path):
    text = HEAD + "  - currency: XBT\n    records:\n" + record(price=-1)
    assert messages(write(tmp_path, text)) == [
        ("sources/prices/acme.yaml: lists.0.currency: unknown currency 'XBT': the ECB publishes "
        "no rate for it, so its prices cannot be shown in USD; use an ISO 4217 code such as "
        "USD, CNY, EUR"),
        ("sources/prices/acme.yaml: lists.0.records.0.prices.0.price: price is negative (-1); "
        "prices are zero or more")]


WINDOWS = """  - currency: USD
    windows:
      - name: peak
        tier: peak
        {tz}
        spans: [{{start: "01:00", end: "04:00"}}]
      - name: night
        tier: off-peak
        timezone: UTC
        spans: [{{start: "{night}", end: "06:00"}}]
    records:
"""


def windowed(tz: str, night: str) -> str:
    extra = ("          - {meter: input, price: 2, window: peak}\n"
             "          - {meter: input, price: 0.5, window: night}\n")
    return HEAD + WINDOWS.format(tz=tz, night=night) + record() + extra


def test_window_without_timezone(tmp_path):
    root = write(tmp_path, windowed("", "04:00"))
    assert messages(root) == [
        ("sources/prices/acme.yaml: lists.0.windows.0.timezone: window 'peak' has no timezone; "
        "add the IANA name its hours are written in, such as Asia/Shanghai or UTC")]


def test_overlapping_windows(tmp_path):
    root = write(tmp_path, windowed("timezone: UTC", "03:00"))
    assert messages(root) == [
        ("sources/prices/acme.yaml: lists.0.windows.1: windows 'peak' and 'night' overlap (both "
        "hold Thu 03:00 UTC) and records.0 uses both; an hour must fall in one window only")]


def test_schema_error_has_field_and_line(tmp_path):
    text = HEAD + "  - currency: USD\n    records:\n" + record().replace("checked", "cheked")
    problems = load_prices(write(tmp_path, text))[1]
    assert [(p.field, p.line) for p in problems][:2] == [
        ("lists.0.records.0.checked", 6), ("lists.0.records.0.cheked", 9)]


def test_file_named_after_provider(tmp_path):
    text = HEAD + "  - currency: USD\n    records:\n" + record()
    assert messages(write(tmp_path, text, name="other.yaml")) == [
        ("sources/prices/other.yaml: provider: provider is 'acme' but the file is other.yaml; "
        "name the file after the provider")]
