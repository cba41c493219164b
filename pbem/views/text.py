"""What people read: the board, move reports and move templates, in plain words.

Everything here is built from public data only (a face-down token is shown by
its public name), except :func:`private_lines`, which shows one player's own
Witch reveals when they ask with ``--as``.
"""

from __future__ import annotations

import re
from typing import Any

from pbem.errors import PbemError, StateError
from pbem.i18n import Name, translator
from pbem.i18n.names import SHIPPED
from pbem.log.game import Game, Opening
from pbem.referee.deadlines import phrase, rule_text
from pbem.referee.seats import record_lines
from pbem.referee.seatview import SeatView, face_text
from pbem.rules import (
    Action,
    Flip,
    King,
    KnightCubes,
    KnightMove,
    Merchant,
    Monk,
    MovePlague,
    Phase,
    Place,
    Spread,
    Stage,
    State,
    TakeCard,
    WitchLook,
    WitchSwap,
    winner,
)
from pbem.rules.data import CLASSES, face_words
from pbem.rules.events import (
    CardTaken,
    CubeRemoved,
    CubesMoved,
    CubesPlaced,
    CubeToPalace,
    GameEnding,
    GameOver,
    KnightCubesDeclared,
    PlagueMoved,
    RatDrawn,
    RatMoved,
    TokenFlipped,
    TokenLooked,
    TokensSwapped,
    TurnStarted,
    event_from_dict,
)
from pbem.rules.plague import NEUTRAL_CUBES

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


def seed_sources(game: Game) -> tuple[list[str], list[str], list[str]]:
    """P4: the seats whose player's nonce went into the seed, the waived seats, and the bot
    seats (whose nonce the host made), each in seat order."""
    waived = [p for p in game.players if p in game.waived]
    bots = [p for p in game.players if p in game.bots and p not in game.waived]
    players = [p for p in game.players if p not in game.waived and p not in game.bots and game.nonces.get(p)]
    return players, waived, bots


def host_alone(game: Game) -> bool:
    """P4: the game started and no player's nonce went into its seed: the host could choose the deal."""
    return game.started and not seed_sources(game)[0]


def seed_line(game: Game, lang: str = "en") -> str | None:
    """Whose entropy made the seed (P4), once the game has started; None before."""
    if not game.started:
        return None
    players, waived, bots = seed_sources(game)
    others = "".join([f"; waived (no nonce): {', '.join(waived)}" if waived else "",
                      f"; made by the host (bot seats): {', '.join(bots)}" if bots else ""])
    if not players:
        return f"seed (P4): the seed comes from the host's secret alone{others}"
    return f"seed (P4): the seed comes from the host's secret and the nonces of {', '.join(players)}{others}"


HOST_DEAL = (
    "verdict: HOST'S DEAL. No player's nonce went into the seed, so the host alone could "
    f"choose the deal (P4; how to check: {PROTOCOL_DOC})."
)


def audit_verdict(err: PbemError | None, game: Game | None = None, lang: str = "en") -> str:
    """The verdict line of `pbem audit` (tools/audit_min.py prints the same, word for word);
    a verified game whose seed took no player's nonce is never FAIR (P4)."""
    if err is None and game is not None and host_alone(game):
        return HOST_DEAL
    if err is None:
        return f"verdict: FAIR. The rat order was fixed at the start and never touched (how to check: {PROTOCOL_DOC})."
    if isinstance(err, StateError):
        return f"verdict: NOT YET. The secret is revealed when the game is over (P6; how to check: {PROTOCOL_DOC})."
    found = re.match(r"entry (\d+):", err.message)
    where = f"at entry {found.group(1)}" if found else "as a whole"
    return f"verdict: REFUSED. The log does not verify {where} ({err.rule}; how to check: {PROTOCOL_DOC})."


def notices(game: Game, lang: str = "en") -> list[str]:
    """What every public output of this game must say about it (P3, P7)."""
    out = []
    if game.test_game:
        out.append("TEST GAME: its secret was supplied, not made by the OS (P7); whoever knows it "
                   "knows every face, so it proves nothing about fair play")
    if game.bots:
        seats = ", ".join(f"{p} ({level})" for p, level in sorted(game.bots.items()))
        out.append(f"BOT SEATS: {seats} played by the host's bots. A bot sees only its seat's view "
                   "(the log and its own Witch looks), but the host holds its seat and made its "
                   "nonce (P4): the rule that the host holds no seat does not hold for this game")
    if host_alone(game):
        out.append("HOST'S DEAL: no player's nonce went into the seed (every seat waived or a bot "
                   "seat, P4): the host alone could choose the deal, so the guarantee that nobody "
                   "chose the rat order does not hold for this game")
    if game.edition != "standard":
        out.append(f"CUSTOM GAME: its map or rat tokens are not pbem's standard data "
                   f"(P3, data_hash {game.data_hash[:16]})")
    return out


