"""The audit of a finished game in the player's browser: tools/audit_min.py, line for line, in JavaScript.

A player with a mail client and a browser should not have to take the host's word for the end
of a game (PROTOCOL P3-P6).  ``audit.js``, beside this module, reads the log's own text (the
page's copy, or a copy the player chooses from their disk) and checks it with the browser's
WebCrypto (``crypto.subtle``: SHA-256, HMAC-SHA-256, Ed25519) and nothing the host computed: the
chain (P7), the first entry (P3), every commitment and reveal in order (P4), every flipped face
against its commitment (P6), the signatures (P8), then, with the revealed secret, the seed from
the nonces (P4), every draw (P5) and the 49 commitments (P6).  Its lines are tools/audit_min.py's,
word for word, and so are its exit code (0, 7, 8, 10) and its verdict (tests/test_browser_audit.py
holds the three to the same answers on every example and on tampered logs).  Like the tool, it
does not replay the moves under the rules of Rattus, and says so.  It is a JavaScript file of its
own, not a string in a module, so that a reader (or ``node --check``) reads it as it runs.

It defines ``window.pbemAudit(text)``, a promise of ``{code, lines, verdict}`` where ``verdict``
is ``{kind, seq, rule, line}`` (kind: ``fair``, ``host``, ``notyet``, ``refused``), so that a page
can say the verdict in its reader's language; it reads no page element, sends nothing and
fetches nothing.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from pbem.data import STANDARD_DATA_HASHES

SCRIPT = Path(__file__).with_name("audit.js")


@cache
def audit_js() -> str:
    """The audit's script, with the data hashes of the standard edition filled in (P3)."""
    text = SCRIPT.read_text(encoding="utf-8")
    return text.replace("STANDARD_HASHES", json.dumps(sorted(STANDARD_DATA_HASHES)))
