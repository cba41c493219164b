"""The finder of English in a translated mail (tests/english.py) finds English, and only English."""

from __future__ import annotations

from english import english_lines


def test_english_is_found_and_the_notation_and_hungarian_are_not() -> None:
    assert english_lines("It is your move.\nReply with the rest of your turn") == [
        "It is your move.", "Reply with the rest of your turn"]
    assert english_lines("take monk\nplace gallia 2\nafter 3 e6a5f34c\ngame o red") == []
    assert english_lines("Te következel: a lépésed a sablon szerint, ez is jó") == []
    assert english_lines("Η σειρά σου: red, gallia\nТвій хід: blue") == []
    assert english_lines("pbem verify o-3-log.yaml.gz", allowed=("pbem verify",)) == []
