"""The short template: what is left of a turn, in the plain-text notation (R7.5).

At most about 40 lines, none of 40 characters or more (no mail client wraps
them), in the true playing order: a Witch's second look and swap first once
her use has begun (R5.6), then the card, the cubes, the abilities, the plague
and its spreads, the flip order.  Each legal choice is listed once:

* ``# FORM (Rn):`` says what a line looks like, e.g. ``# place REGION N (R3.2)``;
* a title too long for a line goes on after ``#  `` (two spaces);
* the lines below it, ``#   gallia 2, italia 1`` (three spaces), list the choices; a choice
  with the form's first word before it is a move line (``place gallia 2``);
* a plague destination lists the rats it spreads and where they may go:
  ``#   italia: 2 to gallia, anglia``; the Knight's two steps by the region they go
  through: ``#   gallia: italia 2, hispania 1`` (``plague gallia italia``).

Only the header (``game``, ``after``) is written as a live line: a player adds
their lines below it.  Every choice comes from the rules' own legal-action
generators (:func:`pbem.rules.legal_by_kind`) on the public state: no face (P10).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from pbem.i18n import Msg, translator
from pbem.rules import (
    Action,
    Flip,
    King,
    KnightCubes,
    KnightMove,
    Merchant,
    Monk,
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
from pbem.rules.checks import card_refusal, path_refusal, path_rule, plague_gate, spread_refusal, walks
from pbem.rules.plague import outbreak_pending, spread_count
from pbem.rules.stages import kinds_now
from pbem.rules.state import MAX_RATS
from pbem.views.lines import WIDTH, choices, kept, shipped_names, words, wrap

__all__ = ["MOST_LINES", "WIDTH", "choices", "left", "menu", "shipped_names", "words", "wrap"]

MOST_LINES = 45
"""A template longer than this lists the Knight's paths, the Monk's rats, the Merchant's moves, the cards, then the
plague's destinations, in short (:func:`menu`'s ``compact``), never by other names than the seat's language's."""


A = TypeVar("A", bound=Action)


def _actions(state: State, generator: str) -> list[Action]:
    """The legal actions of one of the rules' generators (``pbem.rules.legal``), typed."""
    for k, thunk in legal_by_kind(state):
        if k == generator:
            return thunk()
    return []


def _of(state: State, generator: str, kind: type[A]) -> list[A]:
    """The legal actions of ``kind`` among a generator's."""
    return [a for a in _actions(state, generator) if isinstance(a, kind)]


def _as(state: State, player: str, card: str) -> State | None:
    """The state with ``card`` in ``player``'s hand, if they hold it or can take it now
    (R3.1, R5.7: a card taken this turn works this turn); None if neither."""
    if state.cards[card] == player:
        return state
    if TakeCard not in kinds_now(state) or card_refusal(state, player, card) is not None:
        return None
    trial = state.copy()
    trial.cards[card] = player
    return trial


