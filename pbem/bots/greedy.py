"""The ``greedy`` level: one turn ahead, scored by expected cube losses and gains.

Everything it estimates comes from the seat's :class:`Knowledge`: a face-down
rat's face is a draw from the pool (the catalogue minus every face the seat has
seen), a rat the seat's Witch looked at has its known face.  For a region it
estimates each player's expected cube loss if its rats are flipped now (R4.3:
the threshold against the region's cubes, the majority's ``M``, the card
holders' class symbols with R4.5's several-cards risk, everyone's ``A``).  A
turn is valued by the cubes each player keeps: on the board and in the palace
(R5.1, safe for good), minus the expected loss of the outbreak it triggers,
minus a share of every other region's risk (the plague may come there later;
at the end the sweep flips them all, R6.4); the bot maximizes its own value
minus the best opponent's.  Candidate turns: each card (or none, R3.1) x each
placement (R3.2, R5.5) with the King's palace move when it can (R5.1), then the
Merchant's best move (R5.2), then each plague path (R3.3, R5.4) with its spreads
placed to hurt the others most (R4.1) and the Knight's neutral cubes if they
help (R5.4).  It never uses the Witch (R5.6) or the Monk (R5.3).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from pbem.bots.knowledge import Knowledge
from pbem.rules import (
    Action,
    EndTurn,
    King,
    KnightCubes,
    KnightMove,
    Merchant,
    MovePlague,
    NoFaces,
    Phase,
    Place,
    RuleError,
    Stage,
    State,
    TakeCard,
    apply_in_place,
    legal_actions,
    legal_of,
)
from pbem.rules.data import N_TOKENS, Token
from pbem.rules.state import CUBES_PER_PLAYER

_NO_FACES = NoFaces()
MAX_COUNT = 4 * CUBES_PER_PLAYER + 2  # every cube of 4 players and the Knight's 2 (R5.4)


class PoolStats:
    """For each cube count c: the expected number of each symbol a pool rat brings when
    it breaks out at c (threshold <= c, R4.3), i.e. E[#symbol x 1{threshold <= c}]."""

    def __init__(self, faces: Sequence[Token]) -> None:
        n = max(len(faces), 1)
        self.by_count: list[dict[str, float]] = []
        for count in range(MAX_COUNT + 1):
            sums: dict[str, float] = {}
            for face in faces:
                if face.threshold <= count:
                    for symbol in face.symbols:
                        sums[symbol] = sums.get(symbol, 0.0) + 1.0
            self.by_count.append({s: v / n for s, v in sums.items()})


def face_effect(face: Token, count: int) -> dict[str, float]:
    if face.threshold > count:
        return {}
    out: dict[str, float] = {}
    for symbol in face.symbols:
        out[symbol] = out.get(symbol, 0.0) + 1.0
    return out


class Estimator:
    """Expected losses from the seat's knowledge (R4.3, R4.5)."""

    def __init__(self, knowledge: Knowledge) -> None:
        self.knowledge = knowledge
        self.stats = PoolStats(knowledge.pool)
        # region_loss depends only on the region's rats and cubes, the card holders and the
        # neutral cubes: candidate turns change a few regions, so most answers repeat
        self._losses: dict[tuple[object, ...], dict[str, float]] = {}

    def region_loss(self, state: State, region: str, neutral: int = 0) -> dict[str, float]:
        """Each player's expected cube loss if ``region``'s rats were flipped now."""
        here = state.cubes[region]
        rats = state.rats[region]
        if not rats or not here:
            return {}
        key = (tuple(rats), tuple(here.items()), tuple(state.cards.values()), neutral)
        found = self._losses.get(key)
        if found is None:
            found = self._losses[key] = self._region_loss(state, rats, here, neutral)
        return found

    def _region_loss(self, state: State, rats: list[str], here: dict[str, int], neutral: int) -> dict[str, float]:
        count = min(sum(here.values()) + neutral, MAX_COUNT)
        top = max(here.values())
        symbols: dict[str, float] = {}
        for token in rats:
            known = self.knowledge.known(token)
            effect = face_effect(known, count) if known is not None else self.stats.by_count[count]
            for s, v in effect.items():
                symbols[s] = symbols.get(s, 0.0) + v
        if not symbols:
            return {}
        loss: dict[str, float] = {}
        m, a = symbols.get("M", 0.0), symbols.get("A", 0.0)
        for player, n in here.items():
            lost = a + (m if n == top else 0.0)
            for card, holder in state.cards.items():
                if holder == player:
                    lost += symbols.get(card, 0.0)  # R4.5: every card held
            loss[player] = min(lost, float(n))
        return loss

    def values(self, state: State, outbreak: str | None, neutral: int = 0) -> dict[str, float]:
        """Each player's expected cubes kept: board and palace, minus the outbreak in
        ``outbreak`` (now), minus a share of every other region's risk."""
        value = {p: float(state.palace[p]) * 1.15 for p in state.players}
        for cubes in state.cubes.values():
            for p, n in cubes.items():
                value[p] += n
        progress = 1.0 - len(state.rat_supply) / (N_TOKENS - len(state.removed) - len(state.regions))
        final = state.phase is Phase.FINAL
        near = set(state.neighbours[state.plague])
        for region in state.regions:
            if region == outbreak:
                weight = 1.0
                loss = self.region_loss(state, region, neutral)
            else:
                weight = 1.0 if final else (0.3 if region in near else 0.12) + 0.5 * progress * progress
                loss = self.region_loss(state, region, 2 if final and region == state.plague else 0)
            for p, v in loss.items():
                value[p] -= weight * v
        bonus = state.table.deck.weights  # what holding a card is worth beyond this turn, in cubes
        for card, holder in state.cards.items():
            if holder is not None and not final:
                value[holder] += bonus[card]
        return value

    def score(self, state: State, me: str, outbreak: str | None = None, neutral: int = 0) -> float:
        value = self.values(state, outbreak, neutral)
        mine = value.pop(me)
        return mine - max(value.values(), default=0.0)


def _try(state: State, me: str, actions: Sequence[Action]) -> State | None:
    """``state`` after ``actions`` (public facts only), or None if one is refused."""
    new = state.copy()
    try:
        for action in actions:
            apply_in_place(new, me, action, _NO_FACES)
    except RuleError:
        return None
    return new


class Candidate:
    __slots__ = ("actions", "score")

    def __init__(self, actions: list[Action], score: float) -> None:
        self.actions = actions
        self.score = score


def card_of(candidate: Candidate) -> Action | None:
    """The card a candidate turn takes first (R3.1), or None."""
    first = candidate.actions[0] if candidate.actions else None
    return first if isinstance(first, TakeCard) else None


class GreedyBot:
    level = "greedy"

    def __init__(self, rng: random.Random, beam: int = 5) -> None:
        self.rng = rng
        self.beam = beam  # (card, placement) pairs whose plague moves are tried

    def choose(self, state: State, knowledge: Knowledge) -> list[Action]:
        return self.candidates(state, knowledge, 1)[0].actions

    # --- candidates -------------------------------------------------------------------

    def candidates(
        self, state: State, knowledge: Knowledge, keep: int, est: Estimator | None = None,
        per_card: int = 0,
    ) -> list[Candidate]:
        """The ``keep`` best whole turns (or final-round goes), best first; ``est`` an
        estimator of ``knowledge`` already made (mcts: one per decision, its answers kept).
        ``per_card`` > 0: the plague moves are tried for the best ``per_card`` placements of
        each card choice (R3.1: none or each card the seat can take), not for the best
        ``beam`` of them all, so that every card choice has its whole turns (mcts's root)."""
        me = state.to_move
        assert me is not None
        est = est if est is not None else Estimator(knowledge)
        if state.phase is Phase.SETUP:
            found = [Candidate([a], est.score(s, me)) for a in legal_actions(state)
                     if (s := _try(state, me, [a])) is not None]
        elif state.phase is Phase.FINAL:
            found = [self._final(state, me, est)]
        elif state.turn.stage is not Stage.MAIN:
            score, tail = self._finish(state, me, est, [])
            found = [Candidate(tail, score)]
        else:
            found = self._turns(state, me, est, per_card)
        found.sort(key=lambda c: -c.score)
        return found[:keep]

    def _turns(self, state: State, me: str, est: Estimator, per_card: int = 0) -> list[Candidate]:
        cards: list[list[Action]] = [[], *([take] for take in legal_of(state, TakeCard))]
        partial: list[Candidate] = []
        for start in cards:
            s1 = _try(state, me, start)
            if s1 is None:
                continue
            start = start + self._king(s1, me)
            s1 = _try(state, me, start)
            if s1 is None:  # pragma: no cover - the King's move is chosen legal
                continue
            places: list[Action | None] = [*legal_of(s1, Place)]
            for place in places or [None]:
                actions = start + ([place] if place is not None else [])
                s2 = _try(state, me, actions) if place is not None else s1
                if s2 is None:
                    continue
                partial.append(Candidate(actions, est.score(s2, me)))
        partial.sort(key=lambda c: -c.score)
        if per_card:
            counts: dict[Action | None, int] = {}
            chosen = []
            for cand in partial:
                card = card_of(cand)
                counts[card] = counts.get(card, 0) + 1
                if counts[card] <= per_card:
                    chosen.append(cand)
            partial = chosen
        else:
            partial = partial[: self.beam]
        out: list[Candidate] = []
        for cand in partial:
            actions = cand.actions + self._merchant(state, me, est, cand.actions)
            s2 = _try(state, me, actions)
            if s2 is None:  # pragma: no cover
                continue
            for path in legal_of(s2, MovePlague):
                s3 = _try(s2, me, [path])
                if s3 is None:  # pragma: no cover
                    continue
                score, tail = self._finish(s3, me, est, [])
                out.append(Candidate([*actions, path, *tail], score))
        return out

    def _king(self, state: State, me: str) -> list[Action]:
        """R5.1: a cube to the palace whenever possible (from the region holding most)."""
        options = [a for a in legal_of(state, King) if isinstance(a, King)]
        return [max(options, key=lambda a: state.cubes[a.region][me])] if options else []

    def _merchant(self, state: State, me: str, est: Estimator, actions: list[Action]) -> list[Action]:
        s = _try(state, me, actions)
        merchants = legal_of(s, Merchant) if s is not None else []
        if s is None or not merchants:
            return []
        best: list[Action] = []
        best_score = est.score(s, me)
        for action in merchants:
            after = _try(s, me, [action])
            if after is not None:
                score = est.score(after, me)
                if score > best_score + 0.05:
                    best, best_score = [action], score
        return best

    def _finish(self, state: State, me: str, est: Estimator, tail: list[Action]) -> tuple[float, list[Action]]:
        """Spreads (R4.1) to hurt the others most, the Knight's cubes if they help (R5.4)."""
        s = state
        while s.to_move == me and s.phase is Phase.TURN and s.turn.stage is Stage.SPREAD:
            best: tuple[float, Action, State] | None = None
            for action in legal_actions(s):
                after = _try(s, me, [action])
                if after is None:  # pragma: no cover
                    continue
                score = est.score(after, me, s.plague)
                if best is None or score > best[0]:
                    best = (score, action, after)
            assert best is not None
            tail.append(best[1])
            s = best[2]
        if s.to_move == me and s.phase is Phase.TURN and s.turn.stage is Stage.OUTBREAK:
            plain = est.score(s, me, s.plague)
            if s.cards["knight"] == me and not s.turn.knight_cubes and not s.turn.flips:
                knight = est.score(s, me, s.plague, 2)
                if knight > plain:
                    tail.append(KnightCubes())
                    return knight, tail
            return plain, tail
        return est.score(s, me), tail

    def _final(self, state: State, me: str, est: Estimator) -> Candidate:
        """R6.2-R6.3: abilities one at a time while one helps the final sweep (R6.4), then end."""
        actions: list[Action] = []
        s = state
        score = est.score(s, me)
        while True:
            best: tuple[float, Action, State] | None = None
            for action in legal_actions(s):
                if not isinstance(action, King | Merchant | Place | KnightMove):
                    continue
                after = _try(s, me, [action])
                if after is None:  # pragma: no cover
                    continue
                value = est.score(after, me)
                if value > score + 1e-9 and (best is None or value > best[0]):
                    best = (value, action, after)
            if best is None:
                break
            score, action, s = best
            actions.append(action)
        actions.append(EndTurn())
        return Candidate(actions, score)
