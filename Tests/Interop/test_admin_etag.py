"""Conditional requests through firebase-admin: ETags, set_if_unchanged, get_if_changed and
transactions (protocol.md §11.6)."""

import threading

import pytest
from firebase_admin import db

from conftest import EVENT_TIMEOUT


def test_get_with_etag_of_empty_location_is_null_etag(ref):
    value, etag = ref("missing").get(etag=True)
    assert value is None
    assert etag == "null_etag"


def test_etag_follows_the_data(ref):
    location = ref("doc")
    location.set({"a": 1, "b": "two"})
    value, first = location.get(etag=True)
    assert value == {"a": 1, "b": "two"}
    assert isinstance(first, str) and first and first != "null_etag"

    location.set({"a": 1, "b": "two"})
    assert location.get(etag=True)[1] == first, "equal data must have an equal ETag"

    location.child("a").set(2)
    value, second = location.get(etag=True)
    assert value == {"a": 2, "b": "two"}
    assert second != first

    location.delete()
    assert location.get(etag=True) == (None, "null_etag")


def test_set_if_unchanged_create_only_if_absent(ref):
    location = ref("slot")
    success, value, etag = location.set_if_unchanged("null_etag", {"owner": "first"})
    assert success
    assert value == {"owner": "first"}
    assert etag == location.get(etag=True)[1]

    success, value, current = location.set_if_unchanged("null_etag", {"owner": "second"})
    assert not success
    assert value == {"owner": "first"}
    assert current == etag
    assert location.get() == {"owner": "first"}


def test_set_if_unchanged_with_stale_etag_returns_current_data(ref, other_ref):
    location = ref("profile")
    location.set({"name": "Ada", "visits": 1})
    _, etag = location.get(etag=True)

    other_ref("profile/visits").set(2)

    success, value, current = location.set_if_unchanged(etag, {"name": "Ada", "visits": 100})
    assert not success
    assert value == {"name": "Ada", "visits": 2}
    assert current != etag

    success, value, newest = location.set_if_unchanged(current, {"name": "Ada", "visits": 3})
    assert success
    assert value == {"name": "Ada", "visits": 3}
    assert location.get(etag=True) == ({"name": "Ada", "visits": 3}, newest)


def test_set_if_unchanged_on_a_leaf_and_array(ref):
    location = ref("leaf")
    location.set([1, 2, 3])
    value, etag = location.get(etag=True)
    assert value == [1, 2, 3]
    assert location.set_if_unchanged(etag, "text")[0]
    value, etag = location.get(etag=True)
    assert value == "text"
    success, value, _ = location.set_if_unchanged("not-an-etag", 5)
    assert not success
    assert value == "text"


def test_get_if_changed(ref, other_ref):
    location = ref("watched")
    location.set({"v": 1})
    _, etag = location.get(etag=True)
    assert location.get_if_changed(etag) == (False, None, None)

    other_ref("watched/v").set(2)
    changed, value, newer = location.get_if_changed(etag)
    assert changed
    assert value == {"v": 2}
    assert newer != etag
    assert location.get_if_changed(newer) == (False, None, None)


def test_transaction_on_missing_location_starts_from_none(ref):
    seen = []

    def create(current):
        seen.append(current)
        return {"count": 1} if current is None else current

    assert ref("tx/new").transaction(create) == {"count": 1}
    assert seen == [None]
    assert ref("tx/new").get() == {"count": 1}


def test_transaction_abort_by_exception_writes_nothing(ref):
    ref("tx/kept").set(5)

    class Abort(Exception):
        pass

    def refuse(current):
        raise Abort()

    with pytest.raises(Abort):
        ref("tx/kept").transaction(refuse)
    assert ref("tx/kept").get() == 5


def test_transaction_retries_on_concurrent_change(ref, other_ref):
    counter = ref("tx/retried")
    counter.set(10)
    calls = []

    def bump(current):
        calls.append(current)
        if len(calls) == 1:
            # Another client changes the value between our read and our conditional write.
            other_ref("tx/retried").set(20)
        return current + 1

    assert counter.transaction(bump) == 21
    assert calls == [10, 20]
    assert counter.get() == 21


THREADS = 10
INCREMENTS_PER_THREAD = 3
# firebase-admin gives up on a transaction after 25 refused conditional writes; under this
# much contention one thread can lose that often. An aborted transaction wrote nothing, so
# running it again is what an application does; a server that never lets it through still
# fails the test.
ATTEMPTS_PER_INCREMENT = 10


def test_contended_transactions_from_ten_threads_count_exactly(ref, other_ref):
    """10 threads (alternating between two independent clients) each increment one counter
    by transaction; every increment must land exactly once."""
    counters = [ref("tx/counter"), other_ref("tx/counter")]
    start = threading.Barrier(THREADS)
    errors = []
    results = []

    def increment(counter):
        for _ in range(ATTEMPTS_PER_INCREMENT):
            try:
                return counter.transaction(lambda current: (current or 0) + 1)
            except db.TransactionAbortedError:
                continue
        raise AssertionError(f"{ATTEMPTS_PER_INCREMENT} transactions in a row aborted")

    def work(index):
        counter = counters[index % 2]
        try:
            start.wait(EVENT_TIMEOUT)
            for _ in range(INCREMENTS_PER_THREAD):
                results.append(increment(counter))
        except Exception as error:  # reported below; a thread must not die silently
            errors.append(repr(error))

    threads = [threading.Thread(target=work, args=(index,)) for index in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(EVENT_TIMEOUT * 4)
    assert not any(thread.is_alive() for thread in threads), "transaction threads did not finish"
    assert errors == []
    total = THREADS * INCREMENTS_PER_THREAD
    assert ref("tx/counter").get() == total
    # Each committed transaction saw a distinct predecessor: the results are exactly 1…total.
    assert sorted(results) == list(range(1, total + 1))


def test_transaction_on_nested_object(ref):
    ref("tx/cart").set({"items": {"apple": 2}, "total": 2})

    def add_pear(current):
        current["items"]["pear"] = 3
        current["total"] += 3
        return current

    assert ref("tx/cart").transaction(add_pear) == {"items": {"apple": 2, "pear": 3}, "total": 5}
    assert ref("tx/cart").get() == {"items": {"apple": 2, "pear": 3}, "total": 5}
