"""Server addresses as people type them (the window's endpoints, ``hearth chat --endpoint``)."""

from wire.urls import api_base


def test_an_address_without_scheme_or_v1_means_the_http_v1_api() -> None:
    assert api_base("localhost:8765") == "http://localhost:8765/v1"
    assert api_base(" http://host:8000/ ") == "http://host:8000/v1"
    assert api_base("https://example.org/v1/") == "https://example.org/v1"
