"""What people read: the board, move reports and move templates, in plain words.

Everything here is built from public data only (a face-down token is shown by
its public name), except :func:`private_lines`, which shows one player's own
Witch reveals when they ask with ``--as``.

Every sentence is a :class:`pbem.i18n.Msg` said in the reader's ``lang``: its
English is the text these views have always written, byte for byte; regions and cards
are :class:`pbem.i18n.Name` s, said as the players of each language know them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pbem.i18n import N_, SHIPPED, Msg, Name, translator
from pbem.log.game import Game
from pbem.referee.deadlines import away_lines, phrase, rule_text
from pbem.rules import (
    Action,
    EndTurn,
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
from pbem.rules.data import SYMBOLS, Token
from pbem.rules.events import (
    CardTaken,
    CubeRemoved,
    CubesMoved,
    CubesPlaced,
    CubeToPalace,
    EndReason,
    Event,
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
)
from pbem.rules.plague import NEUTRAL_CUBES
from pbem.views.trust import notices, opening_line, record_lines, seed_line

if TYPE_CHECKING:
    from pbem.referee.seatview import SeatView


def region_word(game: Game, region: str) -> str:
    """A region in a sentence: its map name in English (as every English text has shown
    it), a :class:`Name` said in the reader's language; a custom map's region by its own name."""
    shown = game.board.name_of(region)
    if region in SHIPPED["region"] and shown == region.capitalize():
        return Name(shown, "region", region)
    return shown


def _region_name(game: Game, region: str, lang: str) -> str:
    """A region by its name in ``lang``; a custom map's region by its own name."""
    return translator(lang).say(region_word(game, region))


def _card_name(card: str, lang: str) -> str:
    return translator(lang).name(Name.card(card))  # R1.5: in English, its id capitalized


_SYMBOLS = {"M": Msg("majority"), "A": Msg("all")}  # pbem.rules.data.SYMBOL_WORDS, in the reader's language
_LOSSES = {"M": N_("{player} loses a cube in {region}: the most cubes there (majority, R4.3)"),
           "A": N_("{player} loses a cube in {region}: every player there loses one (all, R4.3)")}


def symbol_word(symbol: str, lang: str = "en") -> str:
    """A face's symbol in words: majority, all, or a class (in English its id, as faces have
    always been written; in another language its card's name)."""
    said = translator(lang)
    if symbol in _SYMBOLS:
        return said.say(_SYMBOLS[symbol])
    return said.say(Name(symbol, "card", symbol)) if symbol in SYMBOLS else symbol


def face_words(token: Token, lang: str = "en") -> str:
    """A face in words (R1.4), as :func:`pbem.rules.data.face_words` writes it in English:
    ``threshold 3: majority, merchant, monk``."""
    symbols = ", ".join(symbol_word(s, lang) for s in token.symbols)
    return translator(lang).say(Msg("threshold {threshold}: {symbols}", threshold=token.threshold, symbols=symbols))


def face_text(game: Game, token_id: str, lang: str = "en") -> str:
    """A face this reader has seen, in words, from the game's own catalogue."""
    return face_words(game.catalogue.by_id(token_id), lang)


_END_REASONS = {  # R6.1: each ending in words (its English is the sentence the log records)
    EndReason.RAT_SUPPLY: Msg("the rat supply ran out"),
    EndReason.CUBE_SUPPLY: Msg("a player has no cube left in their supply"),
    EndReason.NO_RATS: Msg("no rat is left on the board"),
}


