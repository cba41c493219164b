"""The mail host: moves that arrive by e-mail, and every reply, through a Maildir.

:mod:`.message` reads one message safely (limits before parsing, the move in
an attachment, the body or a quoted reply); :mod:`.host` works a Maildir
(isolation, quarantine, the durable outbox, invitations).
May import: :mod:`pbem.host.games`, :mod:`pbem.player`, :mod:`pbem.referee.admit`,
:mod:`pbem.views`, :mod:`pbem.log`, :mod:`pbem.fair`, :mod:`pbem.rules`, the
bottom layer, the standard library's ``email``, ``mailbox`` and ``smtplib``.
"""
