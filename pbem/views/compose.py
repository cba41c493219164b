"""`pbem html --compose SEAT`: a page that writes the seat's move.

One self-contained offline file, built from the seat's :class:`SeatView` alone (P10):
the board as everyone sees it, the seat's own Witch looks, and the seat's public state
(:func:`pbem.views.seatstate.seat_state`) for the rules module the page carries
(``pbem/views/rules.js``), which lists the legal next actions at every tap and draws the board
after each: every position gets a page, of about the same size.  The player taps a card, a
region, a rat, an ability; the page shows the move in the notation as it grows
(:mod:`pbem.log.notation`), and ends with Send (a ``mailto:`` link), Copy and Download.
pbem's Python rules judge the move it writes, as any other (tests/test_rulesjs.py holds the
page's rules to them).  In the opening (P4)
the page makes the secret number from secret words the player types and a code of 80
random bits it shows to be written down (:mod:`pbem.fair.words`; words easy to guess are
refused, :mod:`pbem.fair.strength`; docs/fairplay.md) and its commitment
with ``crypto.subtle.digest`` exactly as :func:`pbem.fair.protocol.nonce_commitment`; it
keeps no nonce in the browser (every local page shares that storage) and offers the
nonce move as a file.  Every composer page shows its :func:`fingerprint` (the claim;
``pbem fingerprint PAGE`` checks the file).  Where scripts do not run (a mail app's
preview) the page says to open it in a browser, and shows the template's text.

The page fetches nothing; it travels packed (:mod:`pbem.views.packed`: its body and script
gzipped inside it, about 20 KB, unpacked by a loader in its head), and its policy admits the
loader, its one script and its one style by their hashes; every word from the log reaches it
as JSON (:func:`pbem.views.html.script_data`) put in with ``textContent``.
"""

from __future__ import annotations

import hashlib
from typing import Any

from pbem import __version__
from pbem.fair import strength
from pbem.fair.protocol import TAG
from pbem.fair.words import CODE_LENGTH, MAX_WORDS_CHARS, MIN_WORDS, NUMBER_TAG, SCRYPT, WORDS_TAG
from pbem.i18n import Msg, Name, Names, translator
from pbem.log.game import Game, Opening
from pbem.log.moves import after_of
from pbem.referee.seatview import SeatView, face_text
from pbem.rules.data import CLASSES
from pbem.views.composejs import OPENING_SCRIPT, STYLE, TURN_SCRIPT
from pbem.views.composewords import card_texts, opening_words, region_names, turn_words
from pbem.views.drawing import seat_marks
from pbem.views.html import changed_between, script_data
from pbem.views.layout import places
from pbem.views.markup import Markup, lines, render
from pbem.views.narrate import status_line
from pbem.views.packed import head_block as packed_head
from pbem.views.packed import packed_page
from pbem.views.seatstate import seat_state
from pbem.views.sincelast import news, since_last_turn
from pbem.views.svg import map_svg, player_colours
from pbem.views.template import template
from pbem.views.text import result_lines


def composer_head() -> Markup:
    """Every composer page's head from the line ``<head>`` to the line ``</script>``: the policy,
    with the hashes of the loader, the two scripts a page may pack (a turn's, the opening's:
    :mod:`pbem.views.composejs`) and the one style, and the loader that unpacks the page
    (:mod:`pbem.views.packed`)."""
    return packed_head(TURN_SCRIPT, STYLE, OPENING_SCRIPT)


def fingerprint() -> str:
    """The composer page's fingerprint: the SHA-256 of :func:`composer_head`, the same in every
    page and language of this version.  ``pbem fingerprint`` prints it and checks a page file
    (:mod:`pbem.player.pagecheck`)."""
    return hashlib.sha256(composer_head().encode("utf-8")).hexdigest()