class _Menu:
    def __init__(self, state: State, player: str, compact: int, lang: str = "en",
                 name: Callable[[str], str] = str) -> None:
        self.state, self.player, self.compact = state, player, compact
        self.lang, self.said, self.name = lang, translator(lang), name
        self.lines: list[str] = []

    def section(self, title: str, items: list[str] | None = None) -> None:
        self.lines.extend(wrap(self.said.say(title).split(), "# ", "#  "))  # a title goes on two spaces in
        if items:
            self.lines.extend(choices(items))

    def names(self, ids: list[str]) -> list[str]:
        return [self.name(i) for i in ids]

    def witch(self, first: bool) -> None:
        """The Witch (R5.6): once her use has begun, the second look and the swap come first
        (``first``); else her first look is one ability among the others."""
        s, p = self.state, self.player
        trial = _as(s, p, "witch")
        if trial is None or s.turn.witch_open != first:
            return
        kinds = {type(a) for a in _actions(trial, "witch_look")}
        if first:
            if WitchLook in kinds:
                self.section(Msg("look TOKEN (R5.6): a second look"))
            if WitchSwap in kinds or WitchLook in kinds:
                self.section(Msg("swap (R5.6): after the second look"))
            self.section(Msg("then the rest of the turn:"))
        elif WitchLook in kinds and s.cards["witch"] == p:
            self.section(Msg("look TOKEN (R5.6): any rat; stop there to see its face"))
        elif WitchLook in kinds:
            self.section(Msg("look TOKEN (R5.6), if you take it: any rat; stop there to see its face"))

    def card(self) -> None:
        cards = [a.card for a in _of(self.state, "take_card", TakeCard)]
        if cards:
            self.section(Msg("take CARD (R3.1), optional:"), self.names(cards))

    def cubes(self) -> None:
        s, p = self.state, self.player
        places = [f"{self.name(a.region)} {a.count}" for a in _of(s, "place", Place)]
        if places:
            title = Msg("place REGION N (R3.2), one of:") if s.phase is not Phase.FINAL else \
                Msg("place REGION 1 (the Peasant, R6.3):")
            self.section(title, places)
        if s.turn.placed or s.phase is not Phase.TURN or (not places and s.cards["peasant"] == p):
            return
        if s.cards["peasant"] == p:  # the generator counted the Peasant's cube in: say so, once (R5.5)
            self.section(Msg("(these counts already include the Peasant's +1, R5.5)"))
        elif _as(s, p, "peasant") is not None:
            self.section(Msg("(if you take the Peasant, R5.5: 1 more, or 1 where no rat is)"))

    def abilities(self) -> None:
        """The King's regions, the Merchant's moves (from, how many, to) and the Monk's rats
        with where they may go (R5.1-R5.3), each said "if you take it" for a card not held."""
        s, p = self.state, self.player
        offered: list[str] = []
        takeable: list[str] = []
        held_named: list[str] = []
        for card in ("king", "merchant", "monk"):
            trial = _as(s, p, card)
            acts = _actions(trial, card) if trial is not None else []
            if not acts:
                continue
            offered.append(card)
            held = s.cards[card] == p
            if not held and self.compact > 3:  # a crowded menu: the cards one could take, named only
                takeable.append(card)
                continue
            if self.compact > 4:  # the most crowded: the cards held too, their choices left to the board
                held_named.append(card)
                continue
            if card == "king":
                self.section(_TITLES[card, held], self.names(sorted({a.region for a in acts if isinstance(a, King)},
                                                                    key=_board_order(s))))
            elif card == "merchant":
                self.section(_TITLES[card, held])
                self._merchant(acts)
            else:
                self.section(_TITLES[card, held])
                self._monk(acts)
        if held_named:
            self.section(Msg("your cards, by the board (R5): {cards}", cards=", ".join(self.names(held_named))))
        if len(offered) > 1 or ("monk" in offered and s.phase is Phase.TURN):  # the plague's lines below too
            self.section(Msg("(a king, merchant or monk line changes the lists below it)"))
        witch = _as(s, p, "witch")
        if self.compact > 3 and s.cards["witch"] != p and witch is not None and _actions(witch, "witch_look"):
            takeable.append("witch")
        if takeable:
            self.section(Msg("if you take it, also (R5.7): {cards}", cards=", ".join(self.names(takeable))))
        if "witch" not in takeable:
            self.witch(first=False)

    def _merchant(self, acts: list[Action]) -> None:
        """``FROM to TO, TO: 1-N`` per region the Merchant may leave (R5.2), in the form's order."""
        by_source: dict[str, tuple[int, list[str]]] = {}
        for a in (a for a in acts if isinstance(a, Merchant)):
            most, targets = by_source.get(a.source, (0, []))
            by_source[a.source] = (max(most, a.count), targets + ([a.target] if a.target not in targets else []))
        order = sorted(by_source, key=_board_order(self.state))
        if self.compact > 2:  # the Merchant's regions and counts; where to: the board's neighbours
            sources = ", ".join(kept(f"{self.name(r)} {by_source[r][0]}") for r in order)
            self.lines.extend(wrap(words(self.said.say(Msg("to a neighbour (the board); FROM 1-N: {sources}",
                                                           sources=sources)))))
            return
        for source in order:
            most, targets = by_source[source]
            line = (Msg("{source} to {regions}: 1", source=kept(self.name(source)),
                        regions=", ".join(self.names(targets))) if most == 1 else
                    Msg("{source} to {regions}: 1-{most}", source=kept(self.name(source)),
                        regions=", ".join(self.names(targets)), most=most))
            self.lines.extend(wrap(words(self.said.say(line))))

    def _monk(self, acts: list[Action]) -> None:
        """``TOKEN, TOKEN to REGION, REGION`` per region whose rats may move (R5.3); in short
        (``compact`` 2), the rule and the regions that are full."""
        s = self.state
        if self.compact > 1:
            full = [r for r in s.regions if len(s.rats[r]) >= MAX_RATS]
            rule = (Msg("any rat, to a neighbour with under 3 rats (full: {regions})",
                        regions=", ".join(self.names(full))) if full else
                    Msg("any rat, to a neighbour with under 3 rats"))
            self.lines.extend(wrap(words(self.said.say(rule))))
            return
        where = {t: r for r in s.regions for t in s.rats[r]}
        by_source: dict[str, tuple[list[str], list[str]]] = {}
        for a in (a for a in acts if isinstance(a, Monk)):
            token, target = a.token, a.target
            tokens, targets = by_source.setdefault(where[token], ([], []))
            tokens += [token] if token not in tokens else []
            targets += [target] if target not in targets else []
        for source in sorted(by_source, key=_board_order(s)):
            tokens, targets = by_source[source]
            line = Msg("{tokens} to {regions}", tokens=", ".join(tokens), regions=", ".join(self.names(targets)))
            self.lines.extend(wrap(words(self.said.say(line))))

    def plague(self) -> None:
        """Each destination once, with the rats it spreads and where they may go (R3.3, R4.1),
        a region with room for one rat marked ``(1)``; the Knight's two-step paths (R5.4) the
        same way, each written as its move line's words (``gallia italia: 2 to ...``)."""
        s, p = self.state, self.player
        knight = _as(s, p, "knight")
        longest = 2 if knight else 1
        paths = [w for w in walks(s, longest) if path_refusal(s, w, longest, path_rule(w)) is None]
        one = [w for w in paths if len(w) == 1]
        two: dict[str, tuple[str, ...]] = {}
        for path in paths:
            if len(path) == 2 and (path[-1],) not in one:
                two.setdefault(path[-1], path)
        if self.compact > 5:  # the most crowded: how many rats each destination spreads; where to: the board
            self.section(Msg("plague REGION (R3.3), one of (N: the rats it spreads):"),
                         [f"{self.name(end)} {_spreads(s, end)[0]}" for (end,) in one])
        else:
            self.section(Msg("plague REGION (R3.3), one of:"))
            self._destinations([(end,) for (end,) in one])
        if two and not self.compact:
            self.section(Msg("or, the Knight (R5.4): plague VIA REGION, one of:"))
            self._destinations(list(two.values()))
        elif two:  # a long menu: the Knight's paths by the region they go through, with counts
            self.section(Msg("or, the Knight (R5.4): plague VIA END; VIA: END N (N spread by END)"))
            via: dict[str, list[str]] = {}
            for end, path in two.items():
                via.setdefault(path[0], []).append(f"{self.name(end)} {_spreads(s, end)[0]}")
            for first, ends in via.items():
                self.lines.extend(wrap([f"{self.name(first)}:", *[f"{e}," for e in ends[:-1]], ends[-1]]))
        marked = any(line.endswith("(1)") or "(1)," in line for line in self.lines)
        self.section(Msg("spread REGION (R4.1): a line per rat; (1): room for one") if marked
                     else Msg("spread REGION (R4.1): a line per rat"))
        self.outbreak(knight is not None)

    def _destinations(self, paths: list[tuple[str, ...]]) -> None:
        """``END: N to R, R (1)`` per path that spreads, then those where no rat spreads."""
        quiet: list[str] = []
        for steps in paths:
            path = " ".join(self.names(list(steps)))
            count, room = _spreads(self.state, steps[-1], marked=True)
            room = [" ".join(self.names(r.split(" ", 1)[:1]) + r.split(" ", 1)[1:]) for r in room]
            if count and self.lang == "en":
                self.lines.extend(wrap([f"{path}:", f"{count} to", *[f"{r}," for r in room[:-1]], room[-1]]))
            elif count:
                spread = Msg.plural("{path}: {n} rat to {regions}", "{path}: {n} rats to {regions}", count,
                                    path=kept(path), regions=", ".join(kept(r) for r in room))
                self.lines.extend(wrap(words(self.said.say(spread))))
            else:
                quiet.append(path)
        if quiet and self.lang == "en":
            self.lines.extend(wrap(["no", "rat", "spreads:", *[f"{q}," for q in quiet[:-1]], quiet[-1]]))
        elif quiet:
            none = Msg("no rat spreads: {paths}", paths=", ".join(kept(q) for q in quiet))
            self.lines.extend(wrap(words(self.said.say(none))))

    def outbreak(self, knight: bool) -> None:
        if knight:
            self.section(Msg("knight cubes (R5.4), optional"))
        self.section(Msg("flip TOKEN.. (R4.2), optional"))

    def spreads(self) -> None:
        s = self.state
        room = [a.region for a in _of(s, "spread", Spread)]
        if s.turn.spread_left > 1:
            room = [f"{self.name(r)} (1)" if len(s.rats[r]) == MAX_RATS - 1 else self.name(r) for r in room]
        else:
            room = self.names(room)
        n = s.turn.spread_left
        title = (Msg.plural("spread REGION (R4.1): {n} line, one of; (1): room for one:",
                            "spread REGION (R4.1): {n} lines, one of; (1): room for one:", n)
                 if any(r.endswith("(1)") for r in room) else
                 Msg.plural("spread REGION (R4.1): {n} line, one of:",
                            "spread REGION (R4.1): {n} lines, one of:", n))
        self.section(title, room)
        if outbreak_pending(s, s.plague):
            self.outbreak(s.cards["knight"] == self.player and not s.turn.knight_cubes)

    def final(self) -> None:
        s, p = self.state, self.player
        self.cubes()
        self.abilities()
        if s.cards["knight"] == p:
            ends = sorted({" ".join(a.path) for a in _of(s, "knight_move", KnightMove)})
            if ends:
                self.section(Msg("knight REGION [REGION] (R6.3), one of:"),
                             [" ".join(self.names(e.split())) for e in ends])
        self.section(Msg("end (R6.2): your go is finished; write it last"))


