"""firebase-admin against `canopy serve --tls-cert --tls-key` over https.

The Admin SDK's emulator mode speaks plain http only, so it is pointed at the server the way
it reaches a production database: an `https://` URL (the server picks its default namespace
for an IP address host). The self-signed certificate is trusted through `REQUESTS_CA_BUNDLE`,
which the SDK's `requests` sessions honour. (An untrusted certificate is not tested here: the
SDK retries TLS failures with exponential backoff for minutes; the Swift suites cover refusal.)
"""

import shutil
import subprocess

import firebase_admin
import pytest
from firebase_admin import db

from conftest import OfflineCredential, app_options
from test_admin_listen import Recorder, stop


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    """A fresh self-signed certificate for localhost and 127.0.0.1: (certificate, key) paths."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.fail("no `openssl` executable to make a certificate (scripts/setup.sh installs it)", pytrace=False)
    directory = tmp_path_factory.mktemp("tls")
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )
    return cert, key


@pytest.fixture(scope="module")
def secure_canopy(start_canopy, certificate):
    cert, key = certificate
    server = start_canopy(None, "--tls-cert", str(cert), "--tls-key", str(key))
    assert server.scheme == "https", server.output()
    return server


@pytest.fixture
def secure_app(secure_canopy, namespace):
    app = firebase_admin.initialize_app(
        OfflineCredential(), app_options(f"https://{secure_canopy.address}"), name=f"tls-{namespace}"
    )
    yield app
    firebase_admin.delete_app(app)


def test_get_set_and_listen_over_https(secure_app, certificate, monkeypatch, namespace):
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(certificate[0]))
    location = db.reference(f"{namespace}/greeting", app=secure_app)
    location.set({"text": "over https"})
    assert location.get() == {"text": "over https"}
    location.update({"n": 1})
    assert location.child("n").get() == 1
    key = db.reference(f"{namespace}/log", app=secure_app).push("entry").key
    assert db.reference(f"{namespace}/log", app=secure_app).get() == {key: "entry"}

    # Server-Sent Events over https: the current value, then a change.
    recorder = Recorder()
    registration = location.listen(recorder)
    try:
        recorder.wait_for_mirror({"text": "over https", "n": 1})
        location.child("text").set("changed")
        recorder.wait_for_mirror({"text": "changed", "n": 1})
    finally:
        stop(registration, location)

