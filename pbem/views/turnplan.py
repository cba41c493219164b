"""The whole turn as a move-file template: every choice, in the order it is played.

A player fills in one file per turn (only a Witch's look needs a second one,
to see the face before going on).  :func:`plan` lists, from public facts only
(P10: the board, the cards, the public names of the rats), each line the
player may uncomment, in playing order:

1. the cards that can be taken (R3.1);
2. the placements, per region and count (R3.2, R5.5);
3. each ability's legal uses (R5), those of a card taken this turn too;
4. each plague destination (Knight paths too, R5.4) with the number of rats
   it spreads and, below it, the regions they may go to (R4.1);
5. the Knight's neutral cubes (R5.4);
6. the flip order, a preference, by public name only (R4.2).

Each :class:`Offer` carries ``needs``: the lines it follows in a turn (the
card it needs taken, the plague move its spread follows), so a test can play
every line in its context.  :func:`flow` writes a line as a one-line YAML
flow mapping, which always parses.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pbem.record import Record
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
    legal_by_kind,
)
from pbem.rules.abilities import knight_cubes_refusal
from pbem.rules.checks import card_refusal, kinds_now, path_refusal, path_rule, plague_gate, spread_refusal, walks
from pbem.rules.plague import NEUTRAL_CUBES, outbreak_pending, spread_count
from pbem.rules.state import MAX_RATS

_PLAIN = re.compile(r"[a-z][a-z0-9_-]*\Z")
_RESERVED = frozenset({"null", "true", "false", "yes", "no", "on", "off", "y", "n"})
ABILITIES = ("king", "merchant", "monk", "witch")
"""The cards whose ability is used before phase C (R5.1-R5.3, R5.6), in the template's order."""


def _scalar(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value if _PLAIN.match(value) and value not in _RESERVED else json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_scalar(v) for v in value) + "]"
    raise TypeError(f"no flow form for {type(value).__name__}")


def flow(action: dict[str, Any]) -> str:
    """``{action: move_plague, path: [gallia, hispania]}``: one line of YAML flow, always valid."""
    return "{" + ", ".join(f"{k}: {_scalar(v)}" for k, v in action.items()) + "}"


class Offer(Record):
    """One line a player may uncomment: the action, what it does in words, and the
    lines it follows in a turn (``needs``, as move-file dicts)."""

    action: dict[str, Any]
    note: str
    needs: tuple[dict[str, Any], ...]


class Section(Record):
    title: str
    offers: tuple[Offer, ...]


def _kind(state: State, kind: str) -> list[Action]:
    for k, thunk in legal_by_kind(state):
        if k == kind:
            return thunk()
    return []


def _holding(state: State, player: str, card: str) -> State | None:
    """The state as if ``player`` had taken ``card`` now (None if they cannot)."""
    if state.cards[card] == player:
        return state
    if TakeCard not in kinds_now(state) or card_refusal(state, player, card) is not None:
        return None
    trial = state.copy()
    trial.cards[card] = player
    return trial


def _d(action: Action) -> dict[str, Any]:
    return action.to_dict()


