"""A hub that cannot be reached is said at once, in words, instead of after the hub
client's retries."""

import pytest

from app.errors import HearthError
from app.hub import huggingface, modelscope
from tests.conftest import free_port

PROXIES = ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")


def test_a_name_that_does_not_resolve_is_said_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXIES:
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(HearthError) as failed:
        huggingface.search("qwen", endpoint_url="http://hearth-test-hub.invalid")
    assert "cannot be looked up" in str(failed.value)
    assert "Hugging Face" in str(failed.value)


def test_a_refused_connection_is_said_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXIES:
        monkeypatch.delenv(name, raising=False)
    port = free_port()  # nothing listens there
    with pytest.raises(HearthError) as failed:
        modelscope.list_files("acme/x", endpoint_url=f"http://127.0.0.1:{port}")
    assert "refused" in str(failed.value) and "ModelScope" in str(failed.value)