def trust_lines(game: Game, lang: str = "en") -> list[str]:
    """The trust model in one line, whose entropy made the seed, then the game's notices:
    every verdict ends with these."""
    seed = seed_line(game)
    return [TRUST, *([seed] if seed else []), *notices(game)]


def opening_line(game: Game, lang: str = "en") -> str:
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


def _region_name(game: Game, region: str, lang: str) -> str:
    """A region by its name in ``lang`` (issue 22); a custom map's region by its own name."""
    if lang == "en" or region not in SHIPPED["region"] or game.board.name_of(region) != region.capitalize():
        return game.board.name_of(region)
    return translator(lang).name(Name.region(region))


def _card_name(card: str, lang: str) -> str:
    return CARD_NAMES[card] if lang == "en" else translator(lang).name(Name.card(card))


def describe_event(game: Game, data: dict[str, Any], lang: str = "en") -> str:
    """One event of a recorded outcome in a sentence (typed: :func:`pbem.rules.event_from_dict`)."""
    def name(region: str) -> str:
        return region_name(game, region)

    match event_from_dict(data):
        case CubesPlaced(player=p, region=r, count=n):
            return f"{p} places {n} cube(s) in {name(r)}"
        case CardTaken(player=p, card=card, previous=before):
            return f"{p} takes the {CARD_NAMES[card]}" + (f" from {before}" if before else "")
        case CubesMoved(player=p, source=a, target=b, count=n):
            return f"{p} moves {n} cube(s) from {name(a)} to {name(b)} (Merchant)"
        case CubeToPalace(player=p, region=r):
            return f"{p} moves a cube from {name(r)} to the palace (King)"
        case RatMoved(token=t, source=a, target=b):
            return f"rat {t} moves from {name(a)} to {name(b)} (Monk)"
        case TokenLooked(player=p, token=t):
            return f"{p} looks at rat {t} (Witch)"
        case TokensSwapped(first=a, second=b):
            return f"rats {a} and {b} swap places (Witch)"
        case PlagueMoved(path=path, spread=n):
            return "the plague moves to " + " -> ".join(map(name, path)) + (f"; {n} rat(s) spread" if n else "")
        case RatDrawn(token=t, region=r):
            return f"rat {t} is drawn and placed in {name(r)}"
        case KnightCubesDeclared(player=p, region=r):
            return f"{p} counts the plague piece as {NEUTRAL_CUBES} neutral cubes in {name(r)} (Knight)"
        case TokenFlipped(token=t, token_id=tid, region=r, cubes=n, threshold=k, outbreak=out):
            result = "the plague breaks out" if out else "no outbreak"
            return f"rat {t} in {name(r)} is {tid} ({_face(game, tid, k)}; {n} cube(s) there): {result}"
        case CubeRemoved(player=p, region=r, symbol=sym):
            return f"{p} loses a cube in {name(r)} ({sym})"
        case TurnStarted(player=p, phase=phase):
            what = {"setup": "places initial cubes", "turn": "is to play", "final": "plays in the final round"}
            return f"{p} {what.get(phase, 'is to move')}"
        case GameEnding(reason=why, final_round=seats):
            return f"the game ends ({why}); final round: {', '.join(seats)}"
        case GameOver(scores=scores, winner=best):
            return "game over: " + ", ".join(f"{p} {n}" for p, n in scores) + f"; {best} wins"
    return str(data)  # pragma: no cover - every event kind is matched above


def next_step(state: State, lang: str = "en") -> str:
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


