"""What people read: the board, move reports and move templates, in plain words.

Everything here is built from public data only (a face-down token is shown by
its public name), except :func:`private_lines`, which shows one player's own
Witch reveals when they ask with ``--as``.
"""

from __future__ import annotations

import re
from typing import Any

from pbem.errors import PbemError, StateError
from pbem.log.game import Game, Opening
from pbem.referee.deadlines import phrase, rule_text
from pbem.referee.seats import record_lines
from pbem.rules import Action, Phase, Stage, State
from pbem.rules.data import CLASSES, face_words

CARD_NAMES = {
    "peasant": "Peasant", "merchant": "Merchant", "monk": "Monk",
    "knight": "Knight", "witch": "Witch", "king": "King",
}


TRUST = (
    "trust (P1): the host sees every face and must hold no seat; what the protocol guarantees "
    "is that nobody, the host included, chose or changed the rat order, rewrote this history "
    "unnoticed (keep your last log: 'pbem verify NEW --extends OLD'), or learned a face through pbem"
)


PROTOCOL_DOC = "docs/protocol.md"


def audit_verdict(err: PbemError | None) -> str:
    """The verdict line of `pbem audit` (tools/audit_min.py prints the same, word for word)."""
    if err is None:
        return f"verdict: FAIR. The rat order was fixed at the start and never touched (how to check: {PROTOCOL_DOC})."
    if isinstance(err, StateError):
        return f"verdict: NOT YET. The secret is revealed when the game is over (P6; how to check: {PROTOCOL_DOC})."
    found = re.match(r"entry (\d+):", err.message)
    where = f"at entry {found.group(1)}" if found else "as a whole"
    return f"verdict: REFUSED. The log does not verify {where} ({err.rule}; how to check: {PROTOCOL_DOC})."


def notices(game: Game) -> list[str]:
    """What every public output of this game must say about it (P3, P7)."""
    out = []
    if game.test_game:
        out.append("TEST GAME: its secret was supplied, not made by the OS (P7); whoever knows it "
                   "knows every face, so it proves nothing about fair play")
    if game.edition != "standard":
        out.append(f"CUSTOM GAME: its map or rat tokens are not pbem's standard data "
                   f"(P3, data_hash {game.data_hash[:16]})")
    return out


def trust_lines(game: Game) -> list[str]:
    """The trust model in one line, then the game's notices: every verdict ends with these."""
    return [TRUST, *notices(game)]


def opening_line(game: Game) -> str:
    """Where the opening stands (P4), in a sentence."""
    opening = game.opening
    if opening is Opening.ABANDONED:
        return "abandoned by the host before the start (P4)"
    waiting = ", ".join(game.awaited)
    waived = f"; waived: {', '.join(sorted(game.waived))}" if game.waived else ""
    if opening is Opening.COMMIT:
        return f"not started: waiting for nonce commitments from {waiting}{waived} (P4, round 1 of 2)"
    return f"not started: waiting for {waiting} to reveal their nonce{waived} (P4, round 2 of 2)"


def region_name(game: Game, region: str) -> str:
    return game.board.name_of(region)


def describe_event(game: Game, e: dict[str, Any]) -> str:
    """One event of a recorded outcome in a sentence."""
    def r(key: str) -> str:
        return region_name(game, e[key])

    kind = e["event"]
    if kind == "cubes_placed":
        return f"{e['player']} places {e['count']} cube(s) in {r('region')}"
    if kind == "card_taken":
        source = f" from {e['previous']}" if e["previous"] else ""
        return f"{e['player']} takes the {CARD_NAMES[e['card']]}{source}"
    if kind == "cubes_moved":
        return f"{e['player']} moves {e['count']} cube(s) from {r('source')} to {r('target')} (Merchant)"
    if kind == "cube_to_palace":
        return f"{e['player']} moves a cube from {r('region')} to the palace (King)"
    if kind == "rat_moved":
        return f"rat {e['token']} moves from {r('source')} to {r('target')} (Monk)"
    if kind == "token_looked":
        return f"{e['player']} looks at rat {e['token']} (Witch)"
    if kind == "tokens_swapped":
        return f"rats {e['first']} and {e['second']} swap places (Witch)"
    if kind == "plague_moved":
        path = " -> ".join(region_name(game, x) for x in e["path"])
        spread = f"; {e['spread']} rat(s) spread" if e["spread"] else ""
        return f"the plague moves to {path}{spread}"
    if kind == "rat_drawn":
        return f"rat {e['token']} is drawn and placed in {r('region')}"
    if kind == "knight_cubes":
        return f"{e['player']} counts the plague piece as 2 neutral cubes in {r('region')} (Knight)"
    if kind == "token_flipped":
        result = "the plague breaks out" if e["outbreak"] else "no outbreak"
        return (
            f"rat {e['token']} in {r('region')} is {e['token_id']} ({_face(game, e['token_id'], e['threshold'])}; "
            f"{e['cubes']} cube(s) there): {result}"
        )
    if kind == "cube_removed":
        return f"{e['player']} loses a cube in {r('region')} ({e['symbol']})"
    if kind == "turn_started":
        what = {"setup": "places initial cubes", "turn": "is to play", "final": "plays in the final round"}
        return f"{e['player']} {what.get(e['phase'], 'is to move')}"
    if kind == "game_ending":
        return f"the game ends ({e['reason']}); final round: {', '.join(e['final_round'])}"
    if kind == "game_over":
        scores = ", ".join(f"{p} {n}" for p, n in e["scores"].items())
        return f"game over: {scores}; {e['winner']} wins"
    return str(e)


