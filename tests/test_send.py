"""`brief send` against an SMTP server started on 127.0.0.1 (aiosmtpd): every message parsed back,
a server that drops the connection halfway, a rerun, suppressions, refusals, the rate limit
with an injected clock."""

from __future__ import annotations

import datetime as dt
import email
import email.policy
import socket
import time
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from conftest import brief_here

from pipeline.problems import BuildError
from pipeline.publish.mail_send import Outcome, SendLog, Server, pending, read_addresses, send_all

REPO = Path(__file__).resolve().parents[1]
DAY = "2026-09-12"


class Inbox:
    """An aiosmtpd handler that keeps every message, refuses some recipients, and can drop the
    connection once it has taken `drop_after` messages."""

    def __init__(self, drop_after: int | None = None, refuse: set[str] = frozenset()) -> None:
        self.messages: list[tuple[list[str], bytes]] = []
        self.smtputf8: list[bool] = []  # per message: did MAIL FROM say SMTPUTF8
        self.drop_after = drop_after
        self.refuse = refuse

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address in self.refuse:
            return "550 5.1.1 no such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if self.drop_after is not None and len(self.messages) >= self.drop_after:
            server.transport.close()  # the connection drops before the message is taken
            return "421 closing"
        self.messages.append((list(envelope.rcpt_tos), envelope.original_content))
        self.smtputf8.append(envelope.smtp_utf8)
        return "250 Message accepted"


@pytest.fixture
def smtp():
    started = []

    def start(inbox: Inbox, *, smtputf8: bool = False) -> int:
        # A free port: the controller checks that it serves by connecting to its own port.
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        controller = Controller(inbox, hostname="127.0.0.1", port=port,
                                enable_SMTPUTF8=smtputf8)
        controller.start()
        started.append(controller)
        return port

    yield start
    for c in started:
        c.stop()


def addresses(n: int) -> list[str]:
    return [f"reader{i:03d}@example.org" for i in range(n)]


# `brief send` runs in the test's process (conftest.brief_here), beside the SMTP servers' threads.
brief = brief_here


def test_send_delivers_one_message_per_recipient_and_a_rerun_sends_only_the_rest(smtp, tmp_path):
    people = addresses(100)
    folder = tmp_path / "subscribers"
    folder.mkdir()
    listed = folder / "list.txt"
    listed.write_text("# the list\n" + "\n".join(people) + "\n", encoding="utf-8")
    (folder / "list.txt.unsubscribed").write_text("Reader099@example.org\n", encoding="utf-8")

    dropping = Inbox(drop_after=40)
    port = smtp(dropping)
    first = brief("send", DAY, "--list", str(listed), "--host", "127.0.0.1", "--port", str(port),
                  "--rate", "100000")
    assert first.returncode == 1, first.stderr
    assert "Traceback" not in first.stderr
    assert "connection was lost after 40 messages" in first.stderr
    assert "run the same command again" in first.stderr
    assert len(dropping.messages) == 40

    inbox = Inbox()
    port = smtp(inbox)
    again = brief("send", DAY, "--list", str(listed), "--host", "127.0.0.1", "--port", str(port),
                  "--rate", "100000")
    assert again.returncode == 0, again.stderr
    assert "59 to send, 40 sent before, 1 unsubscribed" in again.stderr
    got = [to for tos, _ in dropping.messages + inbox.messages for to in tos]
    # Every recipient exactly once; the unsubscribed one never.
    assert sorted(got) == people[:99]
    log = (folder / "list.txt.sent.csv").read_text(encoding="utf-8").splitlines()
    assert log[0] == "edition,address,status,reply,at" and len(log) == 100

    # Each message parsed back: one recipient's headers, both parts, the chart inline.
    ids = set()
    for tos, raw in inbox.messages:
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        assert msg["To"] == tos[0]
        assert msg["Subject"] == "2026-09-12: DeepSeek takes Flash prices close to zero"
        assert msg["List-Id"] and msg["List-Unsubscribe"].strip().startswith("<mailto:")
        assert msg["List-Unsubscribe-Post"] is None  # no https one-click page configured
        ids.add(msg["Message-ID"])
        text = msg.get_body(("plain",)).get_content()
        html = msg.get_body(("html",)).get_content()
        assert "To unsubscribe, write to" in text and "To unsubscribe, write to" in html
        assert max(len(line) for line in text.splitlines()) <= 78
        images = [p for p in msg.walk() if p.get_content_type() == "image/png"]
        assert images and all(f'src="cid:{p["Content-ID"].strip("<>")}"' in html for p in images)
        assert all(p.get_content()[:8] == b"\x89PNG\r\n\x1a\n" for p in images)
    assert len(ids) == len(inbox.messages)  # a Message-ID unique per message


