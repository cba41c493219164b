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

from pbem.i18n import Msg, translator
from pbem.i18n.names import SHIPPED
from pbem.rules import Phase, Stage, State, TakeCard, legal_by_kind
from pbem.rules.checks import card_refusal, path_refusal, path_rule, plague_gate, spread_refusal, walks
from pbem.rules.plague import outbreak_pending, spread_count
from pbem.rules.stages import kinds_now
from pbem.rules.state import MAX_RATS

WIDTH = 39
"""Every template line is shorter than 40 characters."""

MOST_LINES = 45
"""A template longer than this lists the Knight's paths in short (:func:`menu`'s ``compact``)."""



def _kind(state: State, kind: str) -> list[dict[str, object]]:
    for k, thunk in legal_by_kind(state):
        if k == kind:
            return [a.to_dict() for a in thunk()]
    return []


def wrap(words: list[str], lead: str = "#   ", more: str = "#     ") -> list[str]:
    """``words`` (choices, each already with its trailing comma where one belongs) in lines
    shorter than :data:`WIDTH` + 1, the first after ``lead``, the rest after ``more``."""
    lines: list[str] = []
    line = lead
    for word in words:
        if line.strip("# ") and len(line) + 1 + len(word) > WIDTH:
            lines.append(line.rstrip())
            line = more
        line += ("" if line in (lead, more) else " ") + word
    if line.strip("# "):
        lines.append(line.rstrip())
    return lines


def choices(items: list[str]) -> list[str]:
    """A list of choices, comma-separated, wrapped."""
    return wrap([f"{item}," for item in items[:-1]] + items[-1:])


_NBSP = "\u00a0"


def _kept(text: str) -> str:
    """A value that :func:`words` keeps whole on a line (a path, ``gallia (1)``)."""
    return text.replace(" ", _NBSP)


def words(said: str) -> list[str]:
    """A sentence said in a language, as :func:`wrap`'s words: split at its spaces, but
    never inside a value made :func:`_kept` (as English keeps ``gallia (1),`` whole)."""
    return [word.replace(_NBSP, " ") for word in said.split(" ") if word]