def describe_event(game: Game, event: Event, lang: str = "en") -> str:
    """One event of a recorded outcome in a sentence (the typed events of :attr:`pbem.log.records.Turn.outcome`).

    Long because each of the fifteen kinds of event is its own whole sentence (a ``Msg``
    per form), matched in one place."""
    said = translator(lang)

    def name(region: str) -> str:
        return said.say(region_word(game, region))

    def card(card: str) -> str:
        return said.say(Name.card(card))

    def path_text(path: tuple[str, ...] | list[str]) -> str:
        return " -> ".join(map(name, path))

    match event:
        case CubesPlaced(player=p, region=r, count=n):
            return said.say(Msg.plural("{player} places {n} cube in {region}",
                                       "{player} places {n} cubes in {region}", n, player=p, region=name(r)))
        case CardTaken(player=p, card=c, previous=before):
            if before:
                return said.say(Msg("{player} takes the {card} from {previous}", player=p, card=card(c),
                                    previous=before))
            return said.say(Msg("{player} takes the {card}", player=p, card=card(c)))
        case CubesMoved(player=p, source=a, target=b, count=n):
            return said.say(Msg.plural("{player} moves {n} cube from {source} to {target} (Merchant)",
                                       "{player} moves {n} cubes from {source} to {target} (Merchant)", n,
                                       player=p, source=name(a), target=name(b)))
        case CubeToPalace(player=p, region=r):
            return said.say(Msg("{player} moves a cube from {region} to the palace (King)", player=p, region=name(r)))
        case RatMoved(token=t, source=a, target=b):
            return said.say(Msg("rat {token} moves from {source} to {target} (Monk)", token=t, source=name(a),
                                target=name(b)))
        case TokenLooked(player=p, token=t):
            return said.say(Msg("{player} looks at rat {token} (Witch)", player=p, token=t))
        case TokensSwapped(first=a, second=b):
            return said.say(Msg("rats {first} and {second} swap places (Witch)", first=a, second=b))
        case PlagueMoved(path=path, spread=n):
            if n:
                return said.say(Msg.plural("the plague moves to {path}; {n} rat spreads",
                                           "the plague moves to {path}; {n} rats spread", n, path=path_text(path)))
            return said.say(Msg("the plague moves to {path}", path=path_text(path)))
        case RatDrawn(token=t, region=r):
            return said.say(Msg("rat {token} is drawn and placed in {region}", token=t, region=name(r)))
        case KnightCubesDeclared(player=p, region=r):
            return said.say(Msg.plural("{player} counts the plague piece as {n} neutral cube in {region} (Knight)",
                                       "{player} counts the plague piece as {n} neutral cubes in {region} (Knight)",
                                       NEUTRAL_CUBES, player=p, region=name(r)))
        case TokenFlipped(token=t, token_id=tid, region=r, cubes=n, threshold=k, outbreak=out):
            face = _face(game, tid, k, lang)
            if out:
                return said.say(Msg.plural(
                    "rat {token} in {region} is {face_id} ({face}; {n} cube there): the plague breaks out",
                    "rat {token} in {region} is {face_id} ({face}; {n} cubes there): the plague breaks out", n,
                    token=t, region=name(r), face_id=tid, face=face))
            return said.say(Msg.plural(
                "rat {token} in {region} is {face_id} ({face}; {n} cube there): no outbreak",
                "rat {token} in {region} is {face_id} ({face}; {n} cubes there): no outbreak", n,
                token=t, region=name(r), face_id=tid, face=face))
        case CubeRemoved(player=p, region=r, symbol=sym):  # why, in words (R4.3)
            if sym in _LOSSES:
                return said.say(Msg(_LOSSES[sym], player=p, region=name(r)))
            return said.say(Msg("{player} loses a cube in {region}: the rat shows the {card}, which {player} "
                                "holds (R4.3)", player=p, region=name(r), card=card(sym)))
        case TurnStarted(player=p, phase=phase):
            what = {"setup": Msg("{player} places initial cubes", player=p),
                    "turn": Msg("{player} is to play", player=p),
                    "final": Msg("{player} plays in the final round", player=p)}
            return said.say(what.get(phase, Msg("{player} is to move", player=p)))
        case GameEnding(reason=why, final_round=seats):
            reason = said.say(_END_REASONS[why])
            return said.say(Msg("the game ends ({reason}); final round: {seats}", reason=reason,
                                seats=", ".join(seats)))
        case GameOver(scores=scores, winner=best):
            return said.say(Msg("game over: {scores}; {winner} wins",
                                scores=", ".join(f"{p} {n}" for p, n in scores), winner=best))
    return str(event)  # pragma: no cover - every event kind is matched above