class _Planner:
    def __init__(self, name: Any, state: State, player: str) -> None:
        self.name = name  # region id -> its name (the game's board)
        self.state = state
        self.player = player

    def take(self, card: str) -> tuple[dict[str, Any], ...]:
        return () if self.state.cards[card] == self.player else (_d(TakeCard(card)),)

    def main(self) -> list[Section]:
        s = self.state
        sections = [
            Section("Phase A (optional, R3.1): take one card, unowned or another player's",
                    tuple(Offer(_d(a), f"take the {_card(a.to_dict()['card'])}", ())
                          for a in _kind(s, "take_card"))),
            self.placements(),
        ]
        for card in ABILITIES:
            sections.append(self.ability(card))
        sections.extend(self.plague())
        return [x for x in sections if x.offers]

    def placements(self) -> Section:
        s, player = self.state, self.player
        offers = [Offer(_d(a), f"{a.to_dict()['count']} cube(s) in {self.name(a.to_dict()['region'])}", ())
                  for a in _kind(s, "place")]
        peasant = _holding(s, player, "peasant")
        if peasant is not None and peasant is not s and not s.turn.placed:
            have = {(o.action["region"], o.action["count"]) for o in offers}
            for a in _kind(peasant, "place"):
                d = _d(a)
                if (d["region"], d["count"]) not in have:
                    offers.append(Offer(d, f"{d['count']} cube(s) in {self.name(d['region'])}, "
                                           "after taking the Peasant (R5.5)", self.take("peasant")))
        title = ("Phase B (R3.2): place cubes on one region, as many as it has rats "
                 "(the Peasant: one more, R5.5); one line")
        if s.turn.placed:
            title = "Phase B: done"
        return Section(title, tuple(offers))

    def ability(self, card: str) -> Section:
        s, player = self.state, self.player
        trial = _holding(s, player, card)
        if trial is None:
            return Section("", ())
        needs = self.take(card)
        after = f", after taking the {_card(card)}" if needs else ""
        kind = "witch_look" if card == "witch" else card
        offers = [Offer(_d(a), _use(self.name, a) + after, needs) for a in _kind(trial, kind)]
        looks = [o.action for o in offers if o.action["action"] == "witch_look"]
        if card == "witch" and s.turn.witch_open and looks:  # the second file (R5.6)
            offers.append(Offer({"action": "witch_swap"}, "swap the two rats, right after your second look",
                                (looks[0],)))
        title = {
            "king": "King (R5.1): one cube from a region without rats to the palace",
            "merchant": "Merchant (R5.2): up to 3 cubes to a neighbouring region",
            "monk": "Monk (R5.3): one rat to a neighbouring region with fewer than 3",
            "witch": ("Witch (R5.6): look at a rat, then mail this file: the host sends you its face, "
                      "and you go on in a second file (a second look, the swap, the rest of the turn)"),
        }[card]
        return Section(title, tuple(offers))

    def context(self, dest: str | None = None) -> tuple[dict[str, Any], ...]:
        """The placement a plague move needs first (R3.2 ruling), on ``dest`` if it can."""
        s, player = self.state, self.player
        if plague_gate(s, player) is None:  # phase B done, or nothing to place (R3.2 ruling)
            return ()
        places = _kind(s, "place")
        on_dest = [a for a in places if isinstance(a, Place) and a.region == dest]
        return (_d((on_dest or places)[0]),)

    def plague(self) -> list[Section]:
        s, player = self.state, self.player
        knight = _holding(s, player, "knight")
        paths = [MovePlague(p) for p in _legal_paths(s, 1 if knight is None else 2)]
        lines: list[Offer] = []
        flips: list[Offer] = []
        knight_line: Offer | None = None
        flipped: set[str] = set()
        for move in paths:
            assert isinstance(move, MovePlague)
            dest = move.path[-1]
            needs = self.context(dest) + (self.take("knight") if len(move.path) == 2 else ())
            trial = s.copy()
            trial.plague = dest
            count = spread_count(trial)
            room = [n for n in trial.neighbours[dest] if spread_refusal(trial, n) is None]
            to = " -> ".join(self.name(r) for r in move.path)
            knightly = " (Knight, R5.4" + (", after taking the Knight)" if self.take("knight") else ")")
            if count:
                what = (f"{count} drawn rat(s) spread: add {count} spread line(s) from below "
                        f"({', '.join(self.name(r) for r in room)})")
            else:
                what = "no rat spreads" if not trial.rats[dest] else "no rat spreads (no room or no supply)"
            lines.append(Offer(_d(move), f"the plague to {to}{knightly if len(move.path) == 2 else ''}: "
                               f"{what}", needs))
            moved = (*needs, _d(move))
            via = f" via {self.name(move.path[0])}" if len(move.path) == 2 else ""
            lines.extend(Offer(_d(Spread(r)), f"after the plague reaches {self.name(dest)}{via}: "
                               f"a drawn rat to {self.name(r)}", moved) for r in room if count)
            spreads = tuple(_d(Spread(r)) for r in _fill(trial, room, count))
            placed = self.context(dest)
            cubes = any(trial.cubes[dest].values()) or (placed and placed[0]["region"] == dest)
            if dest not in flipped and trial.rats[dest] and cubes:
                ctx = (*moved, *spreads)
                if knight is not None and knight_line is None and (len(move.path) == 1 or knight is s):
                    knight_line = Offer({"action": "knight_cubes"},
                                        f"Knight (R5.4): the plague piece counts as {NEUTRAL_CUBES} neutral cubes in "
                                        "this turn's outbreak; after the spreads, before the flips",
                                        (*self.take("knight"), *ctx) if len(move.path) == 1 else ctx)
                flipped.add(dest)
                flips.extend(Offer({"action": "flip", "token": t},
                                   f"if the plague ends in {self.name(dest)}: flip {t} next", ctx)
                             for t in trial.rats[dest])
        out = [Section("Phase C (R3.3): move the plague to a neighbouring region (one line), then "
                       "its spread lines (R4.1)", tuple(lines))]
        if knight_line is not None:
            out.append(Section("The Knight's option (R5.4)", (knight_line,)))
        out.append(Section("Flip order (R4.2), a preference: the named rats flip first, in your order, "
                           "then the rest oldest first, while the outbreak lasts", tuple(flips)))
        return out

    def spread(self) -> list[Section]:
        s = self.state
        dest = s.plague
        offers = tuple(Offer(_d(a), f"a drawn rat to {self.name(a.to_dict()['region'])}", ())
                       for a in _kind(s, "spread"))
        out = [Section(f"Spread (R4.1): {s.turn.spread_left} drawn rat(s) to place next to "
                       f"{self.name(dest)}, one line each", offers)]
        room = [n for n in s.neighbours[dest] if spread_refusal(s, n) is None]
        ctx = tuple(_d(Spread(r)) for r in _fill(s, room, s.turn.spread_left))
        if outbreak_pending(s, dest):
            if knight_cubes_refusal(s, self.player) is None:
                out.append(Section("The Knight's option (R5.4)", (Offer(
                    {"action": "knight_cubes"}, f"the plague piece counts as {NEUTRAL_CUBES} neutral cubes", ctx),)))
            out.append(Section("Flip order (R4.2), a preference", tuple(
                Offer({"action": "flip", "token": t}, f"flip {t} next", ctx) for t in s.rats[dest])))
        return out

    def plain(self, title: str) -> list[Section]:
        offers = [Offer(_d(a), _use(self.name, a), ())
                  for _, thunk in legal_by_kind(self.state) for a in thunk() if a.kind != "end"]
        return [Section(title, tuple(offers))]