def next_step(state: State) -> str:
    """What the player to move must do now, in a sentence."""
    player = state.to_move
    if player is None:
        return "the game is over"
    if state.phase is Phase.SETUP:
        return f"{player} places 2 initial cubes on any region (R2.5)"
    if state.phase is Phase.FINAL:
        return f"{player} may use their class cards once more, then 'end' (R6.2-R6.3)"
    if state.turn.stage is Stage.SPREAD:
        return f"{player} places {state.turn.spread_left} drawn rat(s) next to {state.plague} (R4.1)"
    if state.turn.stage is Stage.OUTBREAK:
        return f"{player} flips the rats in {state.plague} (R4.2)"
    return f"{player} takes a card (optional), places cubes, then moves the plague (R3)"


def board_lines(game: Game) -> list[str]:
    state = game.state
    lines = [f"game {game.game_id}  (players in seat order: {', '.join(game.players)})"]
    lines.extend(f"  {n}" for n in notices(game))
    if state is None:
        lines.append(opening_line(game))
        return lines
    width = max(len(region_name(game, r)) for r in state.regions)
    for region in state.regions:
        rats = " ".join(state.rats[region]) or "-"
        cubes = ", ".join(f"{p} {n}" for p, n in sorted(state.cubes[region].items())) or "-"
        plague = "  <- plague" if region == state.plague else ""
        lines.append(f"  {region_name(game, region):<{width}}  rats: {rats:<12} cubes: {cubes}{plague}")
        near = ", ".join(region_name(game, n) for n in state.neighbours[region])
        lines.append(f"  {'':<{width}}  neighbours: {near}")
    lines.append("  palace: " + (", ".join(f"{p} {n}" for p, n in state.palace.items() if n) or "-"))
    cards = ", ".join(f"{CARD_NAMES[c]}: {state.cards[c] or 'unowned'}" for c in CLASSES)
    lines.append(f"  cards: {cards}")
    on_board = {p: sum(state.cubes[r].get(p, 0) for r in state.regions) for p in state.players}
    lines.append("  cubes on the board: " + ", ".join(f"{p} {n}" for p, n in on_board.items()))
    lines.append("  cube supply: " + ", ".join(f"{p} {n}" for p, n in state.supply.items()))
    lines.append(f"  rats left in supply: {len(state.rat_supply)}; flipped: {len(state.flipped)}")
    if game.over:
        scores = state.scores()
        lines.append("  final scores: " + ", ".join(f"{p} {scores[p]}" for p in state.players))
    else:
        lines.append(f"  turn {state.turn_number}: {next_step(state)}")
    lines.extend(f"  {line}" for line in deadline_lines(game))
    return lines


def deadline_lines(game: Game) -> list[str]:
    """R8: the deadline rule, who is due when, the resigned seats, and every timeout,
    stand-in turn and change of hands with its time (public facts only)."""
    out = []
    rule = rule_text(game)
    if rule is not None:
        out.append(rule)
        due = phrase(game)
        if due is not None:
            out.append(f"due: {due}")
    if game.resigned:
        out.append(f"resigned (played by the stand-in, R8.4): {', '.join(sorted(game.resigned))}")
    out.extend(record_lines(game))
    return out


def describe_action(game: Game, action: Action) -> str:
    d = action.to_dict()
    def name(key: str) -> str:
        return region_name(game, d[key])

    kind = d["action"]
    if kind == "take_card":
        return f"take the {CARD_NAMES[d['card']]} card"
    if kind == "place":
        return f"place {d['count']} cube(s) in {name('region')}"
    if kind == "king":
        return f"King: move a cube from {name('region')} to the palace"
    if kind == "merchant":
        return f"Merchant: move {d['count']} cube(s) from {name('source')} to {name('target')}"
    if kind == "monk":
        return f"Monk: move rat {d['token']} to {name('target')}"
    if kind == "witch_look":
        return f"Witch: look at rat {d['token']}"
    if kind == "witch_swap":
        return "Witch: swap the two rats you looked at"
    if kind in ("move_plague", "knight_move"):
        return "move the plague to " + " -> ".join(region_name(game, r) for r in d["path"])
    if kind == "spread":
        return f"put the drawn rat in {name('region')}"
    if kind == "knight_cubes":
        return "Knight: count the plague piece as 2 neutral cubes"
    if kind == "flip":
        return f"flip rat {d['token']} next"
    return "end your part of the final round"


def _face(game: Game, token_id: str, threshold: int | None = None) -> str:
    """A face already shown to this reader, in words, from the game's own catalogue."""
    try:
        return face_words(game.catalogue.by_id(token_id))
    except KeyError:
        return f"threshold {threshold}" if threshold is not None else token_id


def private_lines(game: Game, reveals: list[dict[str, Any]]) -> list[str]:
    """One player's own Witch looks (R5.6), faces in words."""
    return [
        f"  you saw rat {r['token']} = {r['token_id']} ({_face(game, str(r['token_id']))}; entry {r['seq']}; "
        f"salt {r['salt']})"
        for r in reveals
    ]
