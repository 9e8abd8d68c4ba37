"""One open conversation, for every front end: what happens when a person sends a message.

``ChatSession`` owns send, edit (a new branch), regenerate, continue, stop and delete, the
store writes while a reply streams (``ReplyRecorder``: at most half a second is lost if
Hearth is killed), the engine's notices, titles, and the final state of a reply (done,
stopped, interrupted, failed).  It has no Qt in it: the window adapts it in
``ui/chat/chat_screen.py``, ``hearth chat`` drives it from the terminal, and both therefore
behave alike.

Threads: the engine host delivers events on a worker's reader thread.  ``deliver`` (given by
the front end) brings them to the thread that owns the session, where ``_handle`` runs;
the window coalesces them on the Qt main thread, the command line queues them and calls
``wait``.  The store is only touched from the owning thread.
"""

from __future__ import annotations

import logging
import queue
import time
from collections.abc import Callable, Sequence
from typing import Any

from app.chat import store as st
from app.chat.listener import SessionListener
from app.chat.pictures import check_pictures
from app.chat.presets import effective_values, engine_params
from app.chat.recorder import ReplyRecorder, engine_messages, status_for
from app.chat.reply import Reply
from app.chat.tool_flow import AskAgain, AwaitPerson, Running, Step, ToolFlow, ToolNews
from app.chat.tool_turn import ChatTools, turn_for
from app.docs.grounding import CHARACTERS_PER_TOKEN, documents_budget
from app.engine.jobs import EventCallback
from app.engine.seat import Seat
from app.engines import reads_images
from app.errors import HearthError
from app.models.library import ModelEntry
from app.picture_store import PictureMissing
from app.settings import Settings
from app.tools.approval import Decision
from wire import images, protocol
from wire.model_spec import ModelSpec
from wire.phrases import Phrase, from_wire, message_of, to_wire
from wire.text import repaired

log = logging.getLogger(__name__)

TICK_S = 0.25  # how often a waiting front end lets the recorder save a pause in the stream

Handler = Callable[[dict[str, Any]], None]
# Wraps the session's handler into a callback for a worker's reader thread that
# calls the handler later on the session's own thread.
Deliver = Callable[[Handler], EventCallback]
SpecFor = Callable[[ModelEntry, int | None], ModelSpec]

SAVING_REPLY = Phrase("saving the reply")
SAVING_MESSAGE = Phrase("saving your message")


