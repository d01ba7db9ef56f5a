"""Dotted-key overrides (`--set`, `Scenario.set`): pure Python, no simulator needed."""

import math

import pytest

from ncmesh import ScenarioError
from ncmesh.overrides import parse_assignment, parse_value, set_path, split_key


@pytest.mark.parametrize("key, parts", [
    ("mac.queue_packets", ["mac", "queue_packets"]),
    ("flows.0.src", ["flows", 0, "src"]),
    ("flows[0].src", ["flows", 0, "src"]),
    ("loss[1].links[0]", ["loss", 1, "links", 0]),
    ("name", ["name"]),
])
def test_split_key(key, parts):
    assert split_key(key) == parts


@pytest.mark.parametrize("key", ["", ".", "a..b", "[0]", "0.x", "flows[x].src"])
def test_split_key_rejects_malformed(key):
    with pytest.raises(ScenarioError):
        split_key(key)


def test_set_path_creates_tables_and_indexes_lists():
    d = {"flows": [{"src": 0, "dst": 2}]}
    set_path(d, "mac.queue_packets", 20)
    set_path(d, "flows[0].dst", 1)
    set_path(d, "flows.1.src", 3)          # index == len appends a new table
    assert d == {"flows": [{"src": 0, "dst": 1}, {"src": 3}], "mac": {"queue_packets": 20}}


def test_set_path_errors_name_the_key():
    d = {"flows": [{"src": 0}], "name": "x"}
    with pytest.raises(ScenarioError) as e:
        set_path(d, "flows.5.src", 1)
    assert e.value.field == "flows[5]"
    with pytest.raises(ScenarioError) as e:
        set_path(d, "name.x", 1)
    assert e.value.field == "name"


@pytest.mark.parametrize("text, value", [
    ("3", 3), ("2.5", 2.5), ("true", True), ("false", False), ('"x y"', "x y"),
    ("range", "range"), ("802.11g", "802.11g"), ("[1, 2]", [1, 2]), ("1e3", 1000.0),
    ("{ a = 1 }", {"a": 1}),
])
def test_parse_value_reads_toml_values(text, value):
    assert parse_value(text) == value


def test_parse_value_nan():
    assert math.isnan(parse_value("nan"))


def test_parse_assignment():
    assert parse_assignment("tcp.sack=true") == ("tcp.sack", True)
    assert parse_assignment(" name = my run ") == ("name", "my run")
    with pytest.raises(ScenarioError):
        parse_assignment("tcp.sack")