def test_a_refused_address_is_logged_with_the_reply_and_the_run_goes_on(smtp, tmp_path):
    inbox = Inbox(refuse={"gone@example.org"})
    port = smtp(inbox)
    log = SendLog(tmp_path / "list.txt.sent.csv")
    people = ["a@example.org", "gone@example.org", "b@example.org"]
    outcome = send_all(dt.date(2026, 9, 12), people, lambda r: b"Subject: x\r\n\r\nhi\r\n",
                       "Brief <brief@example.org>", Server("127.0.0.1", port), log,
                       per_minute=1e6)
    assert outcome.sent == ["a@example.org", "b@example.org"]
    assert outcome.refused == [("gone@example.org", "550 5.1.1 no such mailbox here")]
    # Refused for good (5xx): not tried again; sent: not sent again.
    assert log.done(dt.date(2026, 9, 12)) == set(people)
    assert log.done(dt.date(2026, 9, 25)) == set()


class FakeClock:
    """Time that moves only when slept: the rate limit, checked without waiting."""

    def __init__(self) -> None:
        self.t = 1000.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.t += seconds


def test_the_rate_limit_spaces_messages_by_the_injected_clock(smtp, tmp_path):
    inbox = Inbox()
    port = smtp(inbox)
    clock = FakeClock()
    wall = time.monotonic()
    send_all(dt.date(2026, 9, 12), addresses(5), lambda r: b"Subject: x\r\n\r\nhi\r\n",
             "brief@example.org", Server("127.0.0.1", port), SendLog(tmp_path / "log.csv"),
             per_minute=6, clock=clock)
    # 6 a minute: 10 s between messages, so four waits of 10 s on the clock and none in fact.
    assert clock.sleeps == pytest.approx([10.0] * 4)
    assert time.monotonic() - wall < 30 and len(inbox.messages) == 5


def test_lists_and_suppressions_are_read_strictly(tmp_path):
    listed = tmp_path / "l.txt"
    listed.write_text("A <a@example.org>\n\na@EXAMPLE.org\n# note\nb@example.org\n")
    assert read_addresses(listed) == ["A <a@example.org>", "b@example.org"]
    outcome = Outcome()
    assert pending(read_addresses(listed), ["B@example.org"], set(), outcome) == [
        "A <a@example.org>"]
    assert outcome.suppressed == ["b@example.org"]
    listed.write_text("a@example.org\nnot an address\n")
    with pytest.raises(BuildError, match=r"l.txt:2: 'not an address' is not an e-mail address"):
        read_addresses(listed)
    # Issue 37: a line is an address (or `Name <address>`) and nothing else.
    for junk in ("ok3@example.org>Bcc", "ok3@example.org (Bcc)", "ok3@example.org,b@example.org",
                 "Name <ok3@example.org> Bcc", "ok3@example.org:Bcc", "a..b@example.org",
                 "a@example", "a@-example.org", "a@192.0.2.1", '"quoted"@example.org'):
        listed.write_text(f"a@example.org\n{junk}\n")
        with pytest.raises(BuildError) as refused:
            read_addresses(listed)
        assert str(refused.value) == f"{listed}:2: {junk!r} is not an e-mail address"
    listed.write_text("ü@example.org\nJörg <jörg@münchen.example>\n")
    assert read_addresses(listed) == ["ü@example.org", "Jörg <jörg@münchen.example>"]
    # Names that are names, whatever they spell: kept as written.
    names = ['"Smith, John" <j@example.org>', "Data Team <d@example.org>",
             "Help Desk <h@example.org>", "J. R. Smith (work) <r@example.org>"]
    listed.write_text("\n".join(names) + "\n")
    assert read_addresses(listed) == names


COMMAND = "looks like an SMTP command, not a name; give the address alone or as Name <address>"
GROUP = "holds ':', which makes the To: header a group; leave the ':' out"
SPLIT = ("would make the To: header more than this one address; put the name in double quotes "
         '("Smith, John" <j@example.org>)')


