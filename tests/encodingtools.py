"""What P2 forbids in text, shared by the strict-encoding tests and the readers-agree tests."""

from __future__ import annotations

FORBIDDEN = {
    "NUL": "\x00", "C0 SOH": "\x01", "ESC": "\x1b", "CR": "\r", "DEL": "\x7f",
    "C1 PAD": "\x80", "NEL": "\x85", "C1 APC": "\x9f", "LINE SEPARATOR": "\u2028",
    "PARAGRAPH SEPARATOR": "\u2029", "high surrogate": "\ud800", "low surrogate": "\udfff",
    "FDD0": "\ufdd0", "FDEF": "\ufdef", "FFFE": "\ufffe", "FFFF": "\uffff",
    "1FFFE": "\U0001fffe", "10FFFF": "\U0010ffff",
}
"""Refused everywhere, comments included."""
