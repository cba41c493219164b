"""The mails a player gets, per mail mode: how many per own turn, and how big.

    python bench/mailsize.py                 # turn, every and digest; one 3-player game each
    python bench/mailsize.py --modes turn --seeds 1 2 3

Plays whole 3-player games by mail through `pbem mail` (a Maildir in, a Maildir out), every
seat played from its own mails alone (tests/mutt.py: the move from the public log, as the
`log` command sends it, a reply by quoting, bare or by a file in turn), and prints, per mode, the mails per player
per own turn (Witch looks and refusals included), the bytes a player receives per own turn (every
mail after the opening, the end's included), the median and the largest mail, and the lines of the
longest quoted reply to a "your move" mail as default mutt writes it.  A
Witch's look asks for one mail more (R7.5: a look ends a move file): the ratio is also
given without those mails.
Targets for the default mode (turn): at most 1.3 mails per own turn, a median of at most
25 KB, at most 35 KB received per own turn, none over 100 KB, a quoted reply of at most 60 lines.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from mutt import MailTable, asks, looks, own_turns, quoted

SEATS = {"red": "red@example.org", "green": "green@example.com", "blue": "blue@example.net"}


def measure(mode: str, seed: int) -> tuple[float, float, list[int], int, int, int]:
    """(mails per player per own turn, the same less the Witch's looks' mails, every mail's size,
    the longest quote, own turns, the bytes of every mail after the opening)."""
    with tempfile.TemporaryDirectory() as tmp:
        table = MailTable(Path(tmp), SEATS, mode, seed=seed)
        table.play()
        game = table.game()
        turns = sum(own_turns(game, seat) for seat in SEATS)
        looked = sum(looks(game, seat) for seat in SEATS)
        after = sum(1 for _seat, _msg, started in table.sent if started)
        sizes = [len(bytes(msg)) for _seat, msg, _started in table.sent]
        quotes = [len(quoted(msg)) for _seat, msg, _started in table.sent if asks(msg) == "your move"]
        received = sum(len(bytes(msg)) for _seat, msg, started in table.sent if started)
        return after / turns, (after - looked) / turns, sizes, max(quotes, default=0), turns, received


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", nargs="+", default=["turn", "every", "digest"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[1])
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}; whole 3-player games by mail, seeds {args.seeds}")
    print(f"{'mode':8} {'mails/own turn':>15} {'less looks':>11} {'KB/own turn':>12} {'median KB':>10} "
          f"{'largest KB':>11} {'quote lines':>12} {'turns':>6}")
    for mode in args.modes:
        ratios, lesses, sizes, quotes, turns, received = [], [], [], [], 0, 0
        for seed in args.seeds:
            ratio, less, found, quote, played, got = measure(mode, seed)
            ratios.append(ratio)
            lesses.append(less)
            sizes += found
            quotes.append(quote)
            turns += played
            received += got
        print(f"{mode:8} {statistics.mean(ratios):15.2f} {statistics.mean(lesses):11.2f} "
              f"{received / turns / 1024:12.1f} {statistics.median(sizes) / 1024:10.1f} "
              f"{max(sizes) / 1024:11.1f} {max(quotes):12d} {turns:6d}")


if __name__ == "__main__":
    main()
