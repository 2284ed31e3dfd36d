"""Commands of the channels lane: `brief email DATE` writes an edition as a .eml message;
`brief send DATE` sends it to a list over SMTP."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

import click

from pipeline.cli.terminal import ROOT, reports_errors
from pipeline.paths import SERIES
from pipeline.problems import BuildError


def _date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise BuildError(f"{text!r} is not a date; give it as YYYY-MM-DD") from None


def _mail_parts(root: Path, day: dt.date):
    """Return the MailParts of the edition of `day` (render/channels.py), its charts' PNGs
    drawn now."""
    from pipeline.orchestrate.files import edition_charts
    from pipeline.orchestrate.site import one_edition
    from pipeline.render.channels import mail_parts
    from pipeline.render.chart_figures import draw

    sources, edition, tables = one_edition(root, day)
    # Only this edition's charts: the message carries no other, each as a PNG drawn now.
    charts = edition_charts(sources, [edition], draw, tables.cheapest_spec)
    return mail_parts(edition, sources.series, charts[day])


def register(group: click.Group) -> None:
    """Add the channels commands to `group` (the `brief` command)."""

    @group.command()
    @click.argument("date", metavar="YYYY-MM-DD")
    @ROOT
    @click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
                  help="Write the message to this file [default: standard output].")
    @click.option("--from", "sender", default=None, metavar="ADDRESS",
                  help="The From header [default: the series' name at briefing@<site host>].")
    @click.option("--to", default=None, metavar="ADDRESS", help="The To header, if any.")
    @reports_errors
    def email(date: str, root: Path, out: Path | None, sender: str | None,
              to: str | None) -> None:
        """Write the e-mail edition of DATE as a multipart/alternative .eml (text and HTML)."""
        day = _date(date)
        parts = _mail_parts(root.resolve(), day)
        message = parts.message(sender=sender, to=to)
        if out is None:
            if sys.stdout is None:  # started with it closed
                raise BuildError("standard output is closed: give --out FILE for the message")
            sys.stdout.buffer.write(message)
            sys.stdout.buffer.flush()
        else:
            out.write_bytes(message)
            click.echo(f"wrote {out} ({len(message):,} bytes)", err=True)

    @group.command()
    @click.argument("date", metavar="YYYY-MM-DD")
    @ROOT
    @click.option("--list", "address_list", required=True,
                  type=click.Path(dir_okay=False, exists=True, path_type=Path),
                  help="The recipients, one address a line, in a file outside the repository.")
    @click.option("--suppress", type=click.Path(dir_okay=False, path_type=Path), default=None,
                  help="Unsubscribed addresses, one a line, never sent to "
                       "[default: LIST.unsubscribed beside the list].")
    @click.option("--host", envvar="BRIEF_SMTP_HOST", required=True, show_envvar=True,
                  help="The SMTP server.")
    @click.option("--port", envvar="BRIEF_SMTP_PORT", type=int, default=587, show_default=True,
                  show_envvar=True, help="Its port (STARTTLS is used when the server offers it).")
    @click.option("--rate", "per_minute", type=click.FloatRange(min=0.1), default=60.0,
                  show_default=True, help="At most this many messages a minute.")
    @click.option("--dry-run", is_flag=True, help="Print what would go where; send nothing.")
    @reports_errors
    def send(date: str, root: Path, address_list: Path, suppress: Path | None, host: str,
             port: int, per_minute: float, dry_run: bool) -> None:
        """Send the e-mail edition of DATE to every address of --list, one message each.

        Credentials come only from BRIEF_SMTP_USER and BRIEF_SMTP_PASSWORD. Each message sent or
        refused is logged in LIST.sent.csv beside the list; run the command again after a
        failure and it sends only to the addresses not yet sent to."""
        import os

        from pipeline.publish.mail_send import (
            Outcome,
            SendLog,
            Server,
            pending,
            read_addresses,
            send_all,
        )

        day = _date(date)
        root, address_list = root.resolve(), address_list.resolve()
        for path in (address_list, suppress):
            if path is not None and path.resolve().is_relative_to(root):
                raise BuildError(f"{path}: keep subscriber addresses outside the repository "
                                 f"({root}), so they are never committed or published")
        suppress = suppress or address_list.with_name(address_list.name + ".unsubscribed")
        suppressed = read_addresses(suppress) if suppress.exists() else []
        log = SendLog(address_list.with_name(address_list.name + ".sent.csv"))
        outcome = Outcome()
        todo = pending(read_addresses(address_list), suppressed, log.done(day), outcome)
        parts = _mail_parts(root, day)
        if parts.series.mail is None:
            raise BuildError(f"{SERIES.as_posix()}: mail: is missing; give the sender and the "
                             "unsubscribe address before sending")
        sender = parts.series.mail.sender
        click.echo(f"{day}: {len(todo)} to send, {len(outcome.already)} sent before, "
                   f"{len(outcome.suppressed)} unsubscribed", err=True)
        if dry_run:
            for r in todo:
                click.echo(f"would send {day} to {r} via {host}:{port}")
            return
        server = Server(host, port, os.environ.get("BRIEF_SMTP_USER") or None,
                        os.environ.get("BRIEF_SMTP_PASSWORD") or None)
        sent_at = dt.datetime.now(dt.UTC).replace(microsecond=0)
        send_all(day, todo, lambda r: parts.message(to=r, sent_at=sent_at), sender, server,
                 log, per_minute=per_minute, outcome=outcome)
        for address, reply in outcome.refused:
            click.echo(f"refused: {address}: {reply}", err=True)
        click.echo(f"sent {len(outcome.sent)}, refused {len(outcome.refused)}; log: {log.path}",
                   err=True)
