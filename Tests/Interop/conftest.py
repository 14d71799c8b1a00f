"""Fixtures for the interop suite: a fresh `canopy serve` per session and firebase-admin apps
pointed at it in emulator mode.

The server binary is `.build/debug/canopy` in the repository, or the path in `CANOPY_BIN`.
Every test gets its own namespace (its own database), so tests never see each other's data.
"""

import itertools
import os
import pathlib
import re
import signal
import subprocess
import threading

import firebase_admin
import google.auth.credentials
import pytest
from firebase_admin import credentials, db

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
READY_LINE = re.compile(r"canopy serve: listening on (?P<scheme>https?)://(?P<host>[^\s:/]+):(?P<port>\d+)")
START_TIMEOUT = 30.0
STOP_TIMEOUT = 20.0

# How long a test waits for something the server must do (an SSE event, a thread to finish).
EVENT_TIMEOUT = 15.0
# firebase-admin's per-request timeout: a request the server never answers fails the test.
HTTP_TIMEOUT = 20


def app_options(database_url):
    return {"databaseURL": database_url, "httpTimeout": HTTP_TIMEOUT}


class OfflineCredential(credentials.Base):
    """A credential that needs no network and no key file.

    In emulator mode firebase-admin never asks the app's credential for a token (it sends
    `Authorization: Bearer owner`), so this only has to satisfy `initialize_app`.
    """

    def get_credential(self):
        return google.auth.credentials.AnonymousCredentials()


def canopy_binary():
    path = pathlib.Path(os.environ.get("CANOPY_BIN", REPOSITORY / ".build" / "debug" / "canopy"))
    if not path.is_file() or not os.access(path, os.X_OK):
        pytest.fail(f"canopy executable not found at {path} (build it or set CANOPY_BIN)", pytrace=False)
    return path


class CanopyProcess:
    """A running `canopy serve` on an ephemeral port, with its output captured."""

    def __init__(self, data_dir, extra_arguments=()):
        self.data_dir = pathlib.Path(data_dir)
        self.scheme = None
        self.host = None
        self.port = None
        self.lines = []
        self._ready = threading.Event()
        self.process = subprocess.Popen(
            [str(canopy_binary()), "serve", "--host", "127.0.0.1", "--port", "0", "--data", str(self.data_dir)]
            + list(extra_arguments),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        self._reader = threading.Thread(target=self._read_stdout, daemon=True)
        self._reader.start()
        if not self._ready.wait(START_TIMEOUT) or self.port is None:
            self.process.kill()
            self.process.wait()
            pytest.fail(
                f"canopy serve printed no ready line within {START_TIMEOUT:.0f} s "
                f"(exit {self.process.returncode}).\n{self.output()}",
                pytrace=False,
            )

    def _read_stdout(self):
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))
            match = READY_LINE.search(line)
            if match and not self._ready.is_set():
                self.scheme = match.group("scheme")
                self.host = match.group("host")
                self.port = int(match.group("port"))
                self._ready.set()
        # End of output: wake a waiter so a crash at start-up fails at once.
        self._ready.set()

    @property
    def address(self):
        return f"{self.host}:{self.port}"

    def url(self, namespace):
        return f"http://{self.address}?ns={namespace}"

    def output(self):
        return "output of canopy serve:\n" + "\n".join(self.lines)

    def stop(self):
        """Stops the server with SIGTERM; fails unless it exits with status 0 in time."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            pytest.fail(f"canopy serve did not exit within {STOP_TIMEOUT:.0f} s of SIGTERM.\n{self.output()}", pytrace=False)
        finally:
            self._reader.join(STOP_TIMEOUT)
        if code != 0:
            pytest.fail(f"canopy serve exited with status {code} after SIGTERM.\n{self.output()}", pytrace=False)


@pytest.fixture(scope="session")
def start_canopy(tmp_path_factory):
    """Starts `canopy serve` processes on demand; any still running are stopped at the end."""
    started = []

    def start(data_dir=None, *extra_arguments):
        server = CanopyProcess(data_dir or tmp_path_factory.mktemp("canopy-data"), extra_arguments)
        started.append(server)
        return server

    yield start
    for server in started:
        if server.process.returncode is None:
            server.stop()


@pytest.fixture(scope="session")
def canopy(start_canopy):
    """The session's shared server."""
    return start_canopy()


_app_numbers = itertools.count(1)


@pytest.fixture(scope="session")
def make_app(canopy):
    """Creates firebase-admin apps pointed at the shared server (emulator mode, `?ns=`)."""
    apps = []

    def make(namespace="interop"):
        app = firebase_admin.initialize_app(
            OfflineCredential(),
            app_options(canopy.url(namespace)),
            name=f"interop-{next(_app_numbers)}",
        )
        apps.append(app)
        return app

    yield make
    for app in apps:
        firebase_admin.delete_app(app)


@pytest.fixture(scope="session")
def admin_app(make_app):
    return make_app()


@pytest.fixture(scope="session")
def other_app(make_app):
    """A second, independent client (its own HTTP sessions): "another writer"."""
    return make_app()


_namespace_numbers = itertools.count(1)


@pytest.fixture
def namespace(request):
    """A namespace name no other test uses."""
    stem = re.sub(r"[^a-z0-9]+", "-", request.node.name.lower()).strip("-")[:40]
    return f"{stem}-{next(_namespace_numbers)}"


@pytest.fixture
def ref(canopy, admin_app, namespace):
    """`ref(path)`: a reference in this test's namespace, through the main app."""

    def make(path="/"):
        return db.reference(path, app=admin_app, url=canopy.url(namespace))

    return make


@pytest.fixture
def other_ref(canopy, other_app, namespace):
    """`other_ref(path)`: a reference in this test's namespace, through the second app."""

    def make(path="/"):
        return db.reference(path, app=other_app, url=canopy.url(namespace))

    return make
