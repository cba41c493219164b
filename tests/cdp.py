"""A headless Chromium driven over the Chrome DevTools protocol (tests/test_compose.py).

Debian's /usr/bin/chromium, started with ``--remote-debugging-port=0`` in a fresh profile;
the port is read from the profile's ``DevToolsActivePort`` file and one page is driven
over a websocket (the ``websockets`` package's synchronous client).  Every network
request the page makes is recorded from the protocol's ``Network.requestWillBeSent``
events (a ``file:`` load of the page itself is the only one allowed).
"""

from __future__ import annotations

import base64
import contextlib
import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--remote-debugging-port=0", "--remote-allow-origins=*"]


def browser_path() -> str:
    path = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    if path is None:
        pytest.skip("no browser: Debian's 'chromium' is not installed (.ci/run installs it with apt-get)")
    return path


class Browser:
    """One headless Chromium with one page, its network requests recorded."""

    def __init__(self, width: int = 390, height: int = 844) -> None:
        from websockets.sync.client import connect

        # A loaded machine can take Chromium long to start, and now and then a start dies
        # early: a second start, in a fresh profile, before the test is given up.
        for attempt in (1, 2):
            self.profile = tempfile.mkdtemp(prefix="pbem-cdp-")
            self.proc = subprocess.Popen([browser_path(), *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            port_file = Path(self.profile) / "DevToolsActivePort"
            deadline = time.monotonic() + 60
            while not (port_file.exists() and port_file.read_text().strip()):
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    break
                time.sleep(0.05)
            else:
                break
            code = self.proc.poll()
            self.close()
            if attempt == 2:
                why = f"exit code {code}" if code is not None else "in 60 s"
                raise RuntimeError(f"chromium did not open its DevTools port ({why}, twice)")
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list") as reply:
            pages = [t for t in json.load(reply) if t["type"] == "page"]
        self.stack = contextlib.ExitStack()
        self.ws = self.stack.enter_context(connect(pages[0]["webSocketDebuggerUrl"], max_size=None))
        self.next_id = 0
        self.requests: list[str] = []
        self.send("Network.enable")
        self.send("Page.enable")
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=True)

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        wanted = self.next_id
        self.ws.send(json.dumps({"id": wanted, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv(timeout=30))
            if message.get("method") == "Network.requestWillBeSent":
                self.requests.append(message["params"]["request"]["url"])
            if message.get("id") == wanted:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return dict(message.get("result", {}))

    def open(self, page: Path) -> None:
        # The page before is marked, so that the wait below cannot take the old document (also
        # complete, also a composer with a '#move') for the new one: Page.navigate returns before
        # the new document replaces it, and a click sent in between would be lost with it.
        self.eval("window.pbemOldDocument = true")
        self.send("Page.navigate", url=page.as_uri())
        deadline = time.monotonic() + 20
        ready = ("!window.pbemOldDocument && document.readyState === 'complete'"
                 f" && document.URL === {json.dumps(page.as_uri())} && !!document.getElementById('move')")
        while not self.eval(ready):
            if time.monotonic() > deadline:
                raise RuntimeError(f"{page} did not load")
            time.sleep(0.02)

    def eval(self, expression: str, wait: bool = False) -> Any:
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=wait)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def touch(self) -> None:
        """A phone's touch screen: taps (:meth:`tap`) are touches, and the page sees touch events."""
        self.send("Emulation.setTouchEmulationEnabled", enabled=True, maxTouchPoints=5)

    def tap(self, x: float, y: float) -> None:
        """A finger's tap at (x, y) in CSS pixels of the viewport (the browser makes the click)."""
        point = [{"x": x, "y": y, "radiusX": 4, "radiusY": 4, "force": 1, "id": 0}]
        self.send("Input.dispatchTouchEvent", type="touchStart", touchPoints=point)
        self.send("Input.dispatchTouchEvent", type="touchEnd", touchPoints=[])

    def screenshot(self, path: Path) -> None:
        data = self.send("Page.captureScreenshot", format="png", captureBeyondViewport=True)["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        try:
            if hasattr(self, "stack"):
                self.stack.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            shutil.rmtree(self.profile, ignore_errors=True)
