"""Which CPU builds of llama.cpp this CPU can run: a build is never loaded on a CPU that
lacks an instruction set it needs, and a platform that cannot tell counts as lacking."""

import sys

import pytest

from wire import cpu_features


@pytest.mark.linux_only("Linux names its CPU's flags in /proc/cpuinfo")
@pytest.mark.x86_only("the sets named are x86-64's")
def test_an_x86_64_cpu_has_sse2_and_no_made_up_set() -> None:
    assert cpu_features.missing(["SSE2"]) == "", "every x86-64 CPU has SSE2"
    assert "lacks AVX9000" in cpu_features.missing(["avx9000"])


@pytest.fixture
def tells_every_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """A system that tells of every instruction set (Linux, macOS), wherever this runs."""
    monkeypatch.setattr(cpu_features, "sets_told", lambda: None)


def test_names_are_compared_without_underscores(
    monkeypatch: pytest.MonkeyPatch, tells_every_set: None
) -> None:
    monkeypatch.setattr(cpu_features, "cpu_features", lambda: frozenset({"avx2", "avx512vnni"}))
    assert cpu_features.missing(["AVX2", "avx512_vnni"]) == ""
    assert cpu_features.missing([]) == ""


def test_a_missing_set_is_named(monkeypatch: pytest.MonkeyPatch, tells_every_set: None) -> None:
    monkeypatch.setattr(cpu_features, "cpu_features", lambda: frozenset({"avx2"}))
    assert cpu_features.missing(["avx2", "avx512f", "avx512bw"]) == (
        "this CPU lacks AVX512F, AVX512BW, which this build needs"
    )


def test_windows_says_it_cannot_tell_of_the_sets_it_has_no_name_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Windows names only AVX, AVX2 and AVX-512F: a build that needs AVX512BW is neither
    refused nor promised there, but said to be unknown; one lacking AVX-512F is refused."""
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(cpu_features, "cpu_features", lambda: frozenset({"avx", "avx2"}))
    assert cpu_features.missing(["avx2"]) == ""
    assert cpu_features.missing(["avx2", "avx512bw"]) == (
        "cannot tell whether this CPU has AVX512BW"
    )
    assert "lacks AVX512F" in cpu_features.missing(["avx512f", "avx512bw"])


def test_a_platform_that_cannot_tell_runs_only_builds_that_need_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cpu_features, "cpu_features", lambda: None)
    assert cpu_features.missing([]) == ""
    assert cpu_features.missing(["avx512f"]) == "cannot tell whether this CPU has AVX512F"


@pytest.mark.x86_only("x86 sets")
@pytest.mark.parametrize(
    ("reported", "warned"),
    [
        (frozenset({"avx", "avx2", "avx512f"}), False),  # all that Windows names
        (frozenset({"avx", "fma"}), True),
    ],
)
def test_the_system_check_reads_the_instruction_sets_the_runtimes_are_chosen_by(
    monkeypatch: pytest.MonkeyPatch, reported: frozenset[str], warned: bool
) -> None:
    """Windows has no /proc/cpuinfo: the System check must not tell every Windows PC that
    its CPU has no AVX2."""
    from dataclasses import replace

    from app.machine.hardware import probe_cpu
    from app.machine.system_check import run_checks
    from tests.conftest import recorded_machine

    monkeypatch.setattr(cpu_features, "cpu_features", lambda: reported)
    cpu = probe_cpu()
    assert {cpu_features.normalise(name) for name in cpu.features} == set(reported)
    facts = replace(recorded_machine("laptop"), cpu=cpu)
    titles = [str(check.title) for check in run_checks(facts)]
    assert ("This CPU has no AVX2" in titles) == warned, titles
