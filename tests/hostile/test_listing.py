"""Class 23: listing the models never waits for the library to be read again.

With thirty models loading on a busy machine, ``/v1/models`` took up to 6.4 s: the offer
was read again on the server's event loop, and every request waited behind it.  Now a
request gets the last offer while a thread reads the new one.
"""

from __future__ import annotations

import threading

import httpx
import pytest

from app import library_offer
from app.library_offer import LibraryOffer
from app.serve.served_models import Offered


def test_the_listing_answers_while_the_library_is_read_again(
    library_server: tuple[int, LibraryOffer], monkeypatch: pytest.MonkeyPatch
) -> None:
    port, offer = library_server
    url = f"http://127.0.0.1:{port}"
    reading, done = threading.Event(), threading.Event()
    read = offer._read

    def slow_read() -> list[Offered]:
        reading.set()
        done.wait(120)  # the library takes as long as the test likes
        return read()

    monkeypatch.setattr(offer, "_read", slow_read)
    monkeypatch.setattr(library_offer, "REFRESH_S", 0.0)
    try:
        first = httpx.get(url + "/v1/models", timeout=30)
        assert reading.wait(60)  # the offer is being read again, on its own thread
        for path, field in (("/v1/models", "data"), ("/api/tags", "models")):
            answer = httpx.get(url + path, timeout=30)  # not held by the read
            assert answer.status_code == 200 and answer.json()[field], answer.text
        assert first.status_code == 200 and first.json()["data"]
    finally:
        done.set()
