"""Tools in a chat, through the chat session every front end uses: a real MCP server over
stdio (the tests' own), the real worker with a scripted engine for multi-step loops, and
the real starter model forced to call a tool.  Approve once, always, deny, a timeout, a
server that dies mid-call, a call the model wrote badly, the call limit, Esc, and the
conversation saved, reopened and exported with its calls."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.chat import store as st
from app.chat import tool_rounds as tr
from app.chat.listener import SessionListener
from app.chat.recorder import engine_messages
from app.chat.reply import Reply
from app.chat.session import ChatSession
from app.chat.tool_turn import ChatTools
from app.chat.transfer import export_document, export_markdown, import_document
from app.core import Core
from app.docs.grounding import CHARACTERS_PER_TOKEN
from app.engine.seat import Seat
from app.tools.approval import Decision, PendingCall
from app.tools.builtin import BuiltinTools
from app.tools.config import ServerConfig
from app.tools.servers import ToolServers
from tests.test_chat_session import WAIT_S, scripted

pytestmark = pytest.mark.slow
FIXTURE = Path(__file__).parent / "tools" / "mcp_fixture_server.py"
ROUND = "<<<round>>>\n"


def call(tool: str, **arguments: Any) -> str:
    return f'<tool_call>{{"name": "{tool}", "arguments": {json.dumps(arguments)}}}</tool_call>'


class Person(SessionListener):
    """The front end: answers each approval with ``decide`` and notes what it heard."""

    def __init__(self, decide: Callable[[PendingCall], Decision | None]) -> None:
        self.decide = decide
        self.heard: list[tuple[str, str]] = []
        self.text = ""

    def reply_text(self, session: ChatSession, reply: Reply, text: str) -> None:
        self.text += text

    def tool_round(self, session: ChatSession, reply: Reply) -> None:
        self.heard.append(("round", ""))

    def tool_approval(self, session: ChatSession, reply: Reply, call: PendingCall) -> None:
        self.heard.append(("asked", call.tool.key))
        decision = self.decide(call)
        if decision is not None:
            session.answer_tool(decision)

    def tool_started(self, session: ChatSession, reply: Reply, call: dict[str, Any]) -> None:
        self.heard.append(("started", call["tool"]))

    def tool_result(self, session: ChatSession, reply: Reply, call: dict[str, Any]) -> None:
        self.heard.append(("result", call["status"]))


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[ToolServers]:
    made = ToolServers(
        [ServerConfig("fixture", command=sys.executable, args=(str(FIXTURE), str(tmp_path)))],
        tmp_path / "logs",
    )
    yield made
    made.close()


@pytest.fixture
def store(core: Core) -> Iterator[st.ChatStore]:
    opened = core.open_store()
    yield opened
    opened.close()


def tools_of(servers: ToolServers, **options: Any) -> ChatTools:
    return ChatTools(servers.tools("fixture").result(WAIT_S), servers, **options)


def chat(
    core: Core,
    store: st.ChatStore,
    client: Seat,
    person: Person,
    script: str,
    tools: ChatTools,
    name: str = "Scripted",
) -> ChatSession:
    """A session on a scripted model (another ``name`` is another worker: a worker reads
    its script once)."""
    session = ChatSession(core.settings, store, client, core.model_spec, person)
    session.model = scripted(core, script, name)
    session.tools = tools
    return session


def ask(session: ChatSession, text: str = "Use the tools.") -> Reply:
    reply = session.send(text)
    assert reply is not None
    session.wait(WAIT_S)
    assert reply.finished, "the reply did not end"
    return reply


def calls_of(store: st.ChatStore, reply: Reply) -> list[dict[str, Any]]:
    return [c for r in store.message(reply.message_id).tools for c in r["calls"]]


def test_a_reply_calls_tools_in_rounds_and_keeps_them(
    core: Core, store: st.ChatStore, client: Seat, servers: ToolServers, tmp_path: Path
) -> None:
    remembered: list[str] = []
    tools = tools_of(servers, remember=remembered.append)
    person = Person(
        lambda c: Decision.ALWAYS if c.tool.name == "write_note" else Decision.ALLOW_ONCE
    )
    script = (
        "Let me look. "
        + call("echo", text="hi")
        + ROUND
        + call("write_note", name="a.txt", text="from the model")
        + ROUND
        + "Done: echo said hi."
    )
    session = chat(core, store, client, person, script, tools)
    reply = ask(session)
    assert reply.status == st.COMPLETE and reply.text == "Done: echo said hi."
    assert person.text == "Let me look. Done: echo said hi.", "never half a call as text"
    assert (tmp_path / "a.txt").read_text() == "from the model"
    assert person.heard == [
        ("round", ""),
        ("asked", "fixture/echo"),
        ("started", "echo"),
        ("result", "done"),
        ("round", ""),
        ("asked", "fixture/write_note"),
        ("started", "write_note"),
        ("result", "done"),
    ]
    assert remembered == ["fixture/write_note"] and "fixture/write_note" in tools.always_allow

    saved = store.message(reply.message_id)
    assert [r["text"] for r in saved.tools] == ["Let me look. ", ""]
    assert [c["result"] for c in calls_of(store, reply)] == ["echo: hi", "wrote a.txt"]
    sent = engine_messages(store.messages(reply.conversation_id))
    assert [m["role"] for m in sent] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]
    assert (
        sent[2]["content"] == "echo: hi" and sent[1]["tool_calls"][0]["function"]["name"] == "echo"
    )

    # Always allow holds for the next reply: write_note runs without asking.
    person.heard.clear()
    ask(session, "Again.")
    assert ("asked", "fixture/write_note") not in person.heard
    assert ("started", "write_note") in person.heard

    exported = export_document(store, reply.conversation_id)
    copy = import_document(store, json.loads(json.dumps(exported)))
    reopened = next(m for m in store.messages(copy) if m.role == "assistant")
    assert [c["status"] for r in reopened.tools for c in r["calls"]] == ["done", "done"]
    assert "**Tool** `fixture/echo` (done)" in export_markdown(store, reply.conversation_id)


def test_denied_timed_out_and_crashed_calls_tell_the_model_and_the_reply_goes_on(
    core: Core, store: st.ChatStore, client: Seat, servers: ToolServers
) -> None:
    person = Person(lambda c: Decision.DENY if c.tool.name == "write_note" else Decision.ALLOW_ONCE)
    script = (
        call("write_note", name="b.txt", text="no")
        + ROUND
        + call("hang", seconds=3600)
        + ROUND
        + call("crash")
        + ROUND
        + call("echo", text="after the crash")
        + ROUND
        + "Finished."
    )
    session = chat(core, store, client, person, script, tools_of(servers, timeout_s=0.5))
    reply = ask(session)
    assert reply.status == st.COMPLETE and reply.text == "Finished."
    denied, hung, crashed, echoed = calls_of(store, reply)
    assert denied["status"] == tr.DENIED and "denied" in denied["result"]
    assert hung["status"] == tr.TIMEOUT and "0.5 s" in hung["result"]
    assert crashed["status"] == tr.ERROR and "stopped during the call" in crashed["result"]
    assert "crashing on purpose" in crashed["result"], "the server's last words"
    assert echoed["status"] == tr.DONE and echoed["result"] == "echo: after the crash"


def test_a_badly_written_call_is_answered_and_the_limit_ends_the_calls(
    core: Core, store: st.ChatStore, client: Seat, servers: ToolServers
) -> None:
    person = Person(lambda _c: Decision.ALLOW_ONCE)
    bad = '<tool_call>{"name": "echo", "arguments": {"text": </tool_call>'
    session = chat(
        core,
        store,
        client,
        person,
        bad + ROUND + call("echo", text="again"),
        tools_of(servers, max_calls=3),
    )
    reply = ask(session)
    calls = calls_of(store, reply)
    assert calls[0]["status"] == tr.MALFORMED and "not valid JSON" in calls[0]["result"]
    assert [c["status"] for c in calls[1:]] == [tr.DONE, tr.DONE]
    assert len(calls) == 3, "three calls, the limit: the next request offers no tools"
    assert reply.status == st.COMPLETE
    assert "<tool_call>" in reply.text, "without tools, a call is only text"


def test_a_call_cut_by_the_length_limit_is_neither_text_nor_a_malformed_call(
    core: Core, store: st.ChatStore, client: Seat, servers: ToolServers
) -> None:
    """The window and ``hearth chat`` as the API: a reply that reaches its token limit in
    the middle of a call shows its text before the call, never the call's markup, makes
    no call, ends as cut (length) and says why."""
    notes: list[str] = []
    person = Person(lambda _c: Decision.ALLOW_ONCE)
    person.notice = notes.append  # type: ignore[method-assign,assignment]
    cut = 'Let me look. <tool_call>{"name": "echo", "arguments": {"text": "' + "a" * 400
    session = chat(core, store, client, person, cut, tools_of(servers))
    session.overrides = {"sampling.max_tokens": 20}
    reply = ask(session)
    assert reply.status == st.LENGTH
    assert reply.text.strip() == "Let me look.", "the text before the call, no markup"
    assert "<tool_call>" not in person.text
    assert calls_of(store, reply) == [] and ("asked", "fixture/echo") not in person.heard
    assert any("length limit in the middle of a tool call" in note for note in notes)


def test_a_remote_servers_model_is_offered_the_tools_and_its_calls_run(
    core: Core, store: st.ChatStore, client: Seat, servers: ToolServers, host: Any, spec: Any
) -> None:
    """An OpenAI-compatible server (here Hearth's own API, a real one that takes tools)
    is offered the conversation's tools as LM Studio and Jan offer them: its forced call
    comes back streamed as ``delta.tool_calls``, runs after the person allows it, and its
    result goes back to the server, which answers."""
    from app.models.library import ModelEntry
    from tests.api_helpers import serving_one

    with serving_one(host, spec, "starter") as base:
        core.endpoints.add("peer", base + "/v1")
        person = Person(lambda _c: Decision.ALLOW_ONCE)
        session = ChatSession(core.settings, store, client, core.model_spec, person)
        session.model = ModelEntry(
            "starter @ peer", Path("endpoint/peer/starter"), "remote", 0, "endpoint:peer"
        )
        session.tools = tools_of(servers, choice="required", max_calls=1)
        session.overrides = {"sampling.max_tokens": 64, "sampling.temperature": 0.0}
        reply = ask(session, "Say hello with the echo tool.")
    (called,) = calls_of(store, reply)
    assert (called["tool"], called["status"]) == ("echo", tr.DONE), called
    assert called["result"].startswith("echo: ")
    assert ("asked", "fixture/echo") in person.heard
    assert reply.status in (st.COMPLETE, st.LENGTH) and "<tool_call>" not in reply.text


def test_esc_stops_a_running_call_or_one_waiting_for_the_person(
    core: Core, store: st.ChatStore, client: Seat, servers: ToolServers
) -> None:
    session = chat(
        core,
        store,
        client,
        Person(lambda _c: None),
        call("echo", text="x") + ROUND + "no",
        tools_of(servers),
    )
    reply = session.send("Use it.")
    assert reply is not None
    session.wait(5)
    while reply.turn is None or reply.turn.waiting is None:
        session.wait(0.1)
        assert not reply.finished
    session.stop()
    assert reply.status == st.STOPPED
    assert calls_of(store, reply)[0]["status"] == tr.STOPPED

    running = chat(
        core,
        store,
        client,
        Person(lambda _c: Decision.ALLOW_ONCE),
        call("hang") + ROUND + "no",
        tools_of(servers),
        "Hanging",
    )
    reply = running.send("Hang.")
    assert reply is not None
    while reply.turn is None or reply.turn.running is None:
        running.wait(0.1)
        assert not reply.finished
    running.stop()
    assert reply.status == st.STOPPED
    assert calls_of(store, reply)[0]["status"] == tr.STOPPED
    assert servers.call("fixture", "echo", {"text": "ok"}).result(WAIT_S).text == "echo: ok"


def test_the_starter_model_forced_to_call_a_tool_calls_it(
    core: Core, store: st.ChatStore, client: Seat
) -> None:
    """The real model, ``tool_choice`` required: the grammar from the tool's schema makes
    it call Hearth's date-and-time tool; with its one call used, it answers."""
    person = Person(lambda _c: Decision.ALLOW_ONCE)
    session = ChatSession(core.settings, store, client, core.model_spec, person)
    session.model = core.find_model(None)
    session.overrides = {"sampling.max_tokens": 96, "sampling.temperature": 0.0}
    builtin = BuiltinTools()
    session.tools = ChatTools(builtin.tools(), builtin=builtin, choice="required", max_calls=1)
    reply = ask(session, "What time is it?")
    assert reply.status in (st.COMPLETE, st.LENGTH), reply.error
    (only,) = calls_of(store, reply)
    assert only["status"] != tr.MALFORMED, only.get("raw")
    assert (only["server"], only["tool"], only["status"]) == ("hearth", "current_time", tr.DONE)
    assert "datetime" in json.loads(only["result"])
    assert person.heard[:2] == [("round", ""), ("asked", "hearth/current_time")]


def test_a_huge_result_is_cut_to_what_the_context_holds_and_says_so(
    core: Core, store: st.ChatStore, client: Seat, servers: ToolServers
) -> None:
    person = Person(lambda _c: Decision.ALLOW_ONCE)
    script = call("huge", characters=500_000) + ROUND + "Read it."
    session = chat(core, store, client, person, script, tools_of(servers), "Huge")
    reply = ask(session)
    (huge,) = calls_of(store, reply)
    context = session.context_usage(None)[1]
    assert huge["status"] == tr.DONE
    assert 0 < len(huge["result"]) <= context * CHARACTERS_PER_TOKEN / 4, "a quarter at most"
    assert "cut to" in huge["notes"][0] and "500,000" in huge["notes"][0]


def test_tool_choice_none_offers_nothing_and_reads_no_call(
    core: Core, store: st.ChatStore, client: Seat, servers: ToolServers
) -> None:
    person = Person(lambda _c: Decision.ALLOW_ONCE)
    tools = tools_of(servers, choice="none")
    session = chat(core, store, client, person, call("echo", text="x"), tools, "NoTools")
    reply = ask(session)
    assert store.message(reply.message_id).tools == [] and person.heard == []
    assert reply.text.startswith("<tool_call>"), "only text: no call was read or run"
