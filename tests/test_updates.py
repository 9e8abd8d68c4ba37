"""The update check: off by default, asked once, then at most a GET a day to the releases
feed, told in the status bar and the About box with a link, never acted on by itself.
Driven against a releases feed on 127.0.0.1."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from pytestqt.qtbot import QtBot

from app import __version__, updates
from app.core import Core
from ui.gui import make_application
from ui.main_window import MainWindow


@dataclass
class Feed:
    """A releases feed: what it answers, and the requests it received."""

    body: bytes = b""
    status: int = 200
    requests: list[dict[str, str]] = field(default_factory=list)
    url: str = ""

    def release(self, tag: str) -> None:
        page = f"https://example.org/hearth/releases/tag/{tag}"
        self.body = json.dumps({"tag_name": tag, "html_url": page, "name": tag}).encode()


@pytest.fixture
def feed() -> Iterator[Feed]:
    answers = Feed()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            answers.requests.append(dict(self.headers))
            self.send_response(answers.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answers.body)))
            self.end_headers()
            # A client that stops reading a feed past its limit leaves before the end.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(answers.body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    answers.url = f"http://127.0.0.1:{server.server_address[1]}/releases/latest"
    yield answers
    server.shutdown()
    server.server_close()


def _closed_port_url() -> str:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/releases/latest"


def test_newer_same_and_older_releases(feed: Feed) -> None:
    feed.release("v9.9.9")
    newer = updates.check(feed.url)
    assert newer.newer and newer.latest == "9.9.9"
    assert newer.page == "https://example.org/hearth/releases/tag/v9.9.9"
    feed.release(f"v{__version__}")
    assert not updates.check(feed.url).newer
    feed.release("0.0.1")
    older = updates.check(feed.url)
    assert not older.newer and older.latest == "0.0.1"
    # Only the request: no cookies, no identifiers, not even Hearth's version.
    headers = {name.lower(): value for name, value in feed.requests[0].items()}
    assert headers["user-agent"] == "Hearth"
    assert "cookie" not in headers and __version__ not in json.dumps(feed.requests)


def test_pre_releases_come_before_their_release() -> None:
    assert updates.read_answer({"tag_name": "v1.0.0rc1", "html_url": "https://x"}, "0.9").newer
    assert not updates.read_answer({"tag_name": "1.0.0rc1", "html_url": "https://x"}, "1.0").newer
    assert updates.read_answer({"tag_name": "1.0.1", "html_url": "https://x"}, "1.0rc2").newer


def test_an_unreachable_feed_is_said_in_a_sentence() -> None:
    with pytest.raises(updates.UpdateCheckFailed, match="could not be reached"):
        updates.check(_closed_port_url(), timeout=30)


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (200, b"<html>not json</html>"),
        (200, b'["a list"]'),
        (200, b'{"tag_name": "banana", "html_url": "https://example.org/"}'),
        (200, b'{"tag_name": "v2.0.0", "html_url": "javascript:alert(1)"}'),
        (200, b'{"tag_name": "v2.0.0"}'),
        (200, b'{"tag_name": "v2.0.0", "html_url": "https://x", "draft": true}'),
        (200, b"{" + b'"x": "' + b"y" * 1_100_000 + b'"}'),
        (404, b'{"message": "Not Found"}'),
    ],
    ids=["html", "list", "no-version", "not-https", "no-page", "draft", "huge", "404"],
)
def test_a_malformed_answer_is_refused(feed: Feed, status: int, body: bytes) -> None:
    feed.status, feed.body = status, body
    with pytest.raises(updates.UpdateCheckFailed) as raised:
        updates.check(feed.url)
    expected = "answered 404" if status == 404 else "could not be read"
    assert expected in str(raised.value)


def test_a_build_that_knows_no_releases_page_has_nothing_to_check(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    monkeypatch.delenv(updates.URL_ENV, raising=False)
    assert updates.feed_url(tmp_path) is None
    (tmp_path / updates.RELEASE_FILE).write_text('{"repository": "someone/hearth"}')
    assert updates.feed_url(tmp_path) == (
        "https://api.github.com/repos/someone/hearth/releases/latest"
    )
    (tmp_path / updates.RELEASE_FILE).write_text('{"repository": "../../evil?x="}')
    assert updates.feed_url(tmp_path) is None


# -- in the window ------------------------------------------------------------------------

WAIT_MS = 300_000  # states, not speeds: a busy machine may take minutes


def _window(qtbot: QtBot, core: Core) -> MainWindow:
    make_application()
    window = MainWindow(core, load_on_start=False)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window._painted, timeout=WAIT_MS)
    return window


def test_off_by_default_asked_once_and_a_no_is_kept(
    qtbot: QtBot, core: Core, feed: Feed, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(updates.URL_ENV, feed.url)
    feed.release("v9.9.9")
    assert core.settings.get("updates.check") is False
    window = _window(qtbot, core)
    qtbot.waitUntil(window.update_offer.isVisible, timeout=WAIT_MS)
    assert window.updates.state == "off" and window.updates.requests == 0
    qtbot.mouseClick(window.update_offer.decline_button, _left())
    assert not window.update_offer.isVisible()
    assert core.settings.get("updates.asked") is True
    assert core.settings.get("updates.check") is False
    assert "off" in window.updates.about_line()
    window.close()

    again = _window(qtbot, core)  # the next start asks nothing and checks nothing
    qtbot.waitUntil(lambda: again.updates.started, timeout=WAIT_MS)
    assert not again.update_offer.isVisible() and again.updates.state == "off"
    assert again.updates.requests == 0 and feed.requests == []
    again.close()


def test_an_allowed_check_shows_a_newer_release_with_its_link(
    qtbot: QtBot, core: Core, feed: Feed, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(updates.URL_ENV, feed.url)
    feed.release("v9.9.9")
    window = _window(qtbot, core)
    qtbot.waitUntil(window.update_offer.isVisible, timeout=WAIT_MS)
    qtbot.mouseClick(window.update_offer.allow_button, _left())
    qtbot.waitUntil(lambda: window.updates.state == "newer", timeout=WAIT_MS)
    link = window.updates.link
    assert link.isVisible() and "Hearth 9.9.9 is available" in link.text()
    assert 'href="https://example.org/hearth/releases/tag/v9.9.9"' in link.text()
    assert "9.9.9" in window.updates.about_line()
    assert len(feed.requests) == 1
    window.close()

    # Within a day the next start shows the same news without asking the feed again.
    again = _window(qtbot, core)
    qtbot.waitUntil(lambda: again.updates.started, timeout=WAIT_MS)
    assert again.updates.state == "newer" and again.updates.requests == 0
    assert again.updates.link.isVisible() and len(feed.requests) == 1
    # Off in Settings: the news goes; on again the same day: it is back, still one request.
    core.settings.set("updates.check", False)
    again.updates.settings_changed()
    assert again.updates.state == "off" and not again.updates.link.isVisible()
    core.settings.set("updates.check", True)
    again.updates.settings_changed()
    assert again.updates.state == "newer" and again.updates.link.isVisible()
    assert len(feed.requests) == 1
    again.close()


def test_a_hostile_release_page_stays_a_plain_link(
    qtbot: QtBot, core: Core, feed: Feed, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(updates.URL_ENV, feed.url)
    feed.body = json.dumps(
        {"tag_name": "v9.9.9", "html_url": 'https://x.example/"><b>shouting</b><a href="'}
    ).encode()
    core.settings.set("updates.asked", True)
    core.settings.set("updates.check", True)
    window = _window(qtbot, core)
    qtbot.waitUntil(lambda: window.updates.state == "newer", timeout=WAIT_MS)
    assert "<b>shouting</b>" not in window.updates.link.text()
    assert "&quot;&gt;&lt;b&gt;shouting" in window.updates.link.text()
    window.close()


def test_a_failed_check_is_told_in_the_about_box_only(
    qtbot: QtBot, core: Core, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(updates.URL_ENV, _closed_port_url())
    core.settings.set("updates.asked", True)
    core.settings.set("updates.check", True)
    window = _window(qtbot, core)
    qtbot.waitUntil(lambda: window.updates.state == "failed", timeout=WAIT_MS)
    assert "could not be reached" in window.updates.about_line()
    assert not window.updates.link.isVisible()
    assert not window.error_banner.isVisible()  # not a problem the user must act on
    window.close()

    # A failed attempt counts for "once a day" too: the next start does not ask again.
    again = _window(qtbot, core)
    qtbot.waitUntil(lambda: again.updates.started, timeout=WAIT_MS)
    assert again.updates.state == "later" and again.updates.requests == 0
    assert "less than a day ago" in again.updates.about_line()
    again.close()


def _left() -> object:
    from PySide6.QtCore import Qt

    return Qt.MouseButton.LeftButton
