"""What happened since a seat's last turn, for the mail (:mod:`pbem.views.sincelast`: the composer
page the mail carries tells the same lines)."""

from pbem.views.sincelast import news, since_last_turn

__all__ = ["news", "since_last_turn"]