def _legal_paths(state: State, longest: int = 2) -> list[tuple[str, ...]]:
    """R3.3, R5.4: the plague's moves, asked of the rules (also for a Knight not yet taken)."""
    return [p for p in walks(state, longest) if path_refusal(state, p, longest, path_rule(p)) is None]


def _fill(state: State, room: list[str], count: int) -> list[str]:
    """``count`` spread targets among ``room``, the first with space first (for contexts)."""
    free = {r: MAX_RATS - len(state.rats[r]) for r in room}
    out: list[str] = []
    for r in room:
        while free[r] and len(out) < count:
            out.append(r)
            free[r] -= 1
    return out


def _card(card: str) -> str:
    return card.capitalize()


def _use(name: Any, action: Action) -> str:
    """A template line's comment: the action in words (typed dispatch, like the views')."""
    match action:
        case King(region=r):
            return f"a cube from {name(r)} to the palace"
        case Merchant(source=a, target=b, count=n):
            return f"{n} cube(s) from {name(a)} to {name(b)}"
        case Monk(token=t, target=b):
            return f"rat {t} to {name(b)}"
        case WitchLook(token=t):
            return f"look at rat {t}"
        case WitchSwap():
            return "swap the two rats you looked at"
        case TakeCard(card=card):
            return f"take the {_card(card)}"
        case Place(region=r, count=n):
            return f"{n} cube(s) in {name(r)}"
        case MovePlague(path=path) | KnightMove(path=path):
            return "the plague to " + " -> ".join(name(r) for r in path)
        case Spread(region=r):
            return f"a drawn rat to {name(r)}"
        case KnightCubes():
            return f"the plague piece counts as {NEUTRAL_CUBES} neutral cubes"
        case Flip(token=t):
            return f"flip {t} next"
    return "end your part of the final round"


def plan(name: Any, state: State, player: str) -> list[Section]:
    """Every line ``player`` may uncomment now, by section, in playing order (P10: public only).

    ``name`` turns a region id into its name (``game.board.name_of``)."""
    if state.to_move != player:
        return []
    p = _Planner(name, state, player)
    if state.phase is Phase.SETUP:
        return p.plain("Setup (R2.5): 2 cubes on any region; one line")
    if state.phase is Phase.FINAL:
        return p.plain("Final round (R6.2-R6.3): your class abilities once more, then 'end'")
    if state.turn.stage is Stage.SPREAD:
        return p.spread()
    if state.turn.stage is Stage.OUTBREAK:
        return p.plain("The outbreak (R4.2, R5.4): the Knight's neutral cubes first, then the flip "
                       "order, a preference")
    return p.main()


def offers(name: Any, state: State, player: str) -> list[Offer]:
    return [o for section in plan(name, state, player) for o in section.offers]


def lines(name: Any, state: State, player: str) -> list[str]:
    """The template's commented lines: section titles, then ``#  - {...}   # note`` lines."""
    out: list[str] = []
    for section in plan(name, state, player):
        out.append(f"# -- {section.title}")
        out.extend(f"#  - {flow(o.action)}   # {o.note}" for o in section.offers)
    return out
