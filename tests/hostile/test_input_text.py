"""Class 4: input that is not UTF-8 is read with replacement characters and a notice.

The policy lives in ``wire.text``: the chat session applies it to every message and system
prompt (so the window, ``hearth chat`` and anything later behave alike), ``hearth chat``
reads stdin as bytes, and the protocol's encoder repairs whatever slipped past, so a lone
surrogate never again reaches the database or the worker pipe as an error.
"""

from __future__ import annotations

import http.client
import json
import subprocess
from pathlib import Path

import pytest

from app.chat import store as st
from app.core import Core
from app.engine.seat import Seat
from tests.conftest import HEARTH, REPO, run_hearth
from tests.test_api_server import served  # noqa: F401 - a fixture
from tests.test_chat_session import Heard, finished, session_for
from wire import protocol

pytestmark = pytest.mark.slow
NOTICE = "was not UTF-8 text"


def test_a_session_keeps_what_it_can_read_and_says_what_it_replaced(
    core: Core, client: Seat
) -> None:
    heard = Heard()
    store = core.open_store()
    try:
        session = session_for(core, store, client, heard, "Bien.")
        session.set_instructions("Parle \udcc3 fran\udce7ais.", {})  # as argv gives Latin-1
        reply = finished(session, session.send("caf\udce9 \ud800"))  # and a JSON escape
        assert reply.status == st.COMPLETE and reply.text == "Bien."
        saved = store.messages(reply.conversation_id)
        assert saved[0].content == "caf\ufffd \ufffd"
        assert store.conversation(reply.conversation_id).system_prompt == (
            "Parle \ufffd fran\ufffdais."
        )
        notices = [str(value) for what, value in heard.calls if what == "notice"]
        assert len(notices) == 2 and all(NOTICE in n for n in notices)
        assert "2 character(s)" in notices[1]
    finally:
        store.close()


def test_the_protocol_never_fails_on_a_lone_surrogate() -> None:
    line = protocol.encode({"type": "chat", "text": "a\udcffb"})
    assert protocol.decode(line)["text"] == "a\ufffdb"


def test_latin1_on_stdin_and_bytes_in_arguments_are_chatted_with(data_dir: Path) -> None:
    piped = run_hearth_bytes("chat", "--max-tokens", "4", "-", stdin="café olé".encode("latin-1"))
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout.strip() and NOTICE in piped.stderr.decode()
    argued = run_hearth(
        "chat", "--save", "--max-tokens", "4", "--system", "\udcfe", "hi \udcff"
    )  # what Python makes of the bytes 0xfe and 0xff in argv
    assert argued.returncode == 0, argued.stderr
    assert argued.stderr.count(NOTICE) == 2 and "saved as conversation" in argued.stderr


def run_hearth_bytes(*args: str, stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*HEARTH, *args], input=stdin, capture_output=True, cwd=REPO, timeout=600, check=False
    )


def test_bad_escapes_in_an_api_request_are_refused_in_words(served: tuple[int, Path]) -> None:  # noqa: F811
    """JSON may carry lone surrogates (``\\ud800``); the API refuses them with a 400 that
    names the field, and goes on answering."""
    port, _log = served

    def post(content: str) -> tuple[int, dict[str, object]]:
        body = (
            '{"model": "SmolLM2-135M-Instruct.Q4_1", "max_tokens": 4, '
            f'"messages": [{{"role": "user", "content": "{content}"}}]}}'
        )
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        connection.request(
            "POST", "/v1/chat/completions", body, {"Content-Type": "application/json"}
        )
        try:
            response = connection.getresponse()
            return response.status, json.loads(response.read())
        finally:
            connection.close()

    status, answer = post("hi \\ud800 \\udfff")
    assert status == 400 and "messages.0.content" in str(answer), answer
    status, answer = post("hi")
    assert status == 200, answer