def board_lines(game: Game, notes: bool = True, lang: str = "en") -> list[str]:
    """The board in words; ``notes=False`` leaves out the seed line and the notices, for a text
    that says them once already (a report mail: issue 19, item 7); in ``lang``, the regions and
    cards by the names its players know (issue 22: the labels are still English)."""
    state = game.state

    def name(region: str) -> str:
        return _region_name(game, region, lang)

    lines = [f"game {game.game_id}  (players in seat order: {', '.join(game.players)})"]
    seed = seed_line(game)
    if notes:
        lines.extend(f"  {n}" for n in [*([seed] if seed else []), *notices(game)])
    if state is None:
        lines.append(opening_line(game))
        return lines
    width = max(len(name(r)) for r in state.regions)
    for region in state.regions:
        rats = " ".join(state.rats[region]) or "-"
        cubes = ", ".join(f"{p} {n}" for p, n in sorted(state.cubes[region].items())) or "-"
        plague = "  <- plague" if region == state.plague else ""
        lines.append(f"  {name(region):<{width}}  rats: {rats:<12} cubes: {cubes}{plague}")
        near = ", ".join(name(n) for n in state.neighbours[region])
        lines.append(f"  {'':<{width}}  neighbours: {near}")
    lines.append("  palace: " + (", ".join(f"{p} {n}" for p, n in state.palace.items() if n) or "-"))
    cards = ", ".join(f"{_card_name(c, lang)}: {state.cards[c] or 'unowned'}" for c in CLASSES)
    lines.append(f"  cards: {cards}")
    on_board = state.scores()  # R6.5: the regions and the palace
    lines.append("  cubes on the board (the palace included): " + ", ".join(f"{p} {n}" for p, n in on_board.items()))
    lines.append("  cube supply: " + ", ".join(f"{p} {n}" for p, n in state.supply.items()))
    lines.append(f"  rats left in supply: {len(state.rat_supply)}; flipped: {len(state.flipped)}")
    if game.over:
        scores = state.scores()
        lines.append("  final scores: " + ", ".join(f"{p} {scores[p]}" for p in state.players))
        lines.extend(f"  {line}" for line in result_lines(state))
    else:
        lines.append(f"  turn {state.turn_number}: {next_step(state)}")
    lines.extend(f"  {line}" for line in deadline_lines(game))
    return lines


def result_lines(state: State | None, lang: str = "en") -> list[str]:
    """R6.5: the winner and, on a tie, why the tie-break gives it to them."""
    if state is None or state.to_move is not None:
        return []
    scores = state.scores()
    best = winner(state)
    tied = [p for p in state.players if scores[p] == scores[best]]
    lines = [f"winner: {best} with {scores[best]} cubes (the palace included, R6.5)"]
    if len(tied) > 1:
        lines.append(f"tie-break: {', '.join(tied)} tie on {scores[best]}; {best} would have played "
                     "soonest had the game gone on (R6.5)")
    return lines



def deadline_lines(game: Game, lang: str = "en") -> list[str]:
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


def describe_action(game: Game, action: Action, lang: str = "en") -> str:
    """One action of a move in a sentence (typed, like :func:`describe_event`)."""
    def name(region: str) -> str:
        return region_name(game, region)

    match action:
        case TakeCard(card=card):
            return f"take the {CARD_NAMES[card]} card"
        case Place(region=r, count=n):
            return f"place {n} cube(s) in {name(r)}"
        case King(region=r):
            return f"King: move a cube from {name(r)} to the palace"
        case Merchant(source=a, target=b, count=n):
            return f"Merchant: move {n} cube(s) from {name(a)} to {name(b)}"
        case Monk(token=t, target=b):
            return f"Monk: move rat {t} to {name(b)}"
        case WitchLook(token=t):
            return f"Witch: look at rat {t}"
        case WitchSwap():
            return "Witch: swap the two rats you looked at"
        case MovePlague(path=path) | KnightMove(path=path):
            return "move the plague to " + " -> ".join(map(name, path))
        case Spread(region=r):
            return f"put the drawn rat in {name(r)}"
        case KnightCubes():
            return f"Knight: count the plague piece as {NEUTRAL_CUBES} neutral cubes"
        case Flip(token=t):
            return f"flip rat {t} next"
    return "end your part of the final round"


def _face(game: Game, token_id: str, threshold: int | None = None) -> str:
    """A face already shown to this reader, in words, from the game's own catalogue."""
    try:
        return face_words(game.catalogue.by_id(token_id))
    except KeyError:
        return f"threshold {threshold}" if threshold is not None else token_id


def private_lines(view: SeatView, lang: str = "en") -> list[str]:
    """One seat's own Witch looks (R5.6), faces in words, each with what checks it (P6)."""
    return [
        f"  you saw rat {look.token} = {look.token_id} ({face_text(view.game, look.token_id)}; "
        f"entry {look.seq}; salt {look.salt})"
        for look in view.looks
    ]
