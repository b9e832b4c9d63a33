"""`cpu_memory`: bounded by default, a variable the user set wins, and the malloc setting
really applies in the running process (benchmark/config/cpu_memory.py)."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import pytest

from benchmark.config.checks import value_problems
from benchmark.config.compose import compose_config
from benchmark.config.cpu_memory import BOUNDED_VALUES, MMAP_THRESHOLD, ONEDNN_CACHE
from benchmark.config.identity import config_id

GLIBC = platform.libc_ver()[0] == "glibc"

# In a fresh process: free a 20 MiB block (glibc's dynamic threshold rises to it), then ask
# for 9 MiB and report whether glibc mapped it on its own (mallinfo2's hblkhd grows).
_PROBE = """
import ctypes, json, sys
from benchmark.config.cpu_memory import apply_cpu_memory
class Info(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in "arena ordblks smblks hblks hblkhd "
                "usmblks fsmblks uordblks fordblks keepcost".split()]
libc = ctypes.CDLL(None)
libc.mallinfo2.restype = Info
applied = apply_cpu_memory(sys.argv[1])
big = bytearray(20 * 2**20); del big
before = libc.mallinfo2().hblkhd
block = bytearray(9 * 2**20)
print(json.dumps({"applied": applied, "mapped": libc.mallinfo2().hblkhd - before}))
"""


def probe(setting: str, **environment: str) -> dict:
    clean = {key: value for key, value in os.environ.items() if key not in BOUNDED_VALUES}
    done = subprocess.run([sys.executable, "-c", _PROBE, setting], capture_output=True,
                          text=True, env={**clean, **environment}, check=True)
    return json.loads(done.stdout)


def test_the_default_config_bounds_memory_and_the_key_is_not_part_of_the_id():
    config = compose_config([])
    assert config.cpu_memory == "bounded"
    assert config_id(config) == config_id(compose_config(["cpu_memory=default"]))


def test_a_setting_that_is_not_one_is_refused_naming_the_key():
    assert value_problems(compose_config(["cpu_memory=small"])) == [
        "cpu_memory: must be one of bounded, default, got 'small'"
    ]


@pytest.mark.skipif(not GLIBC, reason="mallopt is glibc's; elsewhere only oneDNN's cache is set")
def test_bounded_maps_large_blocks_on_their_own_in_the_running_process():
    bounded, default = probe("bounded"), probe("default")
    assert bounded["applied"] == BOUNDED_VALUES
    assert bounded["mapped"] >= 9 * 2**20  # its own mapping, returned when freed
    assert default == {"applied": {}, "mapped": 0}  # kept in the heap after the 20 MiB block


def test_a_variable_the_user_set_wins():
    result = probe("bounded", **{ONEDNN_CACHE: "64"})
    assert ONEDNN_CACHE not in result["applied"]
    if GLIBC:
        assert result["applied"] == {MMAP_THRESHOLD: BOUNDED_VALUES[MMAP_THRESHOLD]}
