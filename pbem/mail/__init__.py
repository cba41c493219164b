"""The mail host: moves that arrive by e-mail, and every reply, through a Maildir.

:mod:`.headers` reads one message safely (limits before parsing);
:mod:`.message` finds the move in it (an attachment, the body or a quoted
reply); :mod:`.host` works a Maildir (isolation, quarantine), :mod:`.outbox`
keeps the durable queue, :mod:`.replies` composes every reply and
:mod:`.invite` the opening's invitations.
May import: :mod:`pbem.host.games`, :mod:`pbem.player`, :mod:`pbem.referee.admit`,
:mod:`pbem.views`, :mod:`pbem.log`, :mod:`pbem.fair`, :mod:`pbem.rules`, the
bottom layer, the standard library's ``email``, ``mailbox`` and ``smtplib``.
"""
