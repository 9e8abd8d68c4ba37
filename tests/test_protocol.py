import io

import pytest

from wire import protocol


def test_messages_survive_the_wire_with_newlines_and_unicode() -> None:
    message = {"type": "delta", "id": 7, "text": "line one\nline two 你好 🎉"}
    line = protocol.encode(message)
    assert line.count(b"\n") == 1 and line.endswith(b"\n")
    assert protocol.read_message(io.BytesIO(line)) == message


def test_end_of_stream_is_none() -> None:
    assert protocol.read_message(io.BytesIO(b"")) is None


@pytest.mark.parametrize("line", [b"not json\n", b"[1, 2]\n", b'{"no_type": 1}\n', b"\xff\xfe\n"])
def test_garbage_is_a_protocol_error(line: bytes) -> None:
    with pytest.raises(protocol.ProtocolError):
        protocol.decode(line)