_TITLES: dict[tuple[str, bool], Msg] = {  # (card, held): each heading one sentence, its form's words too
    ("king", True): Msg("king REGION (R5.1), REGION:"),
    ("king", False): Msg("king REGION (R5.1), if you take it:"),
    ("merchant", True): Msg("merchant FROM TO N (R5.2), one of:"),
    ("merchant", False): Msg("merchant FROM TO N (R5.2), if you take it, one of:"),
    ("monk", True): Msg("monk TOKEN REGION (R5.3), one of:"),
    ("monk", False): Msg("monk TOKEN REGION (R5.3), if you take it, one of:"),
}


def _spreads(state: State, end: str, marked: bool = False) -> tuple[int, list[str]]:
    """How many rats a plague ending in ``end`` spreads, and where they may go (R4.1); with
    ``marked``, a region that has room for one rat only is written ``REGION (1)`` when two spread."""
    trial = state.copy()
    trial.plague = end
    count = spread_count(trial)
    room = [n for n in trial.neighbours[end] if spread_refusal(trial, n) is None]
    if marked and count > 1:
        room = [f"{n} (1)" if len(trial.rats[n]) == MAX_RATS - 1 else n for n in room]
    return (count if room else 0), room


def _board_order(state: State) -> Callable[[str], tuple[int, str]]:
    """Regions in board order, anything else (a rat's name) after them, by name."""
    regions = {r: i for i, r in enumerate(state.regions)}
    return lambda value: (regions.get(value, len(regions)), value)


