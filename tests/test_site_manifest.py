"""`pbem site` never takes a path from its manifest: a game id is never a path (P2).

The site's folder is published by a web server, and whoever can write it can write its
manifest (``.pbem-site.json``).  A manifest that names ``../../outside/victim`` or an absolute
path as a game that has left the folder must not make the build remove that file: the manifest
is read as damaged, every game's pages are made again, and the host is told so.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from clitools import cli

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _site(tmp_path: Path) -> tuple[Path, Path]:
    games = tmp_path / "games"
    games.mkdir()
    shutil.copytree(EXAMPLES / "rattus-2p", games / "rattus-2p")
    out = tmp_path / "site"
    result = cli("site", "--site", out, "--games", games)
    assert result.exit_code == 0, result.output + result.stderr
    return games, out


def test_p2_a_manifest_naming_paths_outside_the_site_removes_nothing_there(tmp_path: Path) -> None:
    """The attacker writes the manifest: a game 'gone' from the folder under a relative and an
    absolute path.  The victims outside the site survive; the site is rebuilt whole."""
    games, out = _site(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    victims = [outside / "victim.html", outside / "victim.log.yaml", outside / "abs.html", outside / "abs-viewer.html"]
    for victim in victims:
        victim.write_text("the host's own file\n")
    manifest = out / ".pbem-site.json"
    raw = json.loads(manifest.read_text())
    raw["games"]["../../outside/victim"] = "0" * 64
    raw["games"][str(outside / "abs")] = "0" * 64
    manifest.write_text(json.dumps(raw))
    (out / "games" / "rattus-2p.html").write_text("stale")  # a page the damaged manifest must not keep
    result = cli("site", "--site", out, "--games", games)
    assert result.exit_code == 0, result.output + result.stderr
    for victim in victims:
        assert victim.read_text() == "the host's own file\n", victim
    assert "read as damaged" in result.stderr and "P2" in result.stderr, result.stderr
    assert "stale" not in (out / "games" / "rattus-2p.html").read_text()  # every page made again
    assert json.loads(manifest.read_text())["games"].keys() == {"rattus-2p"}  # the manifest mended
    again = cli("site", "--site", out, "--games", games)
    assert again.exit_code == 0 and "damaged" not in again.stderr


def test_p2_a_games_folder_linked_outside_the_site_is_refused(tmp_path: Path) -> None:
    """The site's 'games' made a link to a folder elsewhere: pbem refuses, writing nothing there."""
    games, out = _site(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.rmtree(out / "games")
    (out / "games").symlink_to(elsewhere)
    result = cli("site", "--site", out, "--games", games)
    assert result.exit_code != 0 and "not a folder of its own" in result.stderr, result.output + result.stderr
    assert not any(elsewhere.iterdir())
