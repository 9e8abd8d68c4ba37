"""Class 15: a server beyond the machine cannot hold Hearth, fill its memory or send it
elsewhere.

The update check and the catalogue's check of the hubs each read one answer within an
overall deadline (not a per-read timeout that every byte restarts), stop reading past a
size cap, and follow redirects only on the same host without leaving https.  Each case
ends with a sentence, never a KeyError's text.
"""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler

import pytest

from app import updates
from app.bounded_http import redirect_refused
from app.errors import HearthError
from app.hub import huggingface, modelscope
from tests.hostile.loopback import Answer, stopping


def one_byte_at_a_time(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", "1000000")
    handler.end_headers()
    while not stopping(handler):
        handler.wfile.write(b" ")
        handler.wfile.flush()
        time.sleep(0.2)


def endless(handler: BaseHTTPRequestHandler) -> None:
    """A chunked answer that never ends (no Content-Length to refuse it by)."""
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    block = b"[" * 65536
    while not stopping(handler):
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(block), block))


def declared_huge(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Length", str(2 * 1024**3))
    handler.end_headers()
    handler.wfile.write(b"{")


def redirect_to(target: str) -> Answer:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(302)
        handler.send_header("Location", target + handler.path)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    return answer


def empty_object(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", "2")
    handler.end_headers()
    handler.wfile.write(b"{}")


# -- the update check ------------------------------------------------------------------


def test_a_feed_that_sends_a_byte_at_a_time_ends_at_the_deadline(serve: Callable) -> None:
    feed = serve(one_byte_at_a_time)
    with pytest.raises(updates.UpdateCheckFailed, match="too slowly"):
        updates.check(feed.url() + "/releases/latest", timeout=1.5)


def test_the_update_check_follows_no_redirect_to_another_host(serve: Callable) -> None:
    elsewhere = serve(empty_object)
    feed = serve(redirect_to(elsewhere.url("localhost")))
    with pytest.raises(updates.UpdateCheckFailed, match="another server"):
        updates.check(feed.url() + "/releases/latest")
    assert elsewhere.requests == []


def test_no_redirect_leaves_https_or_the_web() -> None:
    assert redirect_refused("https://api.github.com/a", "http://api.github.com/a")
    assert redirect_refused("https://api.github.com/a", "file:///etc/passwd")
    assert redirect_refused("https://api.github.com/a", "https://evil.example/a")
    assert redirect_refused("https://api.github.com/a", "https://api.github.com/b") is None
    assert redirect_refused("http://127.0.0.1:8/a", "https://127.0.0.1:8/b") is None


# -- the catalogue's check of a hub ----------------------------------------------------


@pytest.mark.parametrize("answer", [endless, declared_huge], ids=["chunked", "declared"])
def test_a_huge_listing_is_refused_without_reading_it(serve: Callable, answer: Answer) -> None:
    hub = serve(answer)
    with pytest.raises(HearthError, match="larger than 32 MB"):
        huggingface.list_files("acme/tiny", endpoint_url=hub.url(), anonymous=True)


def test_a_slow_hub_ends_at_the_deadline(serve: Callable, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(huggingface, "LISTING_DEADLINE_S", 1.5)
    hub = serve(one_byte_at_a_time)
    with pytest.raises(HearthError, match="too slowly"):
        huggingface.list_files("acme/tiny", endpoint_url=hub.url(), anonymous=True)


def test_a_hub_redirect_to_another_host_is_not_followed(serve: Callable) -> None:
    elsewhere = serve(empty_object)
    hub = serve(redirect_to(elsewhere.url("localhost")))
    with pytest.raises(HearthError, match="another server"):
        huggingface.list_files("acme/tiny", endpoint_url=hub.url(), anonymous=True)
    assert elsewhere.requests == []


def test_an_answer_that_is_no_listing_is_said_in_words(serve: Callable) -> None:
    hub = serve(empty_object)
    with pytest.raises(HearthError, match="could not be read") as raised:
        huggingface.list_files("acme/tiny", endpoint_url=hub.url(), anonymous=True)
    assert "'id'" not in str(raised.value)


def headers_a_byte_at_a_time(handler: BaseHTTPRequestHandler) -> None:
    """Each read arrives within the read timeout: only an overall deadline ends it."""
    for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 10_000:
        if stopping(handler):
            return
        handler.wfile.write(bytes([byte]))
        handler.wfile.flush()
        time.sleep(0.2)


def gzip_listing(handler: BaseHTTPRequestHandler) -> None:
    listing = {"id": "acme/tiny", "siblings": [{"rfilename": "tiny.Q4_K_M.gguf", "size": 1234}]}
    body = gzip.compress(json.dumps(listing).encode())
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Encoding", "gzip")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def test_headers_sent_a_byte_at_a_time_end_at_the_deadline(serve: Callable) -> None:
    feed = serve(headers_a_byte_at_a_time)
    with pytest.raises(updates.UpdateCheckFailed, match="too slowly"):
        updates.check(feed.url() + "/releases/latest", timeout=1.5)


def test_a_compressed_listing_is_read(serve: Callable) -> None:
    hub = serve(gzip_listing)
    files = huggingface.list_files("acme/tiny", endpoint_url=hub.url(), anonymous=True)
    assert [(f.path, f.size) for f in files] == [("tiny.Q4_K_M.gguf", 1234)]


def test_a_slow_modelscope_listing_ends_at_the_deadline(
    serve: Callable, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(modelscope, "LISTING_DEADLINE_S", 1.5)
    hub = serve(one_byte_at_a_time)
    with pytest.raises(HearthError, match="too slowly"):
        modelscope.list_files("acme/tiny", endpoint_url=hub.url(), anonymous=True)