class ChatSession:
    """One conversation (or the one about to be created by the first message)."""

    def __init__(
        self,
        settings: Settings,
        store: st.ChatStore,
        seat: Seat,
        spec_for: SpecFor,
        listener: SessionListener | None = None,
        conversation_id: int | None = None,
        deliver: Deliver | None = None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.seat = seat  # the front end's chosen model: requests go to its lease
        self.spec_for = spec_for
        self.listener = listener or SessionListener()
        self.conversation_id = conversation_id
        self.model: ModelEntry | None = None
        self.advice: dict[str, Any] = {}  # what the model's authors recommend
        # Values for this session's replies that are not saved with the conversation (the
        # command line's flags); keys of the settings declaration.
        self.overrides: dict[str, Any] = {}
        # Extra request parameters (benchmarks run to a fixed length with ignore_eos).
        self.extra_params: dict[str, Any] = {}
        # The tools this session's replies may use (None: none); the front end sets them.
        self.tools: ChatTools | None = None
        self.tool_listener: SessionListener | None = None  # hears the tools (else listener)
        self._tool_flow = ToolFlow(
            lambda message_id, rounds: self.store.update_message(message_id, tools=rounds),
            ToolNews(
                round=lambda reply: self._tools_heard().tool_round(self, reply),
                started=lambda reply, call: self._tools_heard().tool_started(self, reply, call),
                result=lambda reply, call: self._tools_heard().tool_result(self, reply, call),
                problem=self.listener.problem,
                notice=self.listener.notice,
            ),
        )
        self.reply: Reply | None = None
        self._queue: queue.Queue[tuple[Handler, dict[str, Any]]] | None = None
        self._deliver = deliver or self._queued
        self._pending_prompt = str(settings.get("chat.system_prompt"))
        self._pending_settings: dict[str, Any] = {}
        if conversation_id is not None:
            store.conversation(conversation_id)  # KeyError for an unknown conversation

    # -- the conversation ---------------------------------------------------------------
    @property
    def conversation(self) -> st.Conversation | None:
        if self.conversation_id is None:
            return None
        return self.store.conversation(self.conversation_id)

    @property
    def busy(self) -> bool:
        return self.reply is not None

    def messages(self) -> list[st.Message]:
        """The branch being shown, from its first message."""
        return self.store.messages(self.conversation_id) if self.conversation_id else []

    def branches(self) -> dict[int, tuple[int, int]]:
        return self.store.branches(self.conversation_id) if self.conversation_id else {}

    @property
    def system_prompt(self) -> str:
        conversation = self.conversation
        return conversation.system_prompt if conversation else self._pending_prompt

    @property
    def own_settings(self) -> dict[str, Any]:
        """What the user chose for this conversation (the rest comes from elsewhere)."""
        conversation = self.conversation
        return conversation.settings if conversation else self._pending_settings

    def set_instructions(self, system_prompt: str, own_settings: dict[str, Any]) -> None:
        """The conversation's system prompt and reply settings (kept until it is created)."""
        system_prompt = self._readable(system_prompt, Phrase("the system prompt"))
        if self.conversation_id is None:
            self._pending_prompt, self._pending_settings = system_prompt, dict(own_settings)
        else:
            self.store.set_conversation_settings(self.conversation_id, system_prompt, own_settings)

    def values(self) -> dict[str, Any]:
        """The reply settings that apply: Hearth's settings, then the model's advice, then
        the conversation's own choices, then this session's overrides."""
        return {
            **effective_values(self.settings, self.advice, self.own_settings),
            **self.overrides,
        }

    def context_usage(
        self,
        window: int | None,
        stats: dict[str, Any] | None = None,
        messages: list[st.Message] | None = None,
    ) -> tuple[int, int, bool]:
        """(tokens used, context size, exact?): counted by the engine after a reply, else
        estimated from the text's length (of ``messages`` when the caller has them)."""
        size = int(window or self._planned_context())
        if stats and isinstance(stats.get("prompt_tokens"), int):
            used = int(stats["prompt_tokens"]) + int(stats.get("generated_tokens") or 0)
            return used, size, True
        shown = self.messages() if messages is None else messages
        characters = len(self.system_prompt) + sum(
            len(m.content) + len(str(m.documents.get("context") or "")) for m in shown
        )
        return round(characters / CHARACTERS_PER_TOKEN), size, False

    def room_for_documents(self, question: str) -> int:
        """About how many tokens of files and passages the next message can be given: the
        context, less room for the answer (the reply limit, else a quarter of the context
        up to 1,024 tokens), the question, and the conversation so far up to a quarter of
        the context (when a conversation outgrows the context its oldest messages are left
        out, so a long chat does not leave its newest question without documents)."""
        used, size, _exact = self.context_usage(None)
        limit = int(self.values().get("sampling.max_tokens") or 0)
        return documents_budget(size, used, limit, round(len(question) / CHARACTERS_PER_TOKEN))

    def _planned_context(self) -> int:
        """The context the next reply would load with (the per-model choice included)."""
        if self.model is not None:
            try:
                return self._spec(self.model).n_ctx or int(self.values()["engine.context_length"])
            except HearthError:
                pass  # a server endpoint that is no longer configured: the setting then
        return int(self.values()["engine.context_length"])

    def delete_message(self, message_id: int) -> None:
        self._require_idle()
        self.store.delete_message(message_id)
        self.listener.conversation_changed(self)

    def step_branch(self, message_id: int, step: int) -> bool:
        """Show the previous (-1) or next (+1) version of a message; False at either end."""
        self._require_idle()
        target = self.store.sibling(message_id, step)
        if target is None:
            return False
        self.store.switch_branch(target)
        return True

    # -- replies ------------------------------------------------------------------------
    def send(
        self,
        text: str,
        edit_of: int | None = None,
        documents: dict[str, Any] | None = None,
        pictures: Sequence[dict[str, Any]] | None = None,
    ) -> Reply | None:
        """Send ``text`` as the user's next message (as a new version of ``edit_of``, a
        message of this conversation) and stream the reply.  ``documents``: what the
        message is given besides its words (``Grounding.to_json()``: attached files and
        passages), stored with it; ``pictures``: the references of the pictures it
        carries, kept already (``keep_picture``: the window's tray keeps each as it is
        read, off its thread).  None for a message with neither text nor pictures;
        HearthError when it cannot be sent now (a picture gone from the store, a model
        that reads text only); storage errors propagate (nothing sent)."""
        text = text.strip("\n")
        if not text.strip() and not pictures:
            return None
        self._require_idle()
        text = self._readable(text, Phrase("your message"))
        model = self._require_model()
        spec = self._spec(model)  # before anything is written: it may refuse
        edited = self.store.message(edit_of) if edit_of is not None else None
        if edited is not None and edited.conversation_id != self.conversation_id:
            raise HearthError(Phrase("That message belongs to another conversation."))
        if edited is not None and documents is None:
            documents = edited.documents  # an edited question keeps its files
        if pictures is not None:
            refs = list(pictures)  # an edit's: exactly what the tray holds now
        else:
            refs = edited.images if edited is not None else []
        self._check_pictures(model, spec, bool(refs), edited)
        for ref in refs:
            self.store.pictures.part(ref)  # still kept (PictureMissing in words)
        if self.conversation_id is None:
            conversation = self.store.create_conversation(
                model=model.name, system_prompt=self._pending_prompt
            )
            if self._pending_settings:
                self.store.set_conversation_settings(
                    conversation.id, self._pending_prompt, self._pending_settings
                )
            self.conversation_id = conversation.id
        if edited is not None:
            user_id = self.store.add_message(
                self.conversation_id,
                "user",
                text,
                parent_id=edited.parent_id,
                documents=documents,
                images=refs,
            )
        else:
            user_id = self.store.add_message(
                self.conversation_id, "user", text, documents=documents, images=refs
            )
        return self._start(spec, user_id, appended=edited is None)

    def ready_for_pictures(self) -> None:
        """HearthError in words, before any picture is kept, when the chosen model cannot
        read pictures (``TextOnly``) or there is none."""
        model = self._require_model()
        self._check_pictures(model, self._spec(model), True)

    def keep_picture(self, data: bytes, name: str = "") -> dict[str, Any]:
        """Keep a picture for a message to carry (checked and hashed once, here); its
        reference, for ``send``.  HearthError in words for what is no picture a model
        reads; OSError when it cannot be written (a full disk)."""
        try:
            return self.store.pictures.put(data, name)
        except images.ImageRefused as exc:
            raise HearthError(message_of(exc)) from exc

    def _check_pictures(
        self, model: ModelEntry, spec: ModelSpec, sending: bool, edited: st.Message | None = None
    ) -> None:
        """Before anything is written (``pictures.check_pictures``)."""
        check_pictures(model.name, reads_images(spec), sending, self.messages(), edited)

    def _readable(self, text: str, what: str) -> str:
        """The input policy (``wire.text``): bytes that were not UTF-8 become U+FFFD, and
        the user is told, instead of the database or the engine failing on them."""
        text, replaced = repaired(text)
        if replaced:
            self.listener.notice(
                Phrase(
                    "Part of {0} was not UTF-8 text: {1} character(s) that could not be read "
                    "were replaced with \ufffd.",
                    what,
                    replaced,
                )
            )
        return text

    def regenerate(self, message_id: int | None = None) -> Reply | None:
        """A new reply to the message before ``message_id`` (default: the last reply); the
        old reply stays as another version.  None when there is nothing to regenerate."""
        self._require_idle()
        messages = self.messages()
        if message_id is None:
            replies = [m for m in messages if m.role == "assistant"]
            if not replies:
                return None
            message_id = replies[-1].id
        target = self.store.message(message_id)
        if target.parent_id is None or target.conversation_id != self.conversation_id:
            return None
        return self._start(self._spec(self._require_model()), target.parent_id)

    def continue_reply(self, message_id: int | None = None) -> Reply | None:
        """Let the model go on with the last reply (cut at the token limit or stopped)."""
        self._require_idle()
        messages = self.messages()
        if not messages or messages[-1].role != "assistant":
            return None
        if message_id is not None and messages[-1].id != message_id:
            return None
        return self._start(self._spec(self._require_model()), None, continuing=messages[-1])

    def stop(self) -> None:
        """Stop the reply now: no more text is shown or saved; the engine is told at once."""
        reply = self.reply
        if reply is None or reply.stopping:
            return
        reply.stopping = True
        if self._tool_flow.stop(reply):
            self._finish(reply, {"type": protocol.DONE, "finish_reason": protocol.FINISH_CANCELLED})
            return
        if reply.job is not None:
            reply.job.cancel()

    def answer_tool(self, decision: Decision) -> None:
        """The person's answer to the tool call the listener's ``tool_approval`` asked
        about."""
        if self.reply is not None:
            self._take(self.reply, self._tool_flow.answer(self.reply, decision))

    def abandon(self) -> Reply | None:
        """End the reply at once as stopped, keeping what was written (the conversation is
        being deleted, or the front end closes); later events are ignored."""
        reply = self.reply
        if reply is None:
            return None
        self.stop()
        self._finish(reply, {"type": protocol.DONE, "finish_reason": protocol.FINISH_CANCELLED})
        return reply

    def tick(self) -> None:
        """Save what streamed in since the last save, if it is due (call it every so often:
        a reply that pauses is still saved within half a second)."""
        reply = self.reply
        if reply is not None and not reply.save_failed:
            self._save(reply, reply.recorder.flush_if_due)

    def wait(self, timeout: float | None = None) -> Reply | None:
        """With the default (queued) delivery: handle events on this thread until the reply
        ends or ``timeout`` passes.  Returns the reply (finished, or still running)."""
        reply = self.reply
        if self._queue is None or reply is None:
            return reply
        deadline = None if timeout is None else time.monotonic() + timeout
        while not reply.finished:
            left = TICK_S if deadline is None else min(TICK_S, deadline - time.monotonic())
            if left <= 0:
                break
            try:
                handler, event = self._queue.get(timeout=left)
            except queue.Empty:
                self.tick()
                continue
            handler(event)
        return reply

    # -- inside ---------------------------------------------------------------------------
    def _require_idle(self) -> None:
        if self.reply is not None:
            raise HearthError(Phrase("Wait for the reply to finish (or press Stop) first."))

    def _require_model(self) -> ModelEntry:
        if self.model is None:
            raise HearthError(Phrase("Choose a model first: pick one above, or open a .gguf file."))
        return self.model

    def _queued(self, handler: Handler) -> EventCallback:
        if self._queue is None:
            self._queue = queue.Queue()
        events = self._queue
        return lambda event: events.put((handler, event))

    def _spec(self, model: ModelEntry) -> ModelSpec:
        """How to load ``model`` for this conversation (its own context length, if set)."""
        explicit_context = {**self.own_settings, **self.overrides}.get("engine.context_length")
        return self.spec_for(model, int(explicit_context) if explicit_context else None)

    def _start(
        self,
        spec: ModelSpec,
        user_id: int | None,
        continuing: st.Message | None = None,
        appended: bool = False,
    ) -> Reply:
        """Create (or reopen) the reply's row and send the request."""
        model = self._require_model()
        assert self.conversation_id is not None
        conversation_id = self.conversation_id
        self._check_pictures(model, spec, False)
        if continuing is not None:
            message_id = continuing.id
            self.store.update_message(message_id, status=st.STREAMING, error="")
            path = self.store.messages(conversation_id)
        else:
            message_id = self.store.add_message(
                conversation_id,
                "assistant",
                "",
                status=st.STREAMING,
                model=model.name,
                parent_id=user_id,
            )
            path = self.store.messages(conversation_id)[:-1]
        recorder = ReplyRecorder(self.store, message_id)
        if continuing is not None:
            recorder.text, recorder.reasoning = continuing.content, continuing.reasoning
        reply = Reply(conversation_id, message_id, model.name, recorder, user_id, appended)
        reply.spec = spec
        if self.tools is not None and continuing is None:
            # One result may fill at most a quarter of the context (the rest is said).
            room = int(self._planned_context() * CHARACTERS_PER_TOKEN / 4)
            reply.turn, note = turn_for(self.tools, spec.engine, room)
            if note:
                self.listener.notice(note)
        self.reply = reply
        self.listener.conversation_changed(self)
        self.listener.reply_started(self, reply)
        self._request(reply, path, continuing is not None)
        return reply

    def ask_again(self, reply: Reply) -> None:
        """The next request of a reply that used tools: the model reads their results."""
        assert reply.turn is not None
        reply.turn.new_request()
        self._request(reply, self.store.messages(reply.conversation_id), False)

    def _request(self, reply: Reply, path: list[st.Message], continuing: bool) -> None:
        params = {**engine_params(self.values()), **self.extra_params}
        if reply.turn is not None:
            params.update(reply.turn.params())
        callback = self._deliver(lambda event: self._handle(reply, event))
        assert reply.spec is not None
        try:
            messages = engine_messages(
                path,
                self.system_prompt,
                include_reasoning=bool(self.settings.get("chat.send_reasoning")),
                pictures=self.store.pictures.part,
            )
            if too_many := images.limits_problem(messages):
                raise PictureMissing(too_many)
            reply.job = self.seat.chat(
                reply.spec, messages, params, callback, continue_reply=continuing
            )
        except PictureMissing as exc:  # said as it is: what is gone, and what to do
            self._finish(
                reply,
                {
                    "type": protocol.ERROR,
                    "kind": protocol.ERR_BAD_REQUEST,
                    **to_wire(message_of(exc)),
                },
            )
        except Exception as exc:
            log.error("could not start the engine", exc_info=exc)
            self._finish(
                reply,
                {
                    "type": protocol.ERROR,
                    "kind": protocol.ERR_ENGINE,
                    **to_wire(Phrase("The model engine could not be started: {0}", exc)),
                },
            )

    def _take(self, reply: Reply, step: Step | None) -> None:
        """Do what the reply's tool flow says comes next."""
        if isinstance(step, AskAgain):
            self.ask_again(reply)
        elif isinstance(step, AwaitPerson):
            self._tools_heard().tool_approval(self, reply, step.call)
        elif isinstance(step, Running):
            call = step.call
            # A "done" event: a front end's relay of events ends with it (one per call).
            done = self._deliver(
                lambda _event: self._take(reply, self._tool_flow.finished(reply, call))
            )
            step.future.add_done_callback(lambda _f: done({"type": protocol.DONE}))

    def _tools_heard(self) -> SessionListener:
        """Who hears about the tools: the tool listener, else the listener."""
        return self.tool_listener or self.listener

    def _handle(self, reply: Reply, event: dict[str, Any]) -> None:
        """One event of ``reply`` (deltas may come merged), on the session's thread."""
        if reply is not self.reply:
            return  # a reply that was abandoned: its late events change nothing
        kind = event["type"]
        listener = self.listener
        if kind == protocol.DELTA:
            if reply.stopping:
                return
            self._delta(reply, event)
        elif kind == protocol.PROGRESS:
            listener.engine_progress(float(event.get("fraction", 0.0)), str(event.get("stage")))
        elif kind == protocol.LOADED:
            listener.engine_loaded(event)
        elif kind == protocol.NOTICE and event.get("message"):
            listener.notice(from_wire(event))
        elif kind == protocol.STATS:
            reply.stats = {k: v for k, v in event.items() if k not in ("type", "id")}
            listener.reply_stats(self, reply, reply.stats)
        if kind == protocol.DONE and reply.turn is not None and not reply.stopping:
            cut = event.get("finish_reason") == protocol.FINISH_LENGTH
            rest, calls = self._tool_flow.end_of_text(reply, cut)
            if rest:
                self.show_text(reply, rest)
            step = self._tool_flow.round(reply, calls)
            if step is not None:
                self._take(reply, step)
                return  # the reply goes on with its tools' results: its end is the last round's
        listener.engine_event(self, reply, event)
        if kind in (protocol.DONE, protocol.ERROR):
            self._finish(reply, event)

    def _delta(self, reply: Reply, event: dict[str, Any]) -> None:
        now = time.monotonic()
        if event.get(protocol.MOVED_TO_REASONING):
            reply.recorder.answer_was_reasoning()
            self.listener.reply_moved_to_reasoning(self, reply)
        reasoning = str(event.get("reasoning") or "")
        if reasoning:
            reply.think_started = reply.think_started or now
            self._save(reply, lambda: reply.recorder.append_reasoning(reasoning))
            self.listener.reply_reasoning(self, reply, reasoning)
        text = str(event.get("text") or "")
        if text and reply.turn is not None:
            text = reply.turn.feed(text)  # never half a tool call as text
        if text:
            if reply.think_started and reply.thinking_s is None and text.strip():
                reply.thinking_s = round(now - reply.think_started, 1)
            self._save(reply, lambda: reply.recorder.append(text))
            self.listener.reply_text(self, reply, text)

    def show_text(self, reply: Reply, text: str) -> None:
        """Text of the reply that was held back while a tool call could begin."""
        self._save(reply, lambda: reply.recorder.append(text))
        self.listener.reply_text(self, reply, text)

    def _save(self, reply: Reply, write: Callable[[], None]) -> None:
        """Save streamed text; a failure (disk full) is said once and streaming goes on."""
        try:
            write()
        except Exception as exc:  # noqa: BLE001 - reported through the listener
            if not reply.save_failed:
                reply.save_failed = True
                self.listener.problem(exc, SAVING_REPLY)

    def _finish(self, reply: Reply, final: dict[str, Any]) -> None:
        if reply.finished:
            return  # ended already (abandoned, then the engine's own end arrived)
        held = reply.turn.held_text() if reply.turn is not None else ""  # before Esc, an error
        if held:
            self._save(reply, lambda: reply.recorder.append(held))
        self.reply = None
        done = final.get("type") == protocol.DONE
        reply.final = final
        reply.status = st.STOPPED if reply.stopping and done else status_for(final)
        reply.error = from_wire(final) if final.get("type") == protocol.ERROR else ""
        if reply.think_started:
            seconds = reply.thinking_s
            if seconds is None:
                seconds = round(time.monotonic() - reply.think_started, 1)
            reply.stats["thinking_s"] = seconds
        # said once, however many writes failed
        self._save(reply, lambda: reply.recorder.finish(reply.status, reply.stats, reply.error))
        self.listener.conversation_changed(self)
        self.listener.reply_ended(self, reply)
