"""Refusals of the rules core: a value with the rule number and a plain sentence."""

from __future__ import annotations


class RuleError(Exception):
    """An action that breaks a rule (R7.3). Nothing was changed.

    ``rule`` is the number in RULES.md (``"R5.3"``); ``message`` is a sentence a
    player can act on.  It never names a face-down token's face.
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message
