"""Sending an edition to its subscribers over SMTP: one message per recipient, a suppression
file that always wins, a send log that makes a rerun send only what is still owed, a rate.

The recipient list and everything beside it (suppressions, the log) live outside the repository:
subscriber addresses are never committed or published. Credentials come from the environment
and are never printed.
"""

from __future__ import annotations

import csv
import datetime as dt
import email.policy
import email.utils
import re
import smtplib
import ssl
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from pipeline.problems import BuildError

LOG_COLUMNS = ("edition", "address", "status", "reply", "at")


class Clock(Protocol):
    """What the rate limit needs of time (tests inject one that does not wait)."""

    def monotonic(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


@dataclass(frozen=True)
class Server:
    """Where to send: an SMTP server, and the credentials of the environment (or none)."""

    host: str
    port: int = 587
    user: str | None = field(default=None, repr=False)
    password: str | None = field(default=None, repr=False)
    timeout_s: float = 30.0


# RFC 5322's addr-spec in its dot-atom form (a quoted local part is refused: no subscriber
# needs one), with RFC 6531's non-ASCII UTF-8 allowed in both parts (an internationalized
# address, sent only with SMTPUTF8). A domain is dot-separated labels, each letters, digits and
# inner hyphens, and a last label that is not all digits.
_ATEXT = r"[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~\u0080-\U0010FFFF]"
_LABEL = r"[A-Za-z0-9\u0080-\U0010FFFF](?:[A-Za-z0-9\-\u0080-\U0010FFFF]{0,61}[A-Za-z0-9\u0080-\U0010FFFF])?"
_ADDR_SPEC = rf"{_ATEXT}+(?:\.{_ATEXT}+)*@{_LABEL}(?:\.{_LABEL})*\.(?!\d+$){_LABEL}"
_LINE = re.compile(rf"(?:[^<>@\s][^<>@]*?\s*<(?P<named>{_ADDR_SPEC})>|(?P<bare>{_ADDR_SPEC}))")


def _address(text: str) -> str | None:
    """Return the bare address of a line (`Name <a@b.example>` or `a@b.example`, nothing
    else on it), or None."""
    match = _LINE.fullmatch(text)
    if match is None or len(text) > 998:
        return None
    address = match["named"] or match["bare"]
    local, _, _domain = address.rpartition("@")
    return address if len(local) <= 64 and len(address) <= 254 else None


# A line pasted from an SMTP session ("RCPT TO:<x@…>") is no subscriber's name; a verb alone is
# one only in capitals (a "Data Team" or "Help Desk" is a name).
_COMMAND = re.compile(r"(?i:mail\s+from|rcpt\s+to)\b|(?:EHLO|HELO|MAIL|RCPT|DATA|BDAT|RSET|VRFY"
                      r"|EXPN|HELP|NOOP|QUIT|STARTTLS|AUTH)(?:[\s:]|$)")
_TO = email.policy.SMTPUTF8.header_factory  # the parser a message's To: is read with


def _name_problem(text: str, address: str) -> str | None:
    """Return what is wrong with the display name of a list line, as the To: header would read
    it, or None (no name, or a name that leaves the header this one address)."""
    name = text[:text.find("<")].strip() if text.endswith(">") else ""
    if not name:
        return None
    if _COMMAND.match(name):
        why = "looks like an SMTP command, not a name; give the address alone or as Name <address>"
    elif ":" in name:
        why = "holds ':', which makes the To: header a group; leave the ':' out"
    elif [a.addr_spec for g in _TO("To", text).groups for a in g.addresses] != [address]:
        # The header parser reads `Smith, John <j@…>` as `Smith` and `John <j@…>`, and
        # `A;B <a@…>` as `A` alone: a To: without the recipient, and a bare word an MTA may
        # qualify with its own domain.
        why = ("would make the To: header more than this one address; put the name in double "
               'quotes ("Smith, John" <j@example.org>)')
    else:
        return None
    return f"the display name {name!r} {why}"


def is_international(address: str) -> bool:
    """Does `address` need SMTPUTF8 (RFC 6531): a character beyond ASCII in it?"""
    return not address.isascii()


def read_addresses(path: Path) -> list[str]:
    """Return the addresses of a list file (one a line; blank lines and `#` comments skipped),
    each once (case-insensitively), in file order; a line that is no address is an error."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise BuildError(f"{path}: cannot read the address list ({exc})") from None
    seen: dict[str, str] = {}
    for n, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        address = _address(text)
        if address is None:
            raise BuildError(f"{path}:{n}: {text!r} is not an e-mail address")
        problem = _name_problem(text, address)
        if problem is not None:
            raise BuildError(f"{path}:{n}: {problem}")
        seen.setdefault(address.lower(), text)
    return list(seen.values())


@dataclass
class SendLog:
    """The log beside a list: one CSV row per message handed to the server or refused by it,
    appended and flushed as each is done, so a run killed halfway knows what it sent."""

    path: Path

    def rows(self) -> list[dict[str, str]]:
        if not self.path.exists():
            return []
        try:
            with self.path.open(encoding="utf-8", newline="") as f:
                return list(csv.DictReader(f))
        except (OSError, UnicodeDecodeError, csv.Error) as exc:
            raise BuildError(f"{self.path}: cannot read the send log ({exc})") from None

    def done(self, edition: dt.date) -> set[str]:
        """Return the (lower-cased) addresses the edition needs no more attempts for: sent, or
        refused for good (a 5xx reply); a 4xx refusal is tried again."""
        return {r["address"].lower() for r in self.rows() if r["edition"] == edition.isoformat()
                and (r["status"] == "sent" or r["reply"].startswith("5"))}

    def append(self, edition: dt.date, address: str, status: str, reply: str,
               at: dt.datetime) -> None:
        new = not self.path.exists()
        try:
            with self.path.open("a", encoding="utf-8", newline="") as f:
                writer = csv.writer(f, lineterminator="\n")
                if new:
                    writer.writerow(LOG_COLUMNS)
                writer.writerow([edition.isoformat(), address, status, reply,
                                 at.isoformat(timespec="seconds")])
                f.flush()
        except OSError as exc:
            raise BuildError(f"{self.path}: cannot write the send log ({exc.strerror})") from None


@dataclass
class Outcome:
    """What a run did: addresses sent to, refused (with the reply), skipped, and left."""

    sent: list[str] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)
    suppressed: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)


def pending(recipients: Iterable[str], suppressed: Iterable[str], done: set[str],
            outcome: Outcome) -> list[str]:
    """Return the recipients still owed the edition: not suppressed, not done before."""
    blocked = {a.lower() for a in suppressed}
    out = []
    for r in recipients:
        address = (_address(r) or r).lower()
        if address in blocked:
            outcome.suppressed.append(r)
        elif address in done:
            outcome.already.append(r)
        else:
            out.append(r)
    return out


def _connect(server: Server) -> smtplib.SMTP:
    try:
        smtp = smtplib.SMTP(server.host, server.port, timeout=server.timeout_s)
        smtp.ehlo()
        secure = False
        if smtp.has_extn("starttls"):
            smtp.starttls(context=ssl.create_default_context())
            smtp.ehlo()
            secure = True
        if server.user and server.password:
            if not secure and server.host not in ("127.0.0.1", "localhost", "::1"):
                smtp.close()
                raise BuildError(f"{server.host}:{server.port} offers no STARTTLS: not sending "
                                 "the credentials in the clear")
            smtp.login(server.user, server.password)
        return smtp
    except smtplib.SMTPAuthenticationError as exc:
        raise BuildError(f"{server.host}:{server.port}: the server refused the credentials "
                         f"({exc.smtp_code})") from None
    except (OSError, smtplib.SMTPException) as exc:
        raise BuildError(f"{server.host}:{server.port}: cannot connect to the SMTP server "
                         f"({exc})") from None


def _reply(code: int, text: bytes | str) -> str:
    message = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
    return f"{code} {' '.join(message.split())}"


def send_all(edition: dt.date, recipients: list[str], message_for: Callable[[str], bytes],
             sender: str, server: Server, log: SendLog, *, per_minute: float,
             clock: Clock | None = None, now: Callable[[], dt.datetime] | None = None,
             outcome: Outcome | None = None) -> Outcome:
    """Send `message_for(recipient)` to each recipient over one connection, at most
    `per_minute` messages a minute, logging each; a refused address is logged with the
    server's reply and the run goes on; a lost connection ends it (the log has what was sent,
    so running it again sends the rest)."""
    clock = clock or SystemClock()
    now = now or (lambda: dt.datetime.now(dt.UTC))
    outcome = outcome or Outcome()
    if not recipients:
        return outcome
    interval = 60.0 / per_minute
    _, envelope_from = email.utils.parseaddr(sender)
    smtp = _connect(server)
    last: float | None = None
    try:
        for r in recipients:
            if last is not None:
                wait = last + interval - clock.monotonic()
                if wait > 0:
                    clock.sleep(wait)
            last = clock.monotonic()
            to = _address(r) or r
            options: list[str] = []
            if is_international(to):
                if not smtp.has_extn("smtputf8"):
                    # Not 5xx: the log leaves it owed, so the next run tries it again.
                    reply = ("not sent: the server does not offer SMTPUTF8, which this address "
                             "needs; tried again on the next run")
                    log.append(edition, to, "refused", reply, now())
                    outcome.refused.append((to, reply))
                    continue
                options = ["SMTPUTF8"]
            try:
                smtp.sendmail(envelope_from, [to], message_for(r), mail_options=options)
            except smtplib.SMTPRecipientsRefused as exc:
                code, text = next(iter(exc.recipients.values()))
                reply = _reply(code, text)
                log.append(edition, to, "refused", reply, now())
                outcome.refused.append((to, reply))
                continue
            except (smtplib.SMTPDataError, smtplib.SMTPSenderRefused) as exc:
                reply = _reply(exc.smtp_code, exc.smtp_error)
                log.append(edition, to, "refused", reply, now())
                outcome.refused.append((to, reply))
                continue
            except (smtplib.SMTPNotSupportedError, UnicodeError) as exc:
                # This address only; the others still go (one bad address stopped them all).
                reply = f"not sent: {exc}"
                log.append(edition, to, "refused", reply, now())
                outcome.refused.append((to, reply))
                continue
            except (smtplib.SMTPServerDisconnected, OSError) as exc:
                raise BuildError(
                    f"{server.host}:{server.port}: the connection was lost after "
                    f"{len(outcome.sent)} messages ({exc or 'closed by the server'}); "
                    "run the same command again to send the rest") from None
            log.append(edition, to, "sent", "250", now())
            outcome.sent.append(to)
    finally:
        try:
            smtp.quit()
        except (OSError, smtplib.SMTPException):
            smtp.close()
    return outcome
