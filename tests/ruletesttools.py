"""Every refusal the rule tests make, for the tests of how refusals are said (in every language,
never an f-string, never an internal id)."""

from __future__ import annotations

import importlib
import inspect
from unittest import mock

from pbem.rules import RuleError

RULE_TESTS = ("test_rules_setup", "test_rules_turn", "test_rules_plague", "test_rules_classes", "test_rules_end",
              "test_legal", "test_standin")


def refusals_of_the_rule_tests() -> list[RuleError]:
    """Every RuleError the rule tests make (each test without arguments, run here)."""
    made: list[RuleError] = []
    original = RuleError.__init__

    def noting(self: RuleError, message: str, rule: str | None = None) -> None:
        original(self, message, rule)
        made.append(self)

    with mock.patch.object(RuleError, "__init__", noting):
        for name in RULE_TESTS:
            for test_name, test in vars(importlib.import_module(name)).items():
                if (test_name.startswith("test_") and inspect.isfunction(test)
                        and not inspect.signature(test).parameters and not hasattr(test, "hypothesis")):
                    test()
    return made