def next_step(state: State, lang: str = "en") -> str:
    """What the player to move must do now, in a sentence."""
    said = translator(lang)
    player = state.to_move
    if player is None:
        return said.say(Msg("the game is over"))
    if state.phase is Phase.SETUP:
        return said.say(Msg("{player} places 2 initial cubes on any region (R2.5)", player=player))
    if state.phase is Phase.FINAL:
        return said.say(Msg("{player} may use their class cards once more, then 'end' (R6.2-R6.3)", player=player))
    plague = said.say(Name.region(str(state.plague)))  # the notation's id in English, as always
    if state.turn.stage is Stage.SPREAD:
        n = state.turn.spread_left
        return said.say(Msg.plural("{player} places {n} drawn rat next to {plague} (R4.1)",
                                   "{player} places {n} drawn rats next to {plague} (R4.1)", n,
                                   player=player, plague=plague))
    if state.turn.stage is Stage.OUTBREAK:
        return said.say(Msg("{player} flips the rats in {plague} (R4.2)", player=player, plague=plague))
    return said.say(Msg("{player} takes a card (optional), places cubes, then moves the plague (R3)", player=player))


def board_lines(game: Game, notes: bool = True, lang: str = "en") -> list[str]:
    """The board in words; ``notes=False`` leaves out the seed line and the notices, for a text
    that says them once already (a report mail); in ``lang``, its labels
    and sentences, and the regions and cards by the names its players know."""
    said = translator(lang)
    state = game.state

    def name(region: str) -> str:
        return _region_name(game, region, lang)

    lines = [said.say(Msg("game {game}  (players in seat order: {players})", game=game.game_id,
                          players=", ".join(game.players)))]
    seed = seed_line(game, lang)
    if notes:
        lines.extend(f"  {n}" for n in [*([seed] if seed else []), *notices(game, lang)])
    if state is None:
        lines.append(opening_line(game, lang))
        return lines
    width = max(len(name(r)) for r in state.regions)
    for region in state.regions:
        rats = " ".join(state.rats[region]) or "-"
        cubes = ", ".join(f"{p} {n}" for p, n in sorted(state.cubes[region].items())) or "-"
        values = {"region": f"{name(region):<{width}}", "rats": f"{rats:<12}", "cubes": cubes}
        if region == state.plague:
            lines.append("  " + said.say(Msg("{region}  rats: {rats} cubes: {cubes}  <- plague", **values)))
        else:
            lines.append("  " + said.say(Msg("{region}  rats: {rats} cubes: {cubes}", **values)))
        near = ", ".join(name(n) for n in state.neighbours[region])
        lines.append(f"  {'':<{width}}  " + said.say(Msg("neighbours: {regions}", regions=near)))
    palace = ", ".join(f"{p} {n}" for p, n in state.palace.items() if n)
    lines.append("  " + (said.say(Msg("palace: {cubes}", cubes=palace)) if palace else said.say(Msg("palace: -"))))
    unowned = said.say(Msg("unowned"))
    cards = ", ".join(said.say(Msg("{card}: {owner}", card=_card_name(c, lang), owner=state.cards[c] or unowned))
                      for c in state.cards)
    lines.append("  " + said.say(Msg("cards: {cards}", cards=cards)))
    on_board = state.scores()  # R6.5: the regions and the palace
    lines.append("  " + said.say(Msg("cubes on the board (the palace included): {cubes}",
                                     cubes=", ".join(f"{p} {n}" for p, n in on_board.items()))))
    supply = ", ".join(f"{p} {n}" for p, n in state.supply.items())
    lines.append("  " + said.say(Msg("cube supply: {cubes}", cubes=supply)))
    lines.append("  " + said.say(Msg("rats left in supply: {left}; flipped: {flipped}", left=len(state.rat_supply),
                                     flipped=len(state.flipped))))
    if game.over:
        scores = state.scores()
        lines.append("  " + said.say(Msg("final scores: {scores}",
                                         scores=", ".join(f"{p} {scores[p]}" for p in state.players))))
        lines.extend(f"  {line}" for line in result_lines(state, lang))
    else:
        lines.append("  " + said.say(Msg("turn {turn}: {step}", turn=state.turn_number, step=next_step(state, lang))))
    lines.extend(f"  {line}" for line in deadline_lines(game, lang))
    return lines


def result_lines(state: State | None, lang: str = "en") -> list[str]:
    """R6.5: the winner and, on a tie, why the tie-break gives it to them."""
    if state is None or state.to_move is not None:
        return []
    said = translator(lang)
    scores = state.scores()
    best = winner(state)
    tied = [p for p in state.players if scores[p] == scores[best]]
    lines = [said.say(Msg.plural("winner: {winner} with {n} cube (the palace included, R6.5)",
                                 "winner: {winner} with {n} cubes (the palace included, R6.5)", scores[best],
                                 winner=best))]
    if len(tied) > 1:
        lines.append(said.say(Msg("tie-break: {tied} tie on {score}; {winner} would have played "
                                  "soonest had the game gone on (R6.5)", tied=", ".join(tied), score=scores[best],
                                  winner=best)))
    return lines


