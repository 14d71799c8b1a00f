"""Queries and shallow reads through firebase-admin (protocol.md §5.2, §11.4).

firebase-admin re-sorts results on the client, so each test checks which children the
server selected (the window), and their order as the client presents it.
"""

import pytest

SCORES = {
    "ann": {"score": 40, "team": "red", "info": {"age": 31}},
    "bob": {"score": 90, "team": "blue", "info": {"age": 25}},
    "cid": {"score": 15, "team": "red", "info": {"age": 40}},
    "dee": {"score": 90, "team": "green", "info": {"age": 22}},
    "eve": {"score": 70, "team": "blue"},
    "fay": {"team": "red"},
    "gus": {"score": "n/a", "team": "x"},
}
# Ordered by child "score": null < numbers (ties by key) < strings.
BY_SCORE = ["fay", "cid", "ann", "eve", "bob", "dee", "gus"]


@pytest.fixture
def scores(ref):
    location = ref("scores")
    location.set(SCORES)
    return location


def keys(result):
    assert result is not None, "the query returned nothing"
    return list(result.keys())


@pytest.mark.parametrize(
    "build, expected",
    [
        (lambda q: q, BY_SCORE),
        (lambda q: q.limit_to_first(3), ["fay", "cid", "ann"]),
        (lambda q: q.limit_to_last(3), ["bob", "dee", "gus"]),
        (lambda q: q.start_at(40), ["ann", "eve", "bob", "dee", "gus"]),
        (lambda q: q.end_at(40), ["fay", "cid", "ann"]),
        (lambda q: q.start_at(40).end_at(90), ["ann", "eve", "bob", "dee"]),
        (lambda q: q.start_at(40).end_at(90).limit_to_first(2), ["ann", "eve"]),
        (lambda q: q.start_at(40).end_at(90).limit_to_last(3), ["eve", "bob", "dee"]),
        (lambda q: q.equal_to(90), ["bob", "dee"]),
        (lambda q: q.equal_to(90).limit_to_first(1), ["bob"]),
        (lambda q: q.equal_to("n/a"), ["gus"]),
        (lambda q: q.equal_to(41), None),
        (lambda q: q.start_at("a"), ["gus"]),
    ],
    ids=[
        "all",
        "limit_to_first",
        "limit_to_last",
        "start_at",
        "end_at",
        "start_at+end_at",
        "range+limit_to_first",
        "range+limit_to_last",
        "equal_to",
        "equal_to+limit",
        "equal_to_string",
        "equal_to_nothing",
        "start_at_string",
    ],
)
def test_order_by_child(scores, build, expected):
    result = build(scores.order_by_child("score")).get()
    if expected is None:
        assert not result
    else:
        assert keys(result) == expected
        for key in expected:
            assert result[key] == SCORES[key]


def test_order_by_nested_child(scores):
    result = scores.order_by_child("info/age").start_at(25).limit_to_first(2).get()
    assert keys(result) == ["bob", "ann"]
    # Children without the child sort first (null).
    assert keys(scores.order_by_child("info/age").limit_to_first(3).get()) == ["eve", "fay", "gus"]


def test_order_by_child_string_values(scores):
    result = scores.order_by_child("team").equal_to("red").get()
    assert keys(result) == ["ann", "cid", "fay"]
    assert keys(scores.order_by_child("team").start_at("c").end_at("r").get()) == ["dee"]


@pytest.mark.parametrize(
    "build, expected",
    [
        (lambda q: q.limit_to_first(2), ["ann", "bob"]),
        (lambda q: q.limit_to_last(2), ["fay", "gus"]),
        (lambda q: q.start_at("b").end_at("d"), ["bob", "cid"]),
        (lambda q: q.start_at("c").limit_to_first(2), ["cid", "dee"]),
        (lambda q: q.end_at("c").limit_to_last(1), ["bob"]),
        (lambda q: q.equal_to("dee"), ["dee"]),
    ],
    ids=["limit_to_first", "limit_to_last", "range", "start_at+limit", "end_at+limit", "equal_to"],
)
def test_order_by_key(scores, build, expected):
    assert keys(build(scores.order_by_key()).get()) == expected


def test_order_by_key_puts_integer_keys_first_numerically(ref):
    location = ref("numbered")
    location.set({"1": "one", "2": "two", "10": "ten", "B": "bee", "a": "ay"})
    # Server order: 1, 2, 10 (integers, numerically), then "B" < "a" (code units).
    assert set(location.order_by_key().limit_to_first(3).get()) == {"1", "2", "10"}
    assert set(location.order_by_key().limit_to_last(2).get()) == {"B", "a"}
    assert set(location.order_by_key().start_at("2").limit_to_first(2).get()) == {"2", "10"}


LEAVES = {"a": 5, "b": 1, "c": "x", "d": True, "e": 3.5, "f": False, "g": 5}
# Ordered by value: false < true < numbers (ties by key) < strings.
BY_VALUE = ["f", "d", "b", "e", "a", "g", "c"]


@pytest.mark.parametrize(
    "build, expected",
    [
        (lambda q: q, BY_VALUE),
        (lambda q: q.limit_to_first(2), ["f", "d"]),
        (lambda q: q.limit_to_last(2), ["g", "c"]),
        (lambda q: q.start_at(2), ["e", "a", "g", "c"]),
        (lambda q: q.start_at(True).end_at(3.5), ["d", "b", "e"]),
        (lambda q: q.equal_to(5), ["a", "g"]),
        (lambda q: q.equal_to(False), ["f"]),
        (lambda q: q.end_at(1).limit_to_last(2), ["d", "b"]),
    ],
    ids=["all", "limit_to_first", "limit_to_last", "start_at", "bool_to_number", "equal_to", "equal_to_false", "end_at+limit"],
)
def test_order_by_value(ref, build, expected):
    location = ref("leaves")
    location.set(LEAVES)
    result = build(location.order_by_value()).get()
    assert keys(result) == expected
    assert all(result[key] == LEAVES[key] for key in expected)


def test_query_of_missing_location_is_empty(ref):
    assert not ref("absent").order_by_child("x").limit_to_first(2).get()
    assert not ref("absent").order_by_key().get()


def test_query_window_follows_writes(scores, other_ref):
    query = scores.order_by_child("score").limit_to_last(2)
    assert keys(query.get()) == ["dee", "gus"]
    other_ref("scores/gus").delete()
    assert keys(query.get()) == ["bob", "dee"]
    other_ref("scores/zed").set({"score": 1000})
    assert keys(query.get()) == ["dee", "zed"]


def test_shallow_get(ref):
    ref("tree").set({"a": {"deep": {"er": 1}}, "b": "leaf", "c": 3, "d": [1, 2]})
    assert ref("tree").get(shallow=True) == {"a": True, "b": True, "c": True, "d": True}
    assert ref("tree/b").get(shallow=True) == "leaf"
    assert ref("tree/c").get(shallow=True) == 3
    assert ref("tree/a").get(shallow=True) == {"deep": True}
    assert ref("tree/none").get(shallow=True) is None


def test_shallow_and_etag_together_are_refused_by_the_client(ref):
    with pytest.raises(ValueError):
        ref("tree").get(etag=True, shallow=True)
