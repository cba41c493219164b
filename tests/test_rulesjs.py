"""The composer page's rules module (``pbem/views/rules.js``) against pbem's Python rules, in
Chromium: over random positions of random games (R2-R6: the setup, every part of a turn, the
final round), the page offers exactly the legal actions ``pbem.rules.legal_actions`` gives, in
its order, writes each as the notation does, and the public state after each is the engine's
(``apply_legal`` with no faces, P10).  The Python rules stay the only judge of a move; this
only shows the page's choices are theirs."""

from __future__ import annotations

from typing import Any

import pytest
from rulesjstools import js_answers, python_answers, random_positions, rules_page, same_state

from pbem.log.notation_write import action_line
from pbem.rules import State, action_from_dict


def _disagreements(browser: Any, states: list[State]) -> list[str]:
    wrong: list[str] = []
    for state, js in zip(states, js_answers(browser, states), strict=True):
        legal, after = python_answers(state)
        where = f"turn {state.turn_number} {state.phase.value}/{state.turn.stage.value} {state.to_move}"
        if js["legal"] != legal:
            missing = [a for a in legal if a not in js["legal"]][:3]
            extra = [a for a in js["legal"] if a not in legal][:3]
            wrong.append(f"{where}: legal actions differ (missing {missing}, extra {extra})")
            continue
        if js["lines"] != [action_line(action_from_dict(a)) for a in legal]:
            wrong.append(f"{where}: notation lines differ: {js['lines'][:3]}")
        for action, mine, theirs in zip(legal, js["after"], after, strict=True):
            if not same_state(mine, theirs):
                wrong.append(f"{where}: the state after {action} differs")
                break
    return wrong


@pytest.fixture(scope="module")
def rules_browser(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Any:
    browser.open(rules_page(tmp_path_factory.mktemp("rulesjs")))
    return browser


def test_the_pages_rules_offer_the_python_rules_legal_actions_and_states(rules_browser: Any) -> None:
    """R2-R6, P10: 300 positions of random 2-, 3- and 4-player games."""
    states = random_positions(300, seed=1)
    assert {s.phase.value for s in states} >= {"setup", "turn", "final"}
    assert {s.turn.stage.value for s in states} >= {"main", "spread", "outbreak"}
    assert _disagreements(rules_browser, states) == []


def test_a_changed_rule_in_the_pages_copy_is_caught(rules_browser: Any) -> None:
    """The test can fail: with the Monk's room rule (R1.7) changed in the page's copy, it says so."""
    states = [s for s in random_positions(300, seed=2) if s.turn.stage.value == "main"
              and s.cards["monk"] == s.to_move and "monk" not in s.turn.used]
    rules_browser.eval("window.RealRattus = window.RealRattus || Rattus; Rattus = {legal: function (S) {"
                       " return RealRattus.legal(S).filter(function (a) {"
                       " return !(a.action === 'monk' && S.rats[a.target].length === 2); }); },"
                       " apply: RealRattus.apply, line: RealRattus.line}")  # a region 'full' at 2 rats
    try:
        assert states and _disagreements(rules_browser, states)
    finally:
        rules_browser.eval("Rattus = window.RealRattus")


@pytest.mark.slow
def test_the_pages_rules_agree_over_thousands_of_positions(rules_browser: Any) -> None:
    """R2-R6, P10: 5,000 positions, one browser session."""
    assert _disagreements(rules_browser, random_positions(5000, seed=3)) == []


def test_the_pages_rules_agree_where_the_mover_holds_the_monk_the_merchant_and_the_king(rules_browser: Any) -> None:
    """R5.1-R5.3, R5.7: the positions with the most ways to finish a turn (the precomputed tree of
    choices refused them): 4-player turns whose mover holds the Monk, the Merchant and the King."""
    states = []
    for state in random_positions(600, seed=4, players=(4,)):
        if state.phase.value == "turn" and state.turn.stage.value == "main":
            held = state.copy()
            for card in ("monk", "merchant", "king"):
                held.cards[card] = state.players[state.current]
            states.append(held)
    assert len(states) >= 100
    assert _disagreements(rules_browser, states[:100]) == []