def deadline_lines(game: Game, lang: str = "en") -> list[str]:
    """R8: the deadline rule, who is due when, the resigned seats, and every timeout,
    stand-in turn and change of hands with its time (public facts only)."""
    said = translator(lang)
    out = []
    rule = rule_text(game, lang)
    if rule is not None:
        out.append(rule)
        due = phrase(game, lang=lang)
        if due is not None:
            out.append(said.say(Msg("due: {due}", due=due)))
    if game.resigned:
        out.append(said.say(Msg("resigned (played by the stand-in, R8.4): {seats}",
                                seats=", ".join(sorted(game.resigned)))))
    out.extend(away_lines(game, lang=lang))
    out.extend(record_lines(game, lang))
    return out


def describe_action(game: Game, action: Action, lang: str = "en") -> str:
    """One action of a move in a sentence (typed, like :func:`describe_event`)."""
    said = translator(lang)

    def name(region: str) -> str:
        return said.say(region_word(game, region))

    match action:
        case TakeCard(card=card):
            return said.say(Msg("take the {card} card", card=said.say(Name.card(card))))
        case Place(region=r, count=n):
            return said.say(Msg.plural("place {n} cube in {region}", "place {n} cubes in {region}", n,
                                       region=name(r)))
        case King(region=r):
            return said.say(Msg("King: move a cube from {region} to the palace", region=name(r)))
        case Merchant(source=a, target=b, count=n):
            return said.say(Msg.plural("Merchant: move {n} cube from {source} to {target}",
                                       "Merchant: move {n} cubes from {source} to {target}", n,
                                       source=name(a), target=name(b)))
        case Monk(token=t, target=b):
            return said.say(Msg("Monk: move rat {token} to {region}", token=t, region=name(b)))
        case WitchLook(token=t):
            return said.say(Msg("Witch: look at rat {token}", token=t))
        case WitchSwap():
            return said.say(Msg("Witch: swap the two rats you looked at"))
        case MovePlague(path=path) | KnightMove(path=path):
            return said.say(Msg("move the plague to {path}", path=" -> ".join(map(name, path))))
        case Spread(region=r):
            return said.say(Msg("put the drawn rat in {region}", region=name(r)))
        case KnightCubes():
            return said.say(Msg.plural("Knight: count the plague piece as {n} neutral cube",
                                       "Knight: count the plague piece as {n} neutral cubes", NEUTRAL_CUBES))
        case Flip(token=t):
            return said.say(Msg("flip rat {token} next", token=t))
        case EndTurn():
            return said.say(Msg("end your part of the final round"))
    return said.say(Msg(type(action).said, **{f: _said_field(f, getattr(action, f), name) for f in action._fields}))


def _said_field(field: str, value: object, name: Callable[[str], str]) -> object:
    """A declared action's field in its sentence: a region by its name, a card as a :class:`Name`,
    a path as its regions, anything else as it is."""
    if field in ("region", "source", "target"):
        return name(str(value))
    if field == "card":
        return Name.card(str(value))
    if field == "path" and isinstance(value, tuple):
        return " -> ".join(map(name, value))
    return value


def _face(game: Game, token_id: str, threshold: int | None = None, lang: str = "en") -> str:
    """A face already shown to this reader, in words, from the game's own catalogue."""
    try:
        return face_text(game, token_id, lang)
    except KeyError:
        if threshold is None:
            return token_id
        return translator(lang).say(Msg("threshold {threshold}", threshold=threshold))


def private_lines(view: SeatView, lang: str = "en") -> list[str]:
    """One seat's own Witch looks (R5.6), faces in words, each with what checks it (P6)."""
    said = translator(lang)
    return [
        "  " + said.say(Msg("you saw rat {token} = {face_id} ({face}; entry {seq}; salt {salt})", token=look.token,
                            face_id=look.token_id, face=face_text(view.game, look.token_id, lang), seq=look.seq,
                            salt=look.salt))
        for look in view.looks
    ]
