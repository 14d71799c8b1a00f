"""firebase-admin Reference reads and writes against `canopy serve` (REST, protocol.md §11)."""

import re
import time

import pytest
from firebase_admin import db, exceptions

PUSH_ID = re.compile(r"^[-0-9A-Z_a-z]{20}$")


@pytest.mark.parametrize(
    "value",
    [
        "hello",
        "",
        "\u00e9t\u00e9 \U0001f332 \"quoted\" \\ line\nbreak",
        0,
        -42,
        2**53 + 1,
        3.25,
        -0.5,
        True,
        False,
        {"a": 1, "b": {"c": "deep", "d": [1, 2, 3]}},
        [10, "twenty", {"thirty": 30}],
    ],
    ids=lambda v: type(v).__name__,
)
def test_set_then_get_round_trips(ref, value):
    location = ref("values/item")
    location.set(value)
    assert location.get() == value


def test_get_of_missing_location_is_none(ref):
    assert ref("nothing/here").get() is None
    assert ref().get() is None


def test_set_replaces_and_parents_see_children(ref):
    ref("users/ada").set({"name": "Ada", "born": 1815, "tags": {"math": True}})
    ref("users/ada").set({"name": "Ada Lovelace"})
    assert ref("users/ada").get() == {"name": "Ada Lovelace"}
    ref("users/alan/name").set("Alan")
    assert ref("users").get() == {"ada": {"name": "Ada Lovelace"}, "alan": {"name": "Alan"}}
    assert ref().get() == {"users": {"ada": {"name": "Ada Lovelace"}, "alan": {"name": "Alan"}}}
    assert ref("users/ada/name").get() == "Ada Lovelace"


def test_null_values_delete(ref):
    ref("a").set({"b": 1, "c": 2, "d": {"e": None}})
    assert ref("a").get() == {"b": 1, "c": 2}
    ref("a").update({"b": None})
    assert ref("a").get() == {"c": 2}
    with pytest.raises(ValueError):
        ref("a").set(None)  # firebase-admin refuses; delete() is the way


def test_update_is_a_multi_path_merge(ref):
    ref("room").set({"title": "old", "topic": "x", "members": {"ann": True, "bob": True}})
    ref("room").update({"title": "new", "members/cid": True, "members/bob": None, "meta/created": 7})
    assert ref("room").get() == {
        "title": "new",
        "topic": "x",
        "members": {"ann": True, "cid": True},
        "meta": {"created": 7},
    }


def test_update_at_root_and_of_missing_parent(ref):
    ref().update({"x/y/z": 1, "w": "v"})
    assert ref().get() == {"x": {"y": {"z": 1}}, "w": "v"}


def test_push_generates_ordered_ids_and_stores_values(ref):
    messages = ref("messages")
    keys = []
    for index in range(5):
        child = messages.push({"n": index})
        assert PUSH_ID.match(child.key), child.key
        keys.append(child.key)
    assert keys == sorted(keys)
    assert len(set(keys)) == 5
    stored = messages.get()
    assert set(stored) == set(keys)
    assert [stored[key]["n"] for key in keys] == list(range(5))


def test_push_without_value_stores_empty_string(ref):
    child = ref("list").push()
    assert child.get() == ""


def test_delete_removes_location_and_empty_parents(ref):
    ref("a/b/c").set("leaf")
    ref("a/d").set("keep")
    ref("a/b/c").delete()
    assert ref("a/b").get() is None
    assert ref("a").get() == {"d": "keep"}
    ref("a").delete()
    assert ref().get() is None


def test_delete_of_missing_location_succeeds(ref):
    ref("never/written").delete()
    assert ref("never").get() is None


def test_array_like_objects_read_as_lists(ref):
    ref("arr").update({"0": "a", "1": "b", "2": "c"})
    assert ref("arr").get() == ["a", "b", "c"]
    ref("arr/1").delete()
    assert ref("arr").get() == ["a", None, "c"]
    ref("sparse").update({"0": "a", "5": "f"})
    assert ref("sparse").get() == {"0": "a", "5": "f"}
    ref("leading").update({"00": "x", "1": "y"})
    assert ref("leading").get() == {"00": "x", "1": "y"}


def test_keys_are_exact_code_units(ref):
    composed, decomposed = "\u00e9", "e\u0301"
    ref("k").update({composed: 1, decomposed: 2})
    assert ref("k").get() == {composed: 1, decomposed: 2}
    assert ref("k").child(composed).get() == 1
    assert ref("k").child(decomposed).get() == 2


def test_priority_is_stored_but_stripped_on_plain_get(ref):
    ref("p").set({".value": "v", ".priority": 3})
    assert ref("p").get() == "v"


def test_server_timestamp_and_increment_resolve(ref):
    before = int(time.time() * 1000)
    ref("meta").set({"at": {".sv": "timestamp"}, "count": 5})
    ref("meta").update({"count": {".sv": {"increment": 2}}})
    after = int(time.time() * 1000)
    stored = ref("meta").get()
    assert stored["count"] == 7
    assert isinstance(stored["at"], int)
    assert before - 5000 <= stored["at"] <= after + 5000


def test_namespaces_are_isolated(make_app, ref, namespace):
    ref("shared").set("mine")
    other = db.reference("shared", app=make_app(namespace + "-other"))
    assert other.get() is None
    other.set("theirs")
    assert ref("shared").get() == "mine"


def test_invalid_key_is_refused_with_400(ref):
    with pytest.raises(exceptions.InvalidArgumentError) as refused:
        ref("bad").set({"a.b": 1})
    # firebase-admin shows the `error` field of the JSON error body (protocol.md §11.5).
    message = str(refused.value)
    assert message and '{"error"' not in message
    assert refused.value.http_response.status_code == 400
    assert refused.value.http_response.json()["error"] in message
    with pytest.raises(exceptions.InvalidArgumentError):
        ref("bad").update({"x": {"c$d": 1}})
    assert ref("bad").get() is None


def test_reference_navigation(ref):
    parent = ref("a/b")
    child = parent.child("c/d")
    assert child.path == "/a/b/c/d"
    assert child.key == "d"
    child.set(4)
    assert child.parent.parent.get() == {"c": {"d": 4}}
