"""The pages of `pbem site`: the index of a host's games, one page per game, the standings.

Every page is built by :func:`pbem.views.markup.render` (each value escaped, only markup made
here goes in as it is) from public cards (:class:`pbem.host.cards.Card`: the public log's
facts) and needs no script: its Content-Security-Policy admits its one style, by hash, and
nothing else, so it loads nothing and runs nothing.  Text is at least 12 CSS pixels, and the
layout is one column on a phone.  A game's board fits the screen's width, its words 10 pixels
and more: a phone's style shows the compact drawing of the map (:data:`pbem.views.layout.COMPACT`),
a wider screen's the standard one, beside the side panel from 1120 pixels on; two radio buttons
(no script: the style reads which is checked) draw it twice as large in its box, which then
scrolls both ways, by a finger or the arrow keys.  Each game's
step-through page is `pbem html`'s viewer (:func:`pbem.views.html.game_page`), linked from its page.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pbem.i18n import Msg, translator
from pbem.views.html import csp_hash
from pbem.views.markup import Markup, render
from pbem.views.standings import Standing
from pbem.views.timeline import GameStatus, status_text

STYLE = """
body { font-family: DejaVu Sans, Liberation Sans, Arial, sans-serif; font-size: 16px; line-height: 1.4;
       margin: 0 auto; padding: 10px; max-width: 60em; background: #f4f1ea; color: #1a1a1a; }
h1 { font-size: 22px; margin: 4px 0 8px 0; }
h2 { font-size: 18px; margin: 18px 0 6px 0; border-bottom: 1px solid #bbb; }
nav a { margin-right: 14px; }
nav a, ul.games li > a, p.links a { display: inline-block; box-sizing: border-box; min-height: 44px; padding: 10px 0; }
p.links a { display: block; }
a { color: #1d4f91; }
ul.games { list-style: none; padding: 0; margin: 0; }
ul.games li { background: #fff; border: 1px solid #ccc; padding: 8px; margin: 6px 0; }
.small { font-size: 14px; color: #444; }
.fair { color: #1f6b1f; font-weight: bold; }
.refused { color: #a00000; font-weight: bold; }
.pending { color: #7a5a00; font-weight: bold; }
table { border-collapse: collapse; background: #fff; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; }
td.num { text-align: right; }
td.name { white-space: nowrap; }
p.verdict { background: #fff; border: 2px solid #2c7a2c; padding: 8px; }
p.verdict.failed { border-color: #b00000; background: #fbeaea; }
body.wide { max-width: 1400px; }
:focus-visible { outline: 3px solid #1d4f91; outline-offset: 2px; }
.play { display: grid; grid-template-columns: minmax(0, 1fr); gap: 8px; margin: 10px 0; }
.zoom { border: 0; padding: 0; margin: 0; display: flex; flex-wrap: wrap; gap: 4px; align-items: center; }
.zoom input { position: absolute; opacity: 0; width: 1px; height: 1px; margin: 0; }
.zoom label { display: inline-block; box-sizing: border-box; min-height: 44px; min-width: 44px; padding: 10px 12px;
              border: 1px solid #767676; border-radius: 4px; background: #fff; cursor: pointer; }
.zoom input:checked + label { background: #1d4f91; color: #fff; }
.zoom input:focus-visible + label { outline: 3px solid #1d4f91; outline-offset: 2px; }
.board { min-width: 0; overflow: auto; aspect-ratio: 1000 / 780; border: 1px solid #999; background: #bcd7ea; }
.board svg { display: block; width: 100%; height: auto; max-width: none; }
.play:has(.zoom input[value="2"]:checked) .board svg { width: 200%; }
.board svg.standard { display: none; }
.panel svg { display: block; width: 100%; max-width: 420px; height: auto; border: 1px solid #999; background: #fff; }
@media (min-width: 820px) {
  .board svg.standard { display: block; } .board svg.compact { display: none; }
  .board { min-width: 780px; }
}
@media (min-width: 1120px) {
  .play { grid-template-columns: clamp(780px, calc((100vh - 110px) * 1.282), calc(100vw - 360px)) 300px;
          grid-template-rows: auto auto 1fr; grid-template-areas: "board zoom" "board panel" "facts panel";
          align-items: start; margin-top: 0; }
  .zoom { grid-area: zoom; } .board { grid-area: board; } .panel { grid-area: panel; } .facts { grid-area: facts; }
  .panel svg { max-width: none; }
}
pre { white-space: pre-wrap; font-size: 14px; background: #fff; border: 1px solid #ccc; padding: 8px; }
summary { cursor: pointer; padding: 10px 0; min-height: 44px; box-sizing: border-box; }
"""

HEAD = """<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{policy}">
<title>{title}</title>
<style>{style}</style>
</head>
<body class="{kind}">
<nav><a href="{home}index.html">{games}</a> <a href="{home}standings.html">{standings}</a></nav>
<h1>{title}</h1>
"""

TAIL = """<p class="small">{made}</p>
</body>
</html>
"""

class Shown(Protocol):
    """What a page shows of one game: :class:`pbem.host.cards.Card` (the public log's facts)."""

    @property
    def game_id(self) -> str: ...
    @property
    def status(self) -> str: ...  # a GameStatus value; "" for a log that does not read
    @property
    def players(self) -> tuple[str, ...]: ...
    @property
    def waiting(self) -> tuple[str, ...]: ...
    @property
    def since_at(self) -> str: ...
    @property
    def last_seq(self) -> int: ...
    @property
    def last_at(self) -> str: ...
    @property
    def labels(self) -> tuple[str, ...]: ...
    @property
    def verdict(self) -> str: ...
    @property
    def verdict_line(self) -> str: ...
    @property
    def reason(self) -> str: ...
    @property
    def places(self) -> tuple[str, ...]: ...
    @property
    def scores(self) -> tuple[int, ...]: ...


VERDICT_CLASS = {"fair": "fair", "host": "pending", "not-yet": "pending", "refused": "refused"}


def policy() -> str:
    """Nothing fetched, nothing run: only the page's own style (by hash) and pictures inline."""
    return (f"default-src 'none'; style-src {csp_hash(STYLE)}; img-src data:; base-uri 'none'; "
            "form-action 'none'")


def page(title: str, body: Markup, lang: str, made: str, home: str = "", wide: bool = False) -> str:
    """A whole page: head (the policy, a phone's viewport), the menu, ``body``, the footer; a
    ``wide`` one (a game's board beside its panel) may use a desktop's whole width."""
    said = translator(lang)
    return render(HEAD, lang=lang, policy=Markup(policy()), title=title, style=Markup(STYLE), home=home,
                  kind="wide" if wide else "",
                  games=said.say(Msg("Games")), standings=said.say(Msg("Standings"))) + body + render(TAIL, made=made)


def joined(parts: Sequence[Markup]) -> Markup:
    return Markup("").join(parts)


def game_link(card: Shown, home: str = "") -> Markup:
    return render('<a href="{home}games/{game}.html">{game}</a>', home=home, game=card.game_id)


def section(title: str, items: Sequence[Markup], empty: str) -> Markup:
    if not items:
        return render("<h2>{title}</h2>\n<p>{empty}</p>\n", title=title, empty=empty)
    return render('<h2>{title}</h2>\n<ul class="games">\n{items}</ul>\n', title=title, items=joined(items))


def open_item(game_id: str, seats: int, free: int, lang: str) -> Markup:
    said = translator(lang)
    text = said.say(Msg.plural("{n} seat of {seats} free; to join, mail the host 'join {game}'",
                               "{n} seats of {seats} free; to join, mail the host 'join {game}'",
                               free, seats=seats, game=game_id))
    return render("<li><b>{game}</b><br>{text}</li>\n", game=game_id, text=text)


def play_item(card: Shown, lang: str) -> Markup:
    text = waiting_text(card, lang)
    return render('<li>{link} <span class="small">{players}</span><br>{text}</li>\n', link=game_link(card),
                  players=", ".join(card.players), text=text)


def waiting_text(card: Shown, lang: str) -> str:
    """Where the game stands and whose turn it is since when: the opening's rounds (P4) or play."""
    said = translator(lang)
    who = ", ".join(card.waiting) or said.say(Msg("nobody"))
    return said.say(Msg("{status}: {who} since {at}", status=status_text(GameStatus(card.status), lang), who=who,
                        at=card.since_at))


def _verdict_word(card: Shown) -> Markup:
    word = card.verdict_line.split(".", 1)[0] if card.verdict_line else ""
    return render('<span class="{kind}">{word}</span>', kind=VERDICT_CLASS.get(card.verdict, ""), word=word)


def places_text(card: Shown, lang: str) -> str:
    said = translator(lang)
    shown = ", ".join(f"{p} {s}" for p, s in zip(card.places, card.scores, strict=True))
    return said.say(Msg("winner {winner} (R6.5); cubes on the board, the palace included: {shown}",
                        winner=card.places[0], shown=shown))


def over_item(card: Shown, lang: str) -> Markup:
    text = places_text(card, lang) if card.places else card.reason
    return render('<li>{link} {word}<br>{text}</li>\n', link=game_link(card), word=_verdict_word(card), text=text)


def index_page(open_games: Sequence[tuple[str, int, int]], playing: Sequence[Markup], over: Sequence[Markup],
               lang: str, made: str) -> str:
    """The index: the open games, the games in play (whose turn, since when: each its
    :func:`play_item`), the finished games with their verdicts (and the games whose logs do not
    verify: each its :func:`over_item`), the items as made before: a build keeps each game's
    item while its log is the same."""
    said = translator(lang)
    body = joined([
        section(said.say(Msg("Open games")), [open_item(g, n, free, lang) for g, n, free in open_games],
                said.say(Msg("No game waits for players."))),
        section(said.say(Msg("In play")), playing, said.say(Msg("No game is in play."))),
        section(said.say(Msg("Finished")), over, said.say(Msg("No game has finished yet."))),
    ])
    return page(said.say(Msg("Rattus games on this host")), body, lang, made)


COUNTED = Msg("A game counts when it is over, its audit says FAIR and every seat was held to the end by a person "
              "known by their address. Test games, games with bot seats, deals no player's nonce went into, games "
              "not yet revealed and logs that do not verify do not count, nor does a seat's earlier holder who left "
              "or was replaced. Each player is shown by a name the host's key makes from their address: the same in "
              "every game here, never the address itself. The rating is OpenSkill's (Plackett-Luce, mu - 3 sigma): "
              "each game ranks its players by their places.")
"""Which games the standings count, and who a row is (:mod:`pbem.host.people`)."""


def standings_page(rows: Sequence[Standing], games: int, lang: str, made: str) -> str:
    """The standings table, best first."""
    said = translator(lang)
    head = render("<tr><th>#</th><th>{player}</th><th>{rating}</th><th>{games}</th><th>{wins}</th></tr>\n",
                  player=said.say(Msg("player")), rating=said.say(Msg("rating")),
                  games=said.say(Msg("games")), wins=said.say(Msg("wins")))
    lines = [render('<tr><td class="num">{n}</td><td class="name">{player}</td><td class="num">{rating}</td>'
                    '<td class="num">{games}</td><td class="num">{wins}</td></tr>\n', n=str(n), player=row.player,
                    rating=f"{row.rating:.2f}", games=str(row.games), wins=str(row.wins))
             for n, row in enumerate(rows, start=1)]
    about = said.say(Msg.plural("Over {n} game that counts.", "Over {n} games that count.", games))
    which = said.say(COUNTED)
    table = render("<table>\n{head}{lines}</table>\n", head=head, lines=joined(lines)) if rows else Markup("")
    body = render("<p>{about}</p>\n{table}<p class=\"small\">{which}</p>\n", about=about, table=table, which=which)
    return page(said.say(Msg("Standings")), body, lang, made)


def game_card_page(card: Shown, viewer: bool, lang: str, made: str, board: tuple[str, str, str] | None = None,
                   history: Sequence[str] = ()) -> str:
    """One game's page: where it stands, its places and verdict, its board now (the escaping SVG
    builder's drawings, :func:`pbem.views.svg.screen_board`) and its history in words (a
    ``<details>``: no script), links to its viewer and its log."""
    said = translator(lang)
    seats = said.say(Msg("players (seat order): {players}", players=", ".join(card.players)))
    parts = []
    if card.players:
        parts.append(render("<p>{players}</p>\n", players=seats))
    if card.status:
        parts.append(render("<p>{text}</p>\n", text=waiting_text(card, lang) if card.waiting else status_text(
            GameStatus(card.status), lang)))
        parts.append(render("<p>{text}</p>\n", text=said.say(Msg("last entry {seq} at {at}", seq=card.last_seq,
                                                                 at=card.last_at))))
    if card.labels:
        parts.append(render('<p class="small">{labels}</p>\n', labels="; ".join(card.labels)))
    if card.places:
        parts.append(render("<p>{text}</p>\n", text=places_text(card, lang)))
    if card.verdict_line:
        kind = "verdict failed" if card.verdict == "refused" else "verdict"
        parts.append(render('<p class="{kind}">{line}<br>{reason}</p>\n', kind=kind, line=card.verdict_line,
                            reason=card.reason))
    if board is not None:  # the board first, as at a game's table, its facts under it
        parts = [board_block(board, joined(parts), lang)]
    if history:
        parts.append(render("<details><summary>{title}</summary>\n<pre>{lines}</pre></details>\n",
                            title=said.say(Msg("the game, entry by entry")), lines="\n".join(history)))
    links = [render('<a href="{game}-viewer.html">{text}</a>', game=card.game_id,
                    text=said.say(Msg("step through the game, entry by entry (needs JavaScript)")))] if viewer else []
    links.append(render('<a href="{game}.log.yaml">{text}</a>', game=card.game_id,
                        text=said.say(Msg("the public log (check it with 'pbem verify')"))))
    parts.append(render('<p class="links">{links}</p>\n', links=Markup("\n").join(links)))  # a line each
    return page(said.say(Msg("Rattus game {game}", game=card.game_id)), joined(parts), lang, made, home="../",
                wide=board is not None)


BOARD = """<div class="play">
<fieldset class="zoom"><legend class="small">{size}</legend>
<input type="radio" name="zoom" id="zoom-1" value="1" checked><label for="zoom-1">{fit}</label>
<input type="radio" name="zoom" id="zoom-2" value="2"><label for="zoom-2">{larger}</label>
</fieldset>
<div class="board" tabindex="0" role="region" aria-label="{label}">{standard}{compact}</div>
<div class="facts">{facts}</div>
<div class="panel">{panel}</div>
</div>
"""
"""A game's board on its page: the two sizes to choose from, the map's two drawings, the game's
facts (under the map), the panel (beside it on a wide screen, under the facts on a phone)."""


def board_block(board: tuple[str, str, str], facts: Markup, lang: str) -> Markup:
    """The board's three drawings (made by the escaping SVG builder: markup as they are) with the
    radio buttons that choose its size in its box, a phone's finger or the arrow keys moving it,
    and the game's ``facts``."""
    say = translator(lang).say
    standard, compact, panel = board
    return render(BOARD, size=say(Msg("the map's size")), fit=say(Msg("whole map")), larger=say(Msg("larger map")),
                  label=say(Msg("the board")), standard=Markup(standard), compact=Markup(compact), panel=Markup(panel),
                  facts=facts)
