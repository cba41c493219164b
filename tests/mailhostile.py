"""Hostile mail for the mail host: header injection in every header pbem
reads, broken encodings, non-UTF-8 bytes, forged senders and MIME bombs by part count,
depth and size.  Shared by tests/test_mail.py and bench/stress.py."""

from __future__ import annotations

import random
from email.utils import make_msgid

HOST = "rattus@host.example"

INJECTED_SUBJECT = b"=?utf-8?q?hi=0D=0ABcc=3A_victim=40x.test?="


def raw_mail(sender: bytes, body: bytes = b"hello\n", subject: bytes = b"hi", extra: bytes = b"",
             msgid: bytes | None = None) -> bytes:
    msgid = msgid or make_msgid(domain="example.org").encode()
    host = HOST.encode()
    return (b"From: " + sender + b"\nTo: " + host + b"\nSubject: " + subject
            + b"\nMessage-ID: " + msgid + b"\n" + extra + b"\n" + body)


def part_bomb(sender: bytes, parts: int = 226_000) -> bytes:
    """About 8 MiB of tiny MIME parts (the issue's bomb)."""
    body = b"".join(b"--b\n\nx\n" for _ in range(parts)) + b"--b--\n"
    return raw_mail(sender, body, extra=b"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n")


def depth_bomb(sender: bytes, depth: int = 400) -> bytes:
    body = b"".join(b"--b%d\nContent-Type: multipart/mixed; boundary=b%d\n\n" % (i, i + 1) for i in range(depth))
    body += b"".join(b"--b%d--\n" % i for i in reversed(range(depth + 1)))
    return raw_mail(sender, body, extra=b"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b0\n")


def hostile_messages() -> list[tuple[str, bytes]]:
    """Messages that must be quarantined: from registered players (red) unless said."""
    red, eve = b"red@example.org", b"eve@evil.test"
    return [
        ("subject CRLF encoded word", raw_mail(red, subject=INJECTED_SUBJECT)),
        ("subject bare CR", raw_mail(red, subject=b"hi\rBcc: victim@x.test")),
        ("subject U+2028", raw_mail(red, subject=b"=?utf-8?q?hi=E2=80=A8Bcc=3A_v=40x.test?=")),
        ("subject NUL", raw_mail(red, subject=b"hi\x00there")),
        ("subject latin-1 bytes", raw_mail(red, subject=b"caf\xe9")),
        ("subject broken base64", raw_mail(red, subject=b"=?utf-8?b?!!!notbase64?=")),
        ("subject unknown charset", raw_mail(red, subject=b"=?x-nonsense?q?hi?=")),
        ("from CRLF display name", raw_mail(b"=?utf-8?q?Red=0D=0ABcc=3A_v=40x.test?= <red@example.org>")),
        ("from latin-1 bytes", raw_mail(b"R\xe9d <red@example.org>")),
        ("from NUL", raw_mail(b"red@example.org\x00")),
        ("two From headers", raw_mail(red, extra=b"From: blue@example.net\n")),
        ("forged display name", raw_mail(b'"red@example.org" <eve@evil.test>')),
        ("two From addresses", raw_mail(b"red@example.org, eve@evil.test")),
        ("no From", b"To: x@y.test\nSubject: hi\n\nhello\n"),
        ("to CRLF", raw_mail(red, extra=b"To: =?utf-8?q?a=0D=0AFrom=3A_evil=40x.test?= <h@x.test>\n")),
        ("message-id with spaces", raw_mail(red, msgid=b"<a b@x.test>")),
        ("message-id CRLF word", raw_mail(red, msgid=b"=?utf-8?q?=3Ca=0D=0ABcc=3A_v=40x=3E?=")),
        ("auto-submitted control", raw_mail(red, extra=b"Auto-Submitted: =?utf-8?q?no=0A?=\n")),
        ("precedence control", raw_mail(red, extra=b"Precedence: =?utf-8?q?bulk=0D=0AX=3A_y?=\n")),
        ("content-type NUL", raw_mail(red, extra=b"Content-Type: text/plain\x00\n")),
        ("header block bomb", raw_mail(red, extra=b"X-Junk: x\n" * 300)),
        ("part-count bomb", part_bomb(red)),
        ("depth bomb", depth_bomb(red)),
        ("size bomb", raw_mail(red, b"a" * (8 * 1024 * 1024 + 10))),
        ("stranger's non-UTF-8 junk", raw_mail(eve, body=bytes(range(256)) * 64)),
        ("random bytes", bytes(random.Random(5).getrandbits(8) for _ in range(3000))),
    ]