def left(state: State, player: str, lang: str = "en") -> str:
    """What is left of the turn, in a few words (the template's header), in ``lang``."""
    said = translator(lang)
    if state.phase is Phase.SETUP:
        return said.say(Msg("2 cubes on one region (R2.5)"))
    if state.phase is Phase.FINAL:
        return said.say(Msg("your class cards once more, then end (R6.2)"))
    if state.turn.stage is Stage.SPREAD:
        n = state.turn.spread_left
        return said.say(Msg.plural("{n} drawn rat to spread (R4.1)", "{n} drawn rats to spread (R4.1)", n))
    if state.turn.stage is Stage.OUTBREAK:
        return said.say(Msg("the flip order (R4.2)"))
    parts = []
    if state.turn.witch_open:
        parts.append(Msg("the Witch's swap") if len(state.turn.witch_looked) > 1 else Msg("the Witch (look, swap)"))
    if not state.turn.card_taken:
        parts.append(Msg("card (optional)"))
    if plague_gate(state, player) is not None:
        parts.append(Msg("cubes"))
    parts.append(Msg("plague"))
    return ", ".join(said.say(part) for part in parts)  # a list of what is left, not a sentence


def menu(state: State, player: str, compact: int = 0, lang: str = "en",
         name: Callable[[str], str] = str) -> list[str]:
    """The template's choice lines for ``player``, in playing order (P10: public only);
    ``compact`` (for a menu that would be too long) lists the Knight's two-step paths by the
    region they go through, their spreads' room left to the board, and at 2 also the Monk's
    rats by the rule and the full regions, at 6 the plague's destinations by how many rats each
    spreads.  In ``lang``, the
    explanations translated, the forms and keywords as they are, and each region and card
    by ``name`` (:func:`shipped_names`: a name the notation reads back)."""
    m = _Menu(state, player, compact, lang, name)
    if state.phase is Phase.SETUP:
        m.section(Msg("place REGION 2 (R2.5), one of:"),
                  [f"{name(a.region)} {a.count}" for a in _of(state, "place", Place)])
    elif state.phase is Phase.FINAL:
        m.final()
    elif state.turn.stage is Stage.SPREAD:
        m.spreads()
    elif state.turn.stage is Stage.OUTBREAK:  # an outbreak left open (old logs): a line is owed
        acts = _actions(state, "flip")  # the outbreak's generator: the flips and the Knight's cubes
        if any(isinstance(a, KnightCubes) for a in acts):
            m.section(Msg("knight cubes (R5.4), optional"))
        m.section(Msg("flip TOKEN.. (R4.2): the order, of:"), [a.token for a in acts if isinstance(a, Flip)])
    else:
        m.witch(first=True)
        m.card()
        m.cubes()
        m.abilities()
        m.plague()
    return m.lines