def script_words(lang: str, opening: bool = True) -> dict[str, Any]:
    """Every word the page's script shows, in ``lang``: the script itself knows no language.  A
    turn's page carries the turn's words (:mod:`pbem.views.composewords`), an opening's its own."""
    say = translator(lang).say
    if not opening:
        return {**turn_words(lang), "copied": say(Msg("copied"))}
    return {
        "copied": say(Msg("copied")),
        "make": say(Msg("make my secret number from these words")),
        "words": say(Msg.plural("your secret words: {n} word or more that nobody could guess, a sentence of your own",
                                "your secret words: {n} words or more that nobody could guess, a sentence of your "
                                "own", MIN_WORDS)),
        "few": say(Msg.plural("a secret number is made from {n} word or more that nobody could guess, a sentence "
                              "of your own (P4)", "a secret number is made from {n} words or more that nobody "
                              "could guess, a sentence of your own (P4)", MIN_WORDS)),
        "weak": say(strength.weak_words("{bits}")),
        "control": say(Msg("your words hold a control character: type them as plain text (P4)")),
        "working": say(Msg("making your secret number: a second or two...")),
        "number": say(Msg("your secret number:")),
        "use": say(Msg("use these words")),
        "placeholder": say(Msg("your secret words from round 1 (or your secret number, 64 hex digits)")),
        "code": say(Msg("the code you wrote down in round 1 (like K7QM-3XZP-9D2F-HT6A)")),
        "badCode": say(Msg("a code is {count} letters and digits, as it was shown when the secret number was made "
                           "(like K7QM-3XZP-9D2F-HT6A); this is not one (P4)", count=CODE_LENGTH)),
        "needCode": say(Msg("type the code you wrote down with your secret words in round 1 too")),
        "file": say(Msg("or load the file you saved: ")),
        "mismatch": say(Msg("these secret words and code (or this number) do not give the fingerprint you sent in "
                            "round 1: check them (the same letters, one space between words; the code as written)")),
        "changed": say(Msg("the number an earlier page kept in this browser does not give the fingerprint you sent "
                           "(another page changed it): type your words, or load the file you saved")),
        "hex": say(Msg("a secret number is 64 hex digits")),
    }


def changed_regions(game: Game) -> list[str]:
    """The regions whose cubes or rats the last entry changed (the page marks them)."""
    if game.state is None or game.last_seq < 1:
        return []
    from pbem.views.timeline import game_at  # start-up: only a page being made replays the log

    return changed_between(game_at(list(game.entries[:-1]), list(game.hashes[:-1]), game.last_seq - 1).state,
                           game.state)


def marked_map(game: Game, lang: str = "en") -> str:
    """The map's drawing with the regions the last entry changed marked: the composer page's, and
    the report picture's (the marks are the page's only: a picture looks the same without them)."""
    return map_svg(game, lang=lang, changed=changed_regions(game))


def _opening_data(view: SeatView) -> dict[str, Any] | None:
    game = view.game
    opening = game.opening
    if opening not in (Opening.COMMIT, Opening.REVEAL) or view.seat not in game.awaited:
        return None
    return {"opening": "commit" if opening is Opening.COMMIT else "nonce",
            "committed": game.p4.commits.get(view.seat), "after": after_of(game, opening=True),
            "entry0": game.hashes[0], "prefix": f"{TAG}/nonce", "wordsTag": WORDS_TAG, "minWords": MIN_WORDS,
            "maxChars": MAX_WORDS_CHARS,
            "numberTag": NUMBER_TAG, "scrypt": SCRYPT, "strongBits": strength.STRONG_BITS,
            "unknownBits": strength.UNKNOWN_BITS, "phrases": list(strength.phrases()),
            "sequences": list(strength.sequences()),
            "common": " ".join(strength.common_words()) if opening is Opening.COMMIT else ""}  # a word holds no space


def page_data(view: SeatView, to: str | None = None, lang: str = "en") -> dict[str, Any]:
    """What the page's script reads: the header, the seat's public state or the opening, the
    names and colours it draws with, the seat's own looks in words."""
    game = view.game
    say = translator(lang).say
    waiting = Msg("nothing for {seat} to send now: {status}", seat=view.seat, status=status_line(game, lang=lang))
    data: dict[str, Any] = {"game": game.game_id, "seat": view.seat, "to": to or "",
                            "after": after_of(game), "state": None, "opening": None,
                            "waiting": say(waiting)}
    opening = _opening_data(view)
    data["words"] = script_words(lang, opening is not None)
    if opening is not None:
        data.update(opening)
    elif game.state is not None:
        data.update(drawing_data(view, lang))
        data["mine"] = view.my_turn and game.state.to_move == view.seat
        if data["mine"]:
            del data["waiting"]
    data["map"] = map_data(game, lang, changed_regions(game))
    return data


