"""Refusals of the rules core: the illegal-move kind of pbem's one error family."""

from __future__ import annotations

from pbem.errors import RulesError


class RuleError(RulesError):
    """An action that breaks a rule (R7.3). Nothing was changed.

    Constructed like every :class:`pbem.errors.PbemError`: ``RuleError(message, rule)``,
    ``rule`` the number in RULES.md (``"R5.3"``), ``message`` a sentence a player can act
    on.  It never names a face-down token's face.
    """
