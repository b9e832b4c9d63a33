"""`cpu_threads`: pinned by default, `auto` follows the cores the job was given."""

import os

import pytest

from benchmark.config.checks import value_problems
from benchmark.config.compose import compose_config
from benchmark.config.threads import given_cores, resolve_threads


def test_default_config_pins_one_thread():
    assert compose_config([]).cpu_threads == 1


def test_auto_follows_the_process_affinity(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 3, 5})
    assert given_cores() == 3
    assert resolve_threads("auto") == 3


@pytest.mark.parametrize("setting, expected", [(None, None), (1, 1), (4, 4)])
def test_explicit_counts_and_null(setting, expected):
    assert resolve_threads(setting) == expected


@pytest.mark.parametrize("setting", [0, -2, "many", True, 1.5])
def test_bad_settings_are_refused(setting):
    with pytest.raises(ValueError, match="cpu_threads"):
        resolve_threads(setting)


def test_config_check_accepts_auto_and_still_refuses_zero():
    assert value_problems(compose_config(["cpu_threads=auto"])) == []
    assert value_problems(compose_config(["cpu_threads=0"])) == [
        "cpu_threads: expected an integer >= 1, got 0"
    ]
