"""Which CPU builds of llama.cpp this CPU can run: a build is never loaded on a CPU that
lacks an instruction set it needs, and a platform that cannot tell counts as lacking."""

import sys

import pytest

from backends import cpu_features


def test_this_cpu_reports_its_instruction_sets() -> None:
    have = cpu_features.cpu_features()
    if sys.platform.startswith("linux") and cpu_features._linux() is not None:
        assert have, "Linux names the CPU's flags in /proc/cpuinfo"
        some = sorted(have)[:3]
        assert cpu_features.missing(some) == ""


def test_names_are_compared_without_underscores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpu_features, "cpu_features", lambda: frozenset({"avx2", "avx512vnni"}))
    assert cpu_features.missing(["AVX2", "avx512_vnni"]) == ""
    assert cpu_features.missing([]) == ""


def test_a_missing_set_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpu_features, "cpu_features", lambda: frozenset({"avx2"}))
    assert cpu_features.missing(["avx2", "avx512f", "avx512bw"]) == (
        "this CPU lacks AVX512F, AVX512BW, which this build needs"
    )


def test_a_platform_that_cannot_tell_runs_only_builds_that_need_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cpu_features, "cpu_features", lambda: None)
    assert cpu_features.missing([]) == ""
    assert cpu_features.missing(["avx512f"]) == "cannot tell whether this CPU has AVX512F"
