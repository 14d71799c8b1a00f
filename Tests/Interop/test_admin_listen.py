"""`Reference.listen()` (Server-Sent Events, protocol.md §11.7) seeing another writer's changes."""

import copy
import threading

import pytest

from conftest import EVENT_TIMEOUT


class Recorder:
    """Collects a listener's events and keeps a mirror of the listened location by applying
    them the way a client does (put replaces at a path, patch replaces each key under it)."""

    def __init__(self):
        self.events = []
        self.mirror = None
        self._changed = threading.Condition()

    def __call__(self, event):
        with self._changed:
            self.events.append((event.event_type, event.path, copy.deepcopy(event.data)))
            if event.event_type == "put":
                self.mirror = replaced(self.mirror, segments(event.path), event.data)
            elif event.event_type == "patch":
                for key, value in event.data.items():
                    self.mirror = replaced(self.mirror, segments(event.path) + segments(key), value)
            self._changed.notify_all()

    def wait_for_events(self, count):
        """The first `count` events, waiting for them to arrive."""
        with self._changed:
            if not self._changed.wait_for(lambda: len(self.events) >= count, EVENT_TIMEOUT):
                pytest.fail(f"expected {count} SSE events within {EVENT_TIMEOUT:.0f} s, got {self.events}")
            return list(self.events[:count])

    def wait_for_mirror(self, expected):
        with self._changed:
            if not self._changed.wait_for(lambda: self.mirror == expected, EVENT_TIMEOUT):
                pytest.fail(f"mirror never became {expected}; it is {self.mirror}; events {self.events}")


def segments(path):
    return [part for part in path.split("/") if part]


def replaced(tree, path, value):
    if not path:
        return copy.deepcopy(value)
    result = dict(tree) if isinstance(tree, dict) else {}
    child = replaced(result.get(path[0]), path[1:], value)
    if child is None or child == {}:
        result.pop(path[0], None)
    else:
        result[path[0]] = child
    return result or None


@pytest.fixture
def listen(request):
    """`listen(reference)`: starts a listener with a fresh Recorder; stopped after the test."""
    registrations = []

    def start(reference):
        recorder = Recorder()
        registrations.append((reference.listen(recorder), reference))
        return recorder

    yield start
    for registration, reference in registrations:
        stop(registration, reference)


def stop(registration, reference):
    """Closes a listener; fails if its thread does not end.

    `ListenerRegistration.close()` closes the response while the listener thread is blocked
    reading it, which does not wake the read; firebase-admin relies on the next event (a
    keep-alive every 30 s). A write at the location produces that event at once.
    """
    closer = threading.Thread(target=registration.close, daemon=True)
    closer.start()
    reference.child("listener-closed").set(True)
    closer.join(EVENT_TIMEOUT)
    assert not closer.is_alive(), "ListenerRegistration.close() did not return"


def test_first_event_is_a_put_of_the_current_value(ref, listen):
    ref("rooms").set({"r1": {"title": "hi"}})
    recorder = listen(ref("rooms"))
    assert recorder.wait_for_events(1) == [("put", "/", {"r1": {"title": "hi"}})]


def test_first_event_of_an_empty_location_is_a_put_of_none(ref, listen):
    recorder = listen(ref("nothing"))
    assert recorder.wait_for_events(1) == [("put", "/", None)]


def test_put_and_patch_events_for_another_writers_changes(ref, other_ref, listen):
    ref("rooms").set({"r1": {"title": "hi", "topic": "t"}})
    recorder = listen(ref("rooms"))
    recorder.wait_for_events(1)

    other_ref("rooms/r1/title").set("yo")
    assert recorder.wait_for_events(2)[1] == ("put", "/r1/title", "yo")

    other_ref("rooms/r1").update({"title": "again", "topic": None, "meta/by": "bob"})
    assert recorder.wait_for_events(3)[2] == ("patch", "/r1", {"title": "again", "topic": None, "meta/by": "bob"})

    other_ref("rooms/r2").push({"text": "new"})
    kind, path, data = recorder.wait_for_events(4)[3]
    assert (kind, data) == ("put", {"text": "new"})
    assert path.startswith("/r2/") and len(path) == len("/r2/") + 20

    other_ref("rooms/r1").delete()
    assert recorder.wait_for_events(5)[4] == ("put", "/r1", None)

    recorder.wait_for_mirror(other_ref("rooms").get())


def test_writes_above_and_beside_the_location(ref, other_ref, listen):
    ref().set({"rooms": {"a": 1}, "elsewhere": 0})
    recorder = listen(ref("rooms"))
    recorder.wait_for_events(1)

    # A write outside the location produces no event: the next event is the next write inside.
    other_ref("elsewhere").set(1)
    other_ref("rooms/b").set(2)
    assert recorder.wait_for_events(2)[1] == ("put", "/b", 2)

    # A set above the location: a put at "/" with the location's new value.
    other_ref().set({"rooms": {"c": 3}, "elsewhere": 2})
    assert recorder.wait_for_events(3)[2] == ("put", "/", {"c": 3})

    # A multi-path update at the root that reaches into the location.
    other_ref().update({"rooms/d": 4, "elsewhere": 3})
    recorder.wait_for_mirror({"c": 3, "d": 4})

    other_ref().delete()
    recorder.wait_for_mirror(None)
    assert recorder.events[-1] == ("put", "/", None)


def test_listener_on_a_leaf(ref, other_ref, listen):
    ref("counter").set(1)
    recorder = listen(ref("counter"))
    assert recorder.wait_for_events(1) == [("put", "/", 1)]
    other_ref("counter").transaction(lambda current: current + 1)
    assert recorder.wait_for_events(2)[1] == ("put", "/", 2)
    other_ref("counter").set({"now": "object"})
    assert recorder.wait_for_events(3)[2] == ("put", "/", {"now": "object"})


def test_two_listeners_see_the_same_changes(ref, other_ref, listen):
    first = listen(ref("shared"))
    second = listen(other_ref("shared"))
    first.wait_for_events(1)
    second.wait_for_events(1)
    for index in range(5):
        other_ref("shared").child(f"k{index}").set(index)
    expected = {f"k{index}": index for index in range(5)}
    first.wait_for_mirror(expected)
    second.wait_for_mirror(expected)
    assert first.events == second.events