def map_data(game: Game, lang: str, changed: list[str]) -> dict[str, Any]:
    """The map the page's script draws (as :func:`pbem.views.svg.map_svg` does, the same
    ``data-`` attributes): each region's id, name in ``lang``, shade, centre and whether it is
    in use, the links, and the regions the last entry changed.  Drawn by the script, the map
    costs the page a tenth of its drawing (the page travels in every "your move" mail)."""
    board = game.board
    in_use = set(game.state.regions if game.state is not None else board.regions_in_use(len(game.players)))
    at = places(tuple(r.id for r in board.regions))
    names = region_names(game, lang)
    fills = {"": 0, "light": 1, "middle": 2, "dark": 3}
    return {"regions": [[r.id, "" if names[r.id] == r.id.capitalize() else names[r.id],
                         fills.get(r.shade, 4) if r.id in in_use else 0, *at[r.id], int(r.id in in_use),
                         int(r.id in changed)] for r in board.regions],
            "links": [] if game.state is not None else [list(link) for link in board.links]}  # else the state's


def drawing_data(view: SeatView, lang: str = "en") -> dict[str, Any]:
    """The seat's public state for the page's rules (:func:`seat_state`), with what the page draws
    it with: the map's names and the cards' in ``lang``, each card's ability and risk, the players'
    colours, and the seat's own looks (R5.6) in words, for its eyes only."""
    game, state = view.game, view.game.state
    assert state is not None
    said = translator(lang)
    colours, pool = player_colours(game.players), hidden_pool(view)
    return {"state": seat_state(state, game.board.links),
            "names": {"cards": {c: said.name(Name.card(c)) for c in state.cards}},
            "cardText": card_texts(list(state.cards), pool["pool"], lang),
            "colours": colours, "ink": {p: "#fff" for p, c in colours.items() if _dark(c)},
            "marks": seat_marks(game.players),  # each seat's letter on its cubes, beside the colour
            "looks": {token: _face(view, token_id, lang) for token, token_id in view.private.items()}, **pool}


def _dark(colour: str) -> bool:
    """A colour white text reads on (:func:`pbem.views.svg.player_colours`' ``#rrggbb``)."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.299 * r + 0.587 * g + 0.114 * b <= 150


def hidden_pool(view: SeatView) -> dict[str, Any]:
    """What the page weighs an outbreak with (R4.3), as the bots' knowledge does: the faces still
    hidden from this seat, as a pool (the catalogue minus every face flipped in public and every
    face its Witch saw: never a hidden face, P10), ``[threshold, symbols, how many]``; and the
    faces of the rats it looked at, by token.  A face's symbols are one letter each: ``M``, ``A``,
    or a class card's place among the classes (R1.5), ``0`` the Peasant to ``5`` the King."""
    revealed, looks = view.faces()
    pool = list(view.game.catalogue.tokens)
    for face in [*revealed.values(), *(f for t, f in looks.items() if t not in revealed)]:
        pool.remove(face)
    counted: dict[tuple[int, str], int] = {}
    for face in pool:
        key = (face.threshold, _symbols(face.symbols))
        counted[key] = counted.get(key, 0) + 1
    return {"pool": [[t, s, n] for (t, s), n in sorted(counted.items())],
            "seen": {t: [f.threshold, _symbols(f.symbols)] for t, f in looks.items() if t not in revealed}}


def _symbols(symbols: tuple[str, ...]) -> str:
    return "".join(str(CLASSES.index(s)) if s in CLASSES else s for s in symbols)


def _cards_text(cards: list[str], lang: str) -> str:
    """Class cards by id (``monk, witch``, as the English page has always shown them), or by
    their names in ``lang``."""
    return ", ".join(cards) if lang == "en" else translator(lang).say(Names(Name.card(c) for c in cards))