@pytest.mark.parametrize(("line", "name", "why"), [
    # Issue 50: taken as a display name, this line gave `To: RCPT TO:<x@example.org>;`.
    ("RCPT TO:<x@example.org>", "RCPT TO:", COMMAND),
    ("rcpt to <x@example.org>", "rcpt to", COMMAND),
    ("MAIL FROM: <x@example.org>", "MAIL FROM:", COMMAND),
    ("QUIT <x@example.org>", "QUIT", COMMAND),
    ("EHLO mx.example.org <x@example.org>", "EHLO mx.example.org", COMMAND),
    ("Team: AI <x@example.org>", "Team: AI", GROUP),
    ("undisclosed-recipients:; <x@example.org>", "undisclosed-recipients:;", GROUP),
    # The header parser reads these as `Smith` and `John <…>`, or `A` alone: a To: without
    # the recipient, and a bare word an MTA may qualify with its own domain.
    ("Smith, John <j@example.org>", "Smith, John", SPLIT),
    ("A;B <a@example.org>", "A;B", SPLIT),
    ('"unclosed <a@example.org>', '"unclosed', SPLIT),
])
def test_a_display_name_that_is_no_name_is_refused_with_its_file_and_line(
        tmp_path, line, name, why):
    listed = tmp_path / "l.txt"
    listed.write_text(f"a@example.org\n{line}\n", encoding="utf-8")
    with pytest.raises(BuildError) as refused:
        read_addresses(listed)
    assert str(refused.value) == f"{listed}:2: the display name {name!r} {why}"


def test_send_stops_at_a_bad_list_line_before_sending(tmp_path):
    listed = tmp_path / "list.txt"
    listed.write_text("a@example.org\n# next\nRCPT TO:<x@example.org>\n", encoding="utf-8")
    done = brief("send", DAY, "--list", str(listed), "--host", "127.0.0.1", "--port", "9")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        f"error: {listed}:3: the display name 'RCPT TO:' {COMMAND}")
    assert "Traceback" not in done.stderr and not (tmp_path / "list.txt.sent.csv").exists()


def test_dry_run_sends_nothing_and_a_list_inside_the_repository_is_refused(tmp_path):
    listed = tmp_path / "list.txt"
    listed.write_text("a@example.org\nb@example.org\n")
    # Port 9 on loopback: nothing listens, and a dry run never connects.
    dry = brief("send", DAY, "--list", str(listed), "--host", "127.0.0.1", "--port", "9",
                "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.splitlines() == [f"would send {DAY} to a@example.org via 127.0.0.1:9",
                                       f"would send {DAY} to b@example.org via 127.0.0.1:9"]
    assert not (tmp_path / "list.txt.sent.csv").exists()
    inside = REPO / "test-artifacts" / "list.txt"
    inside.parent.mkdir(exist_ok=True)
    inside.write_text("a@example.org\n")
    try:
        refused = brief("send", DAY, "--list", str(inside), "--host", "127.0.0.1", "--dry-run")
    finally:
        inside.unlink()
    assert refused.returncode == 1 and "keep subscriber addresses outside the repository" in (
        refused.stderr)
    assert "Traceback" not in refused.stderr


def test_a_long_non_ascii_subject_folds_and_decodes_as_written() -> None:
    """The standard folder left a space on each side of a fold before an encoded word, which a
    reader decoded as two ("Hardware  — 2026-09-12"); encoded words only, now."""
    from pipeline.compose.types import Citation, Edition, SectionContent, Story
    from pipeline.load.sources import load_sources
    from pipeline.render.mail import email_message

    series = load_sources(REPO).series
    headline = "DeepSeek 降价 — Flash prices close to zero, and what the cut means for the market"
    story = Story(id="s", headline=headline, summary_md="x",
                  citations=(Citation("P", "https://p.example/a", "sources/x.yaml", "s"),))
    edition = Edition(date=dt.date(2026, 9, 12), title="T — 2026-09-12", previous=None,
                      sections=(SectionContent("top", "Top", (story,)),))
    raw = email_message(edition, series, "<p>x</p>", "x\n", to="a@example.org")
    head = raw.split(b"\r\n\r\n", 1)[0].decode("ascii")
    assert all(len(line) <= 78 for line in head.split("\r\n"))
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert msg["Subject"] == f"2026-09-12: {headline}"


