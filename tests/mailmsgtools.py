"""Mail messages as real clients write them, for the tests that read a move out of mail."""

from __future__ import annotations

HTML_ONLY = (
    b"From: a@b.c\nTo: h@b.c\nSubject: hi\nMIME-Version: 1.0\n"
    b"Content-Type: text/html\n\n<p>game: g</p>\n"
)


TWO_ATTACHMENTS = (
    b"From: a@b.c\nTo: h@b.c\nSubject: x\nMIME-Version: 1.0\n"
    b'Content-Type: multipart/mixed; boundary="b"\n\n'
    b"--b\nContent-Type: text/plain\n\nhi\n"
    b'--b\nContent-Type: text/yaml\nContent-Disposition: attachment; filename="a.yaml"\n\ngame: g\n'
    b'--b\nContent-Type: text/yaml\nContent-Disposition: attachment; filename="b.yml"\n\ngame: g\n'
    b"--b--\n"
)
