"""`canopy serve` as firebase-admin finds it: emulator selection by environment variable, and
data that outlives a restart."""

import firebase_admin
import pytest
from firebase_admin import db

from conftest import OfflineCredential, app_options


def test_emulator_host_environment_variable(canopy, admin_app, monkeypatch, namespace):
    """`FIREBASE_DATABASE_EMULATOR_HOST` + an https URL: namespace from the host's first label."""
    monkeypatch.setenv("FIREBASE_DATABASE_EMULATOR_HOST", canopy.address)
    app = firebase_admin.initialize_app(
        OfflineCredential(), app_options(f"https://{namespace}.firebaseio.com"), name=f"env-{namespace}"
    )
    try:
        db.reference("greeting", app=app).set({"text": "hello"})
        assert db.reference("greeting", app=app).get() == {"text": "hello"}
        assert db.reference("greeting", app=admin_app, url=canopy.url(namespace)).get() == {"text": "hello"}
    finally:
        firebase_admin.delete_app(app)


@pytest.mark.parametrize("backend", ["sqlite", "json"])
def test_data_survives_a_restart(start_canopy, tmp_path, namespace, backend):
    data = tmp_path / "data"
    first = start_canopy(data, "--backend", backend)
    app = firebase_admin.initialize_app(OfflineCredential(), app_options(first.url(namespace)), name=f"a-{namespace}")
    try:
        db.reference("kept", app=app).set({"n": 1, "list": ["x", "y"]})
        db.reference("kept", app=app).update({"m": 2})
        db.reference("kept/n", app=app).transaction(lambda current: current + 10)
        pushed = db.reference("log", app=app).push("entry").key
    finally:
        firebase_admin.delete_app(app)
    first.stop()

    second = start_canopy(data, "--backend", backend)
    app = firebase_admin.initialize_app(OfflineCredential(), app_options(second.url(namespace)), name=f"b-{namespace}")
    try:
        assert db.reference("kept", app=app).get() == {"n": 11, "list": ["x", "y"], "m": 2}
        assert db.reference("log", app=app).get() == {pushed: "entry"}
    finally:
        firebase_admin.delete_app(app)
    second.stop()


def test_auth_variable_override_is_accepted(canopy, namespace):
    """`databaseAuthVariableOverride` adds `auth_variable_override=<JSON>` to every request."""
    names = []
    try:
        for index, override in enumerate([{"uid": "user-1", "role": "tester"}, None]):
            options = app_options(canopy.url(namespace))
            options["databaseAuthVariableOverride"] = override
            app = firebase_admin.initialize_app(OfflineCredential(), options, name=f"override-{index}-{namespace}")
            names.append(app)
            location = db.reference(f"as/{index}", app=app)
            location.set({"by": index})
            assert location.get() == {"by": index}
            assert location.transaction(lambda current: {"by": current["by"] + 10}) == {"by": index + 10}
    finally:
        for app in names:
            firebase_admin.delete_app(app)