@pytest.mark.parametrize("smtputf8", [True, False])
def test_an_internationalized_address_never_stops_the_others(smtp, tmp_path, smtputf8):
    # Issue 37: one `ü@…` ended the run with UnicodeEncodeError for every address after it,
    # on every rerun. Sent with SMTPUTF8 where the server offers it, else refused alone.
    inbox = Inbox()
    port = smtp(inbox, smtputf8=smtputf8)
    folder = tmp_path / "subscribers"
    folder.mkdir()
    listed = folder / "list.txt"
    listed.write_text("ok1@example.org\nü@example.org\nok2@example.org\n", encoding="utf-8")
    done = brief("send", DAY, "--list", str(listed), "--host", "127.0.0.1", "--port", str(port),
                 "--rate", "100000")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    got = [to for tos, _ in inbox.messages for to in tos]
    if smtputf8:
        assert got == ["ok1@example.org", "ü@example.org", "ok2@example.org"]
        raw = inbox.messages[1][1]
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        assert msg["To"] == "ü@example.org"
        assert "sent 3, refused 0" in done.stderr
        # Issue 50: the address as UTF-8 (RFC 6532), not `=?utf-8?q?=C3=BC?=@example.org`,
        # which RFC 2047 §5 forbids inside an address; ASCII recipients' messages stay 7-bit.
        assert header_lines(raw, b"To") == ["To: ü@example.org".encode()]
        assert inbox.smtputf8 == [False, True, False]
        assert b"=?" not in raw.split(b"\r\n\r\n", 1)[0]
        assert all(raw.isascii() for _, raw in (inbox.messages[0], inbox.messages[2]))
    else:
        assert got == ["ok1@example.org", "ok2@example.org"]
        assert f"refused: ü@example.org: {NO_SMTPUTF8}" in done.stderr
        assert "sent 2, refused 1" in done.stderr
        log = (folder / "list.txt.sent.csv").read_text(encoding="utf-8")
        assert f'ü@example.org,refused,"{NO_SMTPUTF8}"' in log


NO_SMTPUTF8 = ("not sent: the server does not offer SMTPUTF8, which this address needs; "
               "tried again on the next run")


def header_lines(raw: bytes, name: bytes) -> list[bytes]:
    """Return the lines of the header `name` (its first line and folds) of a raw message."""
    head = raw.split(b"\r\n\r\n", 1)[0].split(b"\r\n")
    start = next(i for i, line in enumerate(head) if line.startswith(name + b":"))
    end = next((i for i in range(start + 1, len(head)) if not head[i][:1].isspace()), len(head))
    return head[start:end]


def test_a_non_ascii_address_refused_for_want_of_smtputf8_is_sent_on_the_next_run(smtp, tmp_path):
    folder = tmp_path / "subscribers"
    folder.mkdir()
    listed = folder / "list.txt"
    listed.write_text("ok1@example.org\nJörg <jörg@münchen.example>\nok2@example.org\n",
                      encoding="utf-8")
    plain = Inbox()
    port = smtp(plain, smtputf8=False)
    first = brief("send", DAY, "--list", str(listed), "--host", "127.0.0.1", "--port", str(port),
                  "--rate", "100000")
    assert first.returncode == 0, first.stderr
    assert [tos for tos, _ in plain.messages] == [["ok1@example.org"], ["ok2@example.org"]]
    assert f"refused: jörg@münchen.example: {NO_SMTPUTF8}" in first.stderr

    utf8 = Inbox()
    port = smtp(utf8, smtputf8=True)
    again = brief("send", DAY, "--list", str(listed), "--host", "127.0.0.1", "--port", str(port),
                  "--rate", "100000")
    assert again.returncode == 0, again.stderr
    assert "1 to send, 2 sent before, 0 unsubscribed" in again.stderr
    assert "sent 1, refused 0" in again.stderr
    [(tos, raw)] = utf8.messages
    assert tos == ["jörg@münchen.example"] and utf8.smtputf8 == [True]
    assert header_lines(raw, b"To") == ["To: Jörg <jörg@münchen.example>".encode()]
    # (The bytes parser reads headers as ASCII; RFC 6532 headers are read as the text they are.)
    msg = email.message_from_string(raw.decode("utf-8"), policy=email.policy.SMTPUTF8)
    assert [a.addr_spec for a in msg["To"].addresses] == ["jörg@münchen.example"]

    third = brief("send", DAY, "--list", str(listed), "--host", "127.0.0.1", "--port", str(port),
                  "--rate", "100000")
    assert third.returncode == 0 and "0 to send, 3 sent before" in third.stderr
    assert len(utf8.messages) == 1
