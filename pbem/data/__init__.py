"""The game data pbem ships (``map.yaml``, ``tokens.yaml``) and a custom game's own (PROTOCOL P3).

Loaders only: the types are :mod:`pbem.rules.data`'s.  Every game records the data it
was created with in entry 0, so a replay never reads these files.
May import: :mod:`pbem.rules`, :mod:`pbem.files`, :mod:`pbem.log.yamlio`, PyYAML.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from pbem.files import read_limited
from pbem.i18n import Msg
from pbem.log.yamlio import decode
from pbem.rules.data import Board, Catalogue, GameDataError

STANDARD_DATA_HASHES: frozenset[str] = frozenset({
    "e0f86fa0d1d799615f005d3242a854c84b646916a8fa9230c9d69b1bc23d2a42",  # pbem 0.1: pbem/data/
})
"""P3: ``data_hash`` of every map and catalogue pbem has shipped as its standard data.

A game whose entry 0 says ``edition: standard`` must hold data with one of these
hashes; a release that changes ``pbem/data/`` adds its hash here, so older
standard games still verify (tests/test_editions.py checks the current one).
"""

def read_data_dir(folder: Path) -> tuple[Board, Catalogue]:
    """``pbem new --data DIR``: a custom game's ``map.yaml`` and ``tokens.yaml`` (P3)."""
    loaded = []
    for name in ("map.yaml", "tokens.yaml"):
        path = folder / name
        text = decode(read_limited(path, 1 << 20, Msg("game data file")), str(path))
        try:  # the host's own files, in the package data's format (int keys in map.yaml)
            loaded.append(yaml.safe_load(text))
        except yaml.YAMLError as err:
            raise GameDataError(f"{path} is not valid YAML: {str(err).splitlines()[0]}") from None
    return Board.from_data(loaded[0]), Catalogue.from_data(loaded[1])


def _read_package_yaml(name: str) -> Any:
    text = resources.files("pbem.data").joinpath(name).read_text(encoding="utf-8")
    return yaml.safe_load(text)


@cache
def default_board() -> Board:
    """The map shipped with this version of pbem (``pbem/data/map.yaml``)."""
    return Board.from_data(_read_package_yaml("map.yaml"))


@cache
def default_catalogue() -> Catalogue:
    """The token catalogue shipped with this version of pbem (``pbem/data/tokens.yaml``)."""
    return Catalogue.from_data(_read_package_yaml("tokens.yaml"))
