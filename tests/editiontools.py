"""Shared helpers for the editions tests (P3): a custom data folder, and re-chaining an edited
entry 0."""

from __future__ import annotations

from pathlib import Path

from pbem.fair.protocol import entry_hash

ROOT = Path(__file__).resolve().parent.parent


DATA = ROOT / "pbem" / "data"


def rechain(entries: list[dict[str, object]]) -> list[dict[str, object]]:
    """The strong attacker: fix every prev, so only the data check can catch the edit."""
    for seq in range(1, len(entries)):
        entries[seq]["prev"] = entry_hash(entries[seq - 1])
    return entries
