"""A real IMAP server for the tests: Debian's dovecot (``dovecot-imapd``), on 127.0.0.1.

:func:`dovecot_server` starts one instance of its own: a temporary configuration (nothing
of /etc/dovecot is read), a random free port, STARTTLS with a self-signed certificate
made for the run (the client trusts it through ``PBEM_IMAP_CAFILE``), a passwd-file with
one user, and that user's mail as a Maildir in the temporary folder; it is stopped when
the block ends.  Tests skip, saying why, when /usr/sbin/dovecot is not installed.
"""

from __future__ import annotations

import datetime
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

DOVECOT = Path("/usr/sbin/dovecot")
USER, PASSWORD = "rattus", "s3cret-for-tests"


def need_dovecot() -> None:
    if not DOVECOT.exists():
        pytest.skip("the IMAP tests need a real dovecot: /usr/sbin/dovecot is missing "
                    "(apt-get install dovecot-imapd; .ci/run installs it)")


@dataclass
class Dovecot:
    host: str
    port: int
    user: str
    password: str
    cafile: Path
    maildir: Path  # the user's INBOX on disk
    root: Path

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def folder(self, name: str) -> Path:
        """A Maildir++ folder of the user's mailbox, on disk."""
        return self.maildir / f".{name}"

    def env(self) -> dict[str, str]:
        return {"PBEM_IMAP_USER": self.user, "PBEM_IMAP_PASSWORD": self.password,
                "PBEM_IMAP_CAFILE": str(self.cafile)}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (the `cryptography` pbem already needs)."""
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    key_path.chmod(0o600)
    return cert_path, key_path


def _owner() -> tuple[str, int, int]:
    """The system user dovecot runs as and keeps mail for: ourselves, or (as root, whom
    dovecot will not serve mail for) the unprivileged 'dovecot' or 'nobody' user."""
    if os.getuid() != 0:
        me = pwd.getpwuid(os.getuid())
        return me.pw_name, me.pw_uid, me.pw_gid
    for name in ("dovecot", "nobody"):
        try:
            found = pwd.getpwnam(name)
        except KeyError:
            continue
        return found.pw_name, found.pw_uid, found.pw_gid
    pytest.skip("no unprivileged user to run the test dovecot as")


def _config(root: Path, port: int, owner: tuple[str, int, int], cert: Path, key: Path) -> str:
    name, uid, gid = owner
    return f"""
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
info_log_path = {root}/dovecot.log
protocols = imap
listen = 127.0.0.1
default_internal_user = {name}
default_login_user = {name}
first_valid_uid = {uid}
last_valid_uid = {uid}
first_valid_gid = 0
ssl = required
ssl_cert = <{cert}
ssl_key = <{key}
disable_plaintext_auth = yes
auth_mechanisms = plain
auth_failure_delay = 0
mail_location = maildir:{root}/mail/%u
passdb {{
  driver = passwd-file
  args = scheme=PLAIN {root}/passwd
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={root}/home/%u
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service anvil {{
  chroot =
  # no auth penalty (up to 15 s a login after failures from 127.0.0.1): the tests log in
  # with a wrong password on purpose, and a loaded machine then timed the next login out
  unix_listener anvil-auth-penalty {{
    mode = 0
  }}
}}
service imap-login {{
  chroot =
}}
protocol imap {{
  mail_max_userip_connections = 50
}}
"""


@contextmanager
def dovecot_server() -> Iterator[Dovecot]:
    """A dovecot of the test's own on 127.0.0.1 (see the module); stopped and removed when
    the block ends.  Its folder is a fresh one under the system's temporary folder, mode
    0711: dovecot's unprivileged processes must reach their sockets in it (pytest's own
    temporary folders are the user's alone)."""
    need_dovecot()
    root = Path(tempfile.mkdtemp(prefix="pbem-dovecot-"))
    root.chmod(0o711)
    try:
        with _running(root) as server:
            yield server
    finally:
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def _running(root: Path) -> Iterator[Dovecot]:
    owner = _owner()
    cert, key = _certificate(root)
    port = _free_port()
    for sub in ("run", "state", f"mail/{USER}", f"home/{USER}"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    (root / "passwd").write_text(f"{USER}:{{PLAIN}}{PASSWORD}\n")
    conf = root / "dovecot.conf"
    conf.write_text(_config(root, port, owner, cert, key))
    if os.getuid() == 0:
        for path in (root / "mail", root / "home", root / "state"):
            for inside in [path, *path.rglob("*")]:
                os.chown(inside, owner[1], owner[2])
    _start(root, conf)
    try:
        _wait_for(port, root)
        yield Dovecot("127.0.0.1", port, USER, PASSWORD, cert, root / "mail" / USER, root)
    finally:
        _stop(root, conf)


def _start(root: Path, conf: Path) -> None:
    """The master forks into the background; its output goes to a file (a pipe would be
    held open by its children, and a run that waits for the pipe's end never returns)."""
    with (root / "start.out").open("wb") as out:
        done = subprocess.run([str(DOVECOT), "-c", str(conf)], stdin=subprocess.DEVNULL, stdout=out,
                              stderr=out, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"dovecot did not start: {(root / 'start.out').read_text(errors='replace')}"
                           f"{_log(root)}")


def _log(root: Path) -> str:
    log = root / "dovecot.log"
    return log.read_text(errors="replace")[-3000:] if log.exists() else ""


def _wait_for(port: int, root: Path) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
                if conn.recv(100).startswith(b"* OK"):
                    return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"dovecot did not answer on port {port}: {_log(root)}")


def _stop(root: Path, conf: Path) -> None:
    pid_file = root / "run" / "master.pid"
    subprocess.run([str(DOVECOT), "-c", str(conf), "stop"], stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    deadline = time.monotonic() + 10
    while pid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    if pid_file.exists():  # pragma: no cover - a dovecot that will not stop
        try:
            os.kill(int(pid_file.read_text().strip()), signal.SIGKILL)
        except (OSError, ValueError):
            pass
    shutil.rmtree(root / "run", ignore_errors=True)


@contextmanager
def stopped(server: Dovecot) -> Iterator[None]:
    """The server down for the block (its port closed), then up again on the same port."""
    conf = server.root / "dovecot.conf"
    _stop(server.root, conf)
    try:
        yield
    finally:
        (server.root / "run").mkdir(exist_ok=True)
        _start(server.root, conf)
        _wait_for(server.port, server.root)
