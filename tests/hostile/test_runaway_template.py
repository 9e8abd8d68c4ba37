"""Class 5: a chat template that runs away is stopped, in time and in memory.

The template is a program shipped inside the model file; Jinja's sandbox keeps it from
doing harm, not from looping forever.  ``backends.bounded`` stops it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from backends.bounded import Exceeded, bounded
from backends.engine import EngineError
from tests.hostile.test_prompt_injection import rendered

SPINS = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
GROWS = (
    "{% for i in range(100000) %}{% for j in range(100000) %}"
    "{{ 'xxxxxxxxxxxxxxxx' * 64 }}{% endfor %}{% endfor %}"
)


def test_a_loop_that_never_ends_is_stopped_in_time() -> None:
    with pytest.raises(Exceeded) as caught, bounded(0.3, 1 << 40):
        while True:
            pass
    assert caught.value.what == "time"


def test_a_block_that_grows_the_process_is_stopped() -> None:
    kept = []
    with pytest.raises(Exceeded) as caught, bounded(600, 200 * 1024 * 1024):
        while True:
            kept.append(bytearray(8 * 1024 * 1024))
    kept.clear()
    assert caught.value.what == "memory"


def test_a_block_that_ends_in_time_is_untouched() -> None:
    with bounded(600, 1 << 40):
        total = sum(range(1000))
    assert total == 499500


@pytest.mark.parametrize("template", [SPINS, GROWS], ids=["spins", "grows"])
def test_the_engine_reports_a_runaway_template(
    engine: Any, template: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import backends.template_guard as guard

    monkeypatch.setattr(guard, "TEMPLATE_SECONDS", 2.0)
    monkeypatch.setattr(guard, "TEMPLATE_EXTRA_BYTES", 300 * 1024 * 1024)
    original = engine._formatter
    engine._formatter = engine._chat_format.Jinja2ChatFormatter(
        template=template, eos_token="", bos_token=""
    )
    try:
        with pytest.raises(EngineError, match="ran away"):
            rendered(engine, [{"role": "user", "content": "Hi"}])
    finally:
        engine._formatter = original
    assert rendered(engine, [{"role": "user", "content": "Hi"}])  # the model works again


def _escapes(marker: Path) -> list[str]:
    run = f"popen('touch {marker}').read()"
    return [
        "{{ ''.__class__.__mro__[1].__subclasses__() }}",
        "{{ cycler.__init__.__globals__.os." + run + " }}",
        "{{ joiner.__init__.__globals__.os." + run + " }}",
        "{{ namespace.__init__.__globals__.os." + run + " }}",
        "{{ lipsum.__globals__['os']." + run + " }}",
        "{{ self.__init__.__globals__.__builtins__.__import__('os')." + run + " }}",
        "{{ messages.__class__.__base__.__subclasses__() }}",
        "{% set x = messages.pop() %}{{ x }}",
        "{{ raise_exception.__globals__ }}",
        "{{ (messages|attr('__class__')).__mro__ }}",
    ]


def test_templates_that_try_to_escape_the_sandbox_run_nothing(engine: Any, tmp_path: Path) -> None:
    marker = tmp_path / "escaped"
    original = engine._formatter
    try:
        for template in _escapes(marker):
            engine._formatter = engine._chat_format.Jinja2ChatFormatter(
                template=template, eos_token="", bos_token=""
            )
            try:
                rendered = engine._prompt_text([{"role": "user", "content": "Hi"}])
            except EngineError as exc:
                assert "rejected the conversation" in str(exc), template
            else:
                leaked = ("<class", "<module", "<function", "<built-in", "__builtins__")
                assert not any(word in rendered for word in leaked), (template, rendered)
    finally:
        engine._formatter = original
    assert not marker.exists()
