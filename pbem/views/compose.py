"""`pbem html --compose SEAT`: a page that writes the seat's move (issue 19, items 4 and 5).

One self-contained offline file, built from the seat's :class:`SeatView` alone (P10):
the board as everyone sees it, the seat's own Witch looks, and the tree of every
legal way to finish its turn (:mod:`pbem.views.composetree`), computed here with
the rules' generators and carried as data.  The player clicks through it (a
card, a region, an ability, the plague's way, each drawn rat, the flip order),
the page shows the move in the notation as it grows (:mod:`pbem.log.notation`),
and ends with Send (a ``mailto:`` link), Copy and Download.  In the opening (P4)
the page makes the nonce with the browser's ``crypto.getRandomValues`` and its
commitment with ``crypto.subtle.digest`` exactly as :func:`pbem.fair.protocol.nonce_commitment`,
keeps the nonce in the browser and offers it as a file to keep.

The page fetches nothing; its policy (:func:`pbem.views.html.policy`) admits its one
script and one style by their hashes, and every word from the log reaches it as
JSON (:func:`pbem.views.html.script_data`) put in with ``textContent``.
"""

from __future__ import annotations

from html import escape
from typing import Any

from pbem.fair.protocol import TAG
from pbem.log.game import Game, Opening
from pbem.log.moves import after_of
from pbem.referee.seatview import SeatView, face_text
from pbem.views.composejs import SCRIPT, STYLE
from pbem.views.composetree import OverBudget, Tree
from pbem.views.html import changed_between, mark_changed, page_head, script_data
from pbem.views.narrate import status_line
from pbem.views.svg import board_svg, map_only
from pbem.views.text import result_lines

MAX_DATA = 300_000
"""The most tree data a page carries (bytes of JSON); a larger position is refused, not cut."""

MAX_POSITIONS = 150_000
"""The most positions walked for one page (about 6 s here, where the median is 20 ms): a
host making a page for every "your move" mail stops there; a larger position is refused."""


class TooLarge(ValueError):
    """The position's tree of choices is larger than :data:`MAX_DATA`."""


def changed_regions(game: Game) -> list[str]:
    """The regions whose cubes or rats the last entry changed (the page marks them)."""
    if game.state is None or game.last_seq < 1:
        return []
    from pbem.views.timeline import game_at  # start-up: only a page being made replays the log

    return changed_between(game_at(list(game.entries[:-1]), list(game.hashes[:-1]), game.last_seq - 1).state,
                           game.state)


def _opening_data(view: SeatView) -> dict[str, Any] | None:
    game = view.game
    opening = game.opening
    if opening not in (Opening.COMMIT, Opening.REVEAL) or view.seat not in game.awaited:
        return None
    return {"opening": "commit" if opening is Opening.COMMIT else "nonce",
            "committed": game.p4.commits.get(view.seat), "after": after_of(game, opening=True)}


def page_data(view: SeatView, to: str | None = None, lang: str = "en") -> dict[str, Any]:
    """What the page's script reads: the header, the tree or the opening, the marks."""
    game = view.game
    data: dict[str, Any] = {"game": game.game_id, "seat": view.seat, "to": to or "",
                            "prefix": f"{TAG}/nonce", "after": after_of(game), "tree": None, "opening": None,
                            "waiting": f"nothing for {view.seat} to send now: {status_line(game)}"}
    opening = _opening_data(view)
    if opening is not None:
        data.update(opening)
    elif view.to_move and game.state is not None:
        try:
            tree = Tree(game.state, view.seat, budget=MAX_POSITIONS).data()
        except OverBudget:
            tree = None
        if tree is None or len(script_data(tree)) > MAX_DATA:
            raise TooLarge("this position has too many ways to finish the turn for one page "
                           f"(over {MAX_POSITIONS} positions or {MAX_DATA // 1000} KB of choices); "
                           "write the move from the template")
        data["tree"] = tree
    return data


def _info_lines(view: SeatView) -> list[str]:
    """The side panel in words: cards, palace, supplies, and the seat's own looks."""
    state = view.game.state
    lines = [f"now: {status_line(view.game)}"]
    if state is not None:
        held = {p: [c for c, h in state.cards.items() if h == p] for p in state.players}
        for p in state.players:
            lines.append(f"{p}: cards {', '.join(held[p]) or 'none'}; palace {state.palace[p]}; "
                         f"supply {state.supply[p]}")
        free = [c for c, h in state.cards.items() if h is None]
        if free:
            lines.append("cards not held: " + ", ".join(free))
    return lines


def _looks(view: SeatView) -> list[str]:
    """R5.6: what this seat's Witch saw, for this seat's eyes only (still face down)."""
    return [f"{token} (you looked): {face_text(view.game, token_id)}" for token, token_id in view.private.items()]


def _board(game: Game, changed: list[str]) -> str:
    """The map part of the board drawing (the panel is said in words), last entry's regions marked."""
    return mark_changed(map_only(board_svg(game)), changed)


def compose_page(view: SeatView, to: str | None = None, lang: str = "en") -> str:
    """The composer page for ``view``'s seat (``to``: the host's address for Send)."""
    game = view.game
    data = page_data(view, to)
    changed = changed_regions(game)
    words = {"info": _info_lines(view), "looks": _looks(view), "result": result_lines(game.state)}
    title = escape(f"Rattus {game.game_id}: {view.seat}'s move")
    blob = script_data({**data, "changed": changed})
    info = "\n".join(escape(line) for line in words["info"])
    looks = "\n".join(escape(line) for line in words["looks"])
    result = "\n".join(escape(line) for line in words["result"])
    marks = escape(", ".join(changed)) if changed else "none"
    return page_head(title, SCRIPT, STYLE) + f"""<body>
<main id="view" data-complete="false">
<h1>{title}</h1>
<div id="page">
<div id="left">
<div id="board">{_board(game, changed)}</div>
<p class="note">dashed: the regions the last entry changed ({marks}); green: where a choice now goes
(click one to see only its choices)</p>
<pre id="result">{result}</pre>
<pre class="note" id="info">{info}</pre>
<pre class="note" id="looks">{looks}</pre>
</div>
<div id="right">
<p id="step"></p>
<div id="choices"></div>
<p><button id="undo">undo</button></p>
<pre id="move"></pre>
<p id="status" class="note"></p>
<p><a id="send" class="button off" href="#">Send</a> <button id="copy" disabled>Copy</button>
<a id="download" class="button off" href="#">Download</a> <span id="copied" class="note"></span></p>
<p class="note">Send opens your mail program with the move; or Copy it into a reply, or Download it
and attach the .txt file.</p>
<div id="keep" hidden><pre id="nonce"></pre>
<p class="note">Keep this nonce: round 2 needs exactly it, or the game cannot start (P4). This browser
keeps it, but save the file too (and do not show it to anyone before round 2).</p>
<a id="nonce-file" class="button off" href="#">Download the nonce move</a></div>
</div>
</div>
</main>
<script type="application/json" id="pbem-data">{blob}</script>
</body>
</html>
"""
