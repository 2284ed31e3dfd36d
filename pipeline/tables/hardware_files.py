"""Pure: the `public/data/hardware.csv` and `hardware.json` contracts, from costed rows."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Sequence

from pipeline.tables.hardware import CostedRow, basis_label
from pipeline.tables.json_rows import row_json

COLUMNS = (
    "suite", "round", "result_id", "submitter", "system", "accelerator", "accelerator_text",
    "accelerator_count", "model", "accuracy_target", "scenario", "division", "availability",
    "inferred", "official", "flags", "metric", "value", "units", "value_per_accelerator",
    "power_w", "tokens_per_joule", "ttft_bound_ms", "tpot_bound_ms", "interactivity_tok_s_user",
    "isl", "osl", "concurrency", "precision", "published", "source_file", "row_ref",
    "citation_id", "details_url", "cost_basis", "cost_basis_label", "cost_placeholder",
    "usd_per_accelerator_hour", "fx_rate_date", "cost_source", "cost_source_url",
    "tokens_per_usd", "usd_per_mtok",
)


def hardware_records(costed: Sequence[CostedRow]) -> Iterator[dict]:
    """Yield one plain dict per costed row, keys in COLUMNS order, values JSON-ready.

    One at a time: at a year's scale there are 60,000 rows of 43 columns, and a list of them
    was a few hundred MB of peak memory."""
    for c in costed:
        r, cost = c.row, c.cost
        rec = {k: getattr(r, k, None) for k in COLUMNS[:32] if k != "flags"}
        rec["flags"] = "; ".join(r.flags)
        rec["published"] = r.published.isoformat() if r.published else None
        rec.update(
            source_file=r.source_file, row_ref=r.row_ref, citation_id=r.citation_id,
            details_url=r.details_url, cost_basis=c.cost_basis,
            cost_basis_label=basis_label(cost.basis, cost.scenario) if cost else "",
            cost_placeholder=bool(cost and cost.placeholder),
            usd_per_accelerator_hour=c.usd_per_accelerator_hour,
            fx_rate_date=c.fx_rate_date.isoformat() if c.fx_rate_date else None,
            cost_source=cost.source if cost else "",
            cost_source_url=str(cost.source_url) if cost else "",
            tokens_per_usd=_round(c.tokens_per_usd), usd_per_mtok=_round(c.usd_per_mtok))
        yield {k: rec[k] for k in COLUMNS}


def _round(x: float | None) -> float | None:
    # Six significant figures: more than any input carries, and stable across platforms.
    return float(f"{x:.6g}") if x is not None else None


def hardware_csv(costed: Sequence[CostedRow]) -> bytes:
    """Return `hardware.csv`: a header of COLUMNS, then one line per row and cost basis."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for rec in hardware_records(costed):
        writer.writerow({k: "" if v is None else v for k, v in rec.items()})
    return buf.getvalue().encode("utf-8")


def hardware_json(costed: Sequence[CostedRow]) -> bytes:
    """Return `hardware.json`: {"columns": [...], "rows": [{...}, ...]}, keys in COLUMNS order.

    The bytes of `json.dumps(doc, indent=1, ensure_ascii=False)`, written a row at a time."""
    buf = io.BytesIO()
    head = json.dumps({"columns": list(COLUMNS), "rows": []}, indent=1, ensure_ascii=False)
    buf.write(head.removesuffix("[]\n}").encode("utf-8"))
    first = True
    for rec in hardware_records(costed):
        # A row nests two levels deep: indented as json.dumps would there.
        buf.write((("[\n  " if first else ",\n  ") + row_json(rec, 2)).encode("utf-8"))
        first = False
    buf.write(b"[]\n}\n" if first else b"\n ]\n}\n")
    return buf.getvalue()