def shipped_names(lang: str, own: Callable[[str], str] | None = None) -> Callable[[str], str]:
    """A region's or card's name as a template line shows it in ``lang``: the name its
    players know for a shipped region or a class card (the notation reads it back,
    :func:`pbem.i18n.names.canonical`), else the id as it is; English shows ids.
    ``own`` (the game's board) tells a shipped region that a custom map renamed:
    that one keeps its id."""
    if lang == "en":
        return str
    said = translator(lang)

    def name(ident: str) -> str:
        for kind in ("region", "card"):
            if ident in SHIPPED[kind] and (kind == "card" or own is None or own(ident) == ident.capitalize()):
                shown = said.pgettext(kind, ident)
                return ident if " " in shown else shown  # a line's words are split at spaces
        return ident
    return name


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
    def __init__(self, state: State, player: str, compact: bool, lang: str = "en",
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
        kinds = {str(a["action"]) for a in _kind(trial, "witch_look")}
        if first:
            if "witch_look" in kinds:
                self.section(Msg("look TOKEN (R5.6): a second look"))
            if "witch_swap" in kinds or "witch_look" in kinds:
                self.section(Msg("swap (R5.6): after the second look"))
            self.section(Msg("then the rest of the turn:"))
        elif "witch_look" in kinds:
            self.section(Msg("look TOKEN (R5.6): any rat; stop there to see its face"))

    def card(self) -> None:
        cards = [str(a["card"]) for a in _kind(self.state, "take_card")]
        if cards:
            self.section(Msg("take CARD (R3.1), optional:"), self.names(cards))

    def cubes(self) -> None:
        s, p = self.state, self.player
        places = [f"{self.name(str(a['region']))} {a['count']}" for a in _kind(s, "place")]
        if places:
            title = Msg("place REGION N (R3.2), one of:") if s.phase is not Phase.FINAL else \
                Msg("place REGION 1 (the Peasant, R6.3):")
            self.section(title, places)
        if not s.turn.placed and s.phase is Phase.TURN and _as(s, p, "peasant") is not None:
            self.section(Msg("(the Peasant: 1 cube more, R5.5)"))

    def abilities(self) -> None:
        s, p = self.state, self.player
        for card, heading, rule, kind, first in (  # each heading one sentence: its form's words translated too
            ("king", Msg("king REGION (R5.1), REGION:"), "R5.1", "king", "region"),
            ("merchant", Msg("merchant FROM TO N (R5.2), FROM:"), "R5.2", "merchant", "source"),
            ("monk", Msg("monk TOKEN REGION (R5.3), TOKEN:"), "R5.3", "monk", "token"),
        ):
            trial = _as(s, p, card)
            if trial is None:
                continue
            found = sorted({str(a[first]) for a in _kind(trial, kind)}, key=_board_order(s))
            if card == "monk" and found and len(found) == sum(map(len, s.rats.values())):
                self.section(Msg("monk TOKEN REGION ({rule}): any rat on the board", rule=rule))  # all can go
            elif found:
                self.section(heading, self.names(found))
        self.witch(first=False)

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
                spread = Msg.plural("{path}: {n} to {regions}", "{path}: {n} to {regions}", count,
                                    path=_kept(path), regions=", ".join(_kept(r) for r in room))
                self.lines.extend(wrap(words(self.said.say(spread))))
            else:
                quiet.append(path)
        if quiet and self.lang == "en":
            self.lines.extend(wrap(["no", "rat", "spreads:", *[f"{q}," for q in quiet[:-1]], quiet[-1]]))
        elif quiet:
            none = Msg("no rat spreads: {paths}", paths=", ".join(_kept(q) for q in quiet))
            self.lines.extend(wrap(words(self.said.say(none))))

    def outbreak(self, knight: bool) -> None:
        if knight:
            self.section(Msg("knight cubes (R5.4), optional"))
        self.section(Msg("flip TOKEN.. (R4.2), optional"))

    def spreads(self) -> None:
        s = self.state
        room = [str(a["region"]) for a in _kind(s, "spread")]
        if s.turn.spread_left > 1:
            room = [f"{self.name(r)} (1)" if len(s.rats[r]) == MAX_RATS - 1 else self.name(r) for r in room]
        else:
            room = self.names(room)
        n = s.turn.spread_left
        title = (Msg.plural("spread REGION (R4.1): {n} line(s), one of; (1): room for one:",
                            "spread REGION (R4.1): {n} line(s), one of; (1): room for one:", n)
                 if any(r.endswith("(1)") for r in room) else
                 Msg.plural("spread REGION (R4.1): {n} line(s), one of:",
                            "spread REGION (R4.1): {n} line(s), one of:", n))
        self.section(title, room)
        if outbreak_pending(s, s.plague):
            self.outbreak(s.cards["knight"] == self.player and not s.turn.knight_cubes)

    def final(self) -> None:
        s, p = self.state, self.player
        self.cubes()
        self.abilities()
        if s.cards["knight"] == p:
            ends = sorted({" ".join(a["path"]) for a in _kind(s, "knight_move")})  # type: ignore[arg-type]
            if ends:
                self.section(Msg("knight REGION [REGION] (R6.3), one of:"),
                             [" ".join(self.names(e.split())) for e in ends])
        self.section(Msg("end (R6.2): your go is finished; write it last"))


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
        return said.say(Msg.plural("{n} drawn rat(s) to spread (R4.1)", "{n} drawn rat(s) to spread (R4.1)", n))
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


def menu(state: State, player: str, compact: bool = False, lang: str = "en",
         name: Callable[[str], str] = str) -> list[str]:
    """The template's choice lines for ``player``, in playing order (P10: public only);
    ``compact`` (for a menu that would be too long) lists the Knight's two-step paths by the
    region they go through, their spreads' room left to the board.  In ``lang``, the
    explanations translated, the forms and keywords as they are, and each region and card
    by ``name`` (:func:`shipped_names`: a name the notation reads back)."""
    m = _Menu(state, player, compact, lang, name)
    if state.phase is Phase.SETUP:
        m.section(Msg("place REGION 2 (R2.5), one of:"),
                  [f"{name(str(a['region']))} {a['count']}" for a in _kind(state, "place")])
    elif state.phase is Phase.FINAL:
        m.final()
    elif state.turn.stage is Stage.SPREAD:
        m.spreads()
    elif state.turn.stage is Stage.OUTBREAK:  # an outbreak left open (old logs): a line is owed
        acts = _kind(state, "flip")  # the outbreak's generator: the flips and the Knight's cubes
        if any(a["action"] == "knight_cubes" for a in acts):
            m.section(Msg("knight cubes (R5.4), optional"))
        m.section(Msg("flip TOKEN.. (R4.2): the order, of:"), [str(a["token"]) for a in acts if "token" in a])
    else:
        m.witch(first=True)
        m.card()
        m.cubes()
        m.abilities()
        m.plague()
    return m.lines