def _info_lines(view: SeatView, lang: str = "en") -> list[str]:
    """The side panel in words: cards, palace, supplies, and the seat's own looks."""
    say = translator(lang).say
    state = view.game.state
    lines = [say(Msg("now: {status}", status=status_line(view.game, lang=lang)))]
    if state is not None:
        held = {p: [c for c, h in state.cards.items() if h == p] for p in state.players}
        for p in state.players:
            line = (Msg("{player}: cards {cards}; palace {palace}; supply {supply}", player=p,
                        cards=_cards_text(held[p], lang), palace=state.palace[p], supply=state.supply[p])
                    if held[p] else
                    Msg("{player}: cards none; palace {palace}; supply {supply}", player=p,
                        palace=state.palace[p], supply=state.supply[p]))
            lines.append(say(line))
        free = [c for c, h in state.cards.items() if h is None]
        if free:
            lines.append(say(Msg("cards not held: {cards}", cards=_cards_text(free, lang))))
    return lines


NEWS_LINES = 16
"""The most lines the page tells of what happened since the seat's last turn (its mail may tell fewer)."""


def _news(view: SeatView, lang: str, opening: bool) -> list[str]:
    """What happened since the seat's last turn, as its "your move" mail tells it
    (:func:`pbem.views.sincelast.news`); nothing in the opening, or when nothing happened."""
    if opening or view.game.state is None or not since_last_turn(view.game, view.seat):
        return []
    return news(view.game, [], view.seat, lang, NEWS_LINES)


def _face(view: SeatView, token_id: str, lang: str) -> str:
    """A face this seat has seen, in words (R1.4): ``threshold 3: majority, merchant, monk``."""
    if lang == "en":
        return face_text(view.game, token_id)
    said = translator(lang)
    token = view.game.catalogue.by_id(token_id)
    symbols = {"M": said.say(Msg("majority")), "A": said.say(Msg("all"))}
    words = ", ".join(symbols[s] if s in symbols else said.name(Name.card(s)) for s in token.symbols)
    return said.say(Msg("threshold {threshold}: {symbols}", threshold=token.threshold, symbols=words))


def _looks(view: SeatView, lang: str = "en") -> list[str]:
    """R5.6: what this seat's Witch saw, for this seat's eyes only (still face down)."""
    say = translator(lang).say
    return [say(Msg("{token} (you looked): {face}", token=token, face=_face(view, token_id, lang)))
            for token, token_id in view.private.items()]


def _page_words(lang: str, marks: str) -> dict[str, str]:
    """The page's fixed sentences in ``lang``, with the names of the regions the last entry changed
    (text: :func:`pbem.views.markup.render` escapes them)."""
    say = translator(lang).say
    return {key: say(msg) for key, msg in (
        ("changed", Msg("dashed: the regions the last entry changed ({marks}); yellow: what your move changes;\n"
                        "green: where you can tap now", marks=marks)),
        ("noscript", Msg("This page needs its script to draw the board and write your move: open the file in a "
                         "browser (Firefox, Chrome, Safari). Or write the move from the template below, and send "
                         "it as your reply.")),
        ("undo", Msg("undo")), ("send", Msg("Send")), ("copy", Msg("Copy")), ("download", Msg("Download")),
        ("how", Msg("Send opens your mail program with the move; or Copy it into a reply, or Download it\n"
                    "and attach the .txt file.")),
        ("keep", Msg("Round 2 needs your secret words and code again (or this file), or the game cannot start\n"
                     "(P4). This browser keeps none of them: every page on this computer could read it. Show\n"
                     "them to nobody.")),
        ("words", Msg("Your secret words, as they count: write them down. After the game they and the code\n"
                      "prove this secret number was yours: 'pbem verify LOG --words SEAT'.")),
        ("code_note", Msg("Your code, made by this page at random: write it down with your words. Nobody can\n"
                          "guess your secret number without it, whatever your words.")),
        ("nonce_file", Msg("Download your secret number (a file)")),
        ("print", Msg("This page: pbem {version}, fingerprint {print}. The page itself shows this; to trust\n"
                      "it, check the file: 'pbem fingerprint FILE' (docs/fairplay.md).", version=__version__,
                      print=fingerprint())))}


def compose_page(view: SeatView, to: str | None = None, lang: str = "en") -> str:
    """The composer page for ``view``'s seat (``to``: the host's address for Send), in ``lang``:
    :data:`PAGE` with its slots filled, the opening's parts (:data:`OPENING`, :data:`KEEP`) or a
    turn's (:data:`TURN_NOTE`, :data:`UNDO`), each rendered apart (:func:`pbem.views.markup.render`)."""
    say = translator(lang).say
    game = view.game
    data = page_data(view, to, lang)
    changed = [r[0] for r in data["map"]["regions"] if r[6]]
    info = _info_lines(view, lang)  # the drawn state's scores and cards say the rest; a turn's prompts its status
    info = info if data.get("state") is None else [] if data.get("mine") else info[:1]
    opening = data["opening"] is not None  # the nonce's sentences and fields are the opening's (P4)
    words = {"info": info, "looks": _looks(view, lang), "news": _news(view, lang, opening),
             "result": [say(line) for line in result_lines(game.state, lang=lang)]}
    title = say(Msg("Rattus {game}: {seat}'s move", game=game.game_id, seat=view.seat))
    text = _page_words(lang, say(Names.regions(changed)) if changed else say(Msg("none")))
    if opening:  # what the two rounds protect, what to do, and what to keep; no map's legend, no undo
        why, what = opening_words(game.opening, lang)
        parts = {"opening_part": render(OPENING, why=why, what=what), "keep_part": render(KEEP, **text),
                 "legend": Markup(""), "undo_part": Markup("")}
    else:
        parts = {"opening_part": Markup(""), "keep_part": Markup(""), "legend": render(TURN_NOTE, **text),
                 "undo_part": render(UNDO, **text)}
    body = render(PAGE, title=title, result=lines(words["result"]), news=lines(words["news"]),
                  info=lines(words["info"]), looks=lines(words["looks"]), blob=Markup(script_data(data)),
                  pbem=f"{__version__} {fingerprint()}", **text, **parts)
    plain = render(PLAIN, noscript=text["noscript"], orders=template(view, lang))
    return packed_page(title, lang, STYLE, plain, body, OPENING_SCRIPT if opening else TURN_SCRIPT, composer_head())


PLAIN = """<noscript><div class="noscript"><p>{noscript}</p><pre>{orders}</pre></div></noscript>"""
"""What the page shows where its script does not run: what to do, and the template's text."""


PAGE = """<main id="view" data-complete="false">
<h1>{title}</h1>
<div id="page">
<div id="left">
{opening_part}<div id="top">
<div id="board"></div>
<div id="scores"></div>
<p id="step" aria-live="polite"></p>
<div id="choices"></div>
</div>
<div id="cards"></div>
<pre id="card-info" class="note" aria-live="polite"></pre>
<pre class="note" id="news">{news}</pre>
{legend}<pre id="result">{result}</pre>
<pre class="note" id="info">{info}</pre>
<pre class="note" id="looks">{looks}</pre>
</div>
<div id="right">
<pre id="move"></pre>
<p id="status" class="note"></p>
<div id="bar" hidden>{undo_part}<a id="send" class="button off" href="#" aria-disabled="true" tabindex="-1">{send}</a>
<button id="copy" disabled>{copy}</button>
<a id="download" class="button off" href="#" aria-disabled="true" tabindex="-1">{download}</a>
<span id="copied" class="note"></span></div>
<p class="note">{how}</p>
{keep_part}</div>
</div>
<p class="note" id="fingerprint" data-pbem="{pbem}">{print}</p>
</main>
<script type="application/json" id="pbem-data">{blob}</script>
"""
"""The composer page's body, packed (:mod:`pbem.views.packed`): :func:`pbem.views.markup.render`
escapes every value but the data's JSON (the map is drawn by the page's script)."""

OPENING = """<div id="opening"><p class="note">{why}</p><p id="opening-do">{what}</p></div>
"""
"""The opening's prompt (P4): what its two rounds protect, in one sentence, and what to do now."""

TURN_NOTE = """<p class="note">{changed}</p>
"""
"""A turn's legend of the map's marks (the opening's map has none of them)."""

UNDO = """<button id="undo" disabled>{undo}</button>
"""
"""A turn's undo, off until there is a tap to undo (the opening has none to undo)."""


KEEP = """<div id="keep" hidden><pre id="nonce"></pre>
<div id="words-note" hidden><p class="note">{words}</p><pre id="words-kept"></pre></div>
<div id="code-note" hidden><p class="note">{code_note}</p><pre id="code-kept"></pre></div>
<p class="note">{keep}</p>
<a id="nonce-file" class="button off" href="#" aria-disabled="true" tabindex="-1">{nonce_file}</a></div>
"""
"""The opening's part of the page (P4): the secret number, and the words and code that made it,
kept by the player."""
