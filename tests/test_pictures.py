"""Pictures as the worker decodes them for a model (``backends/pictures.py``) and as every
front end checks them first (``wire/images.py``): an animated picture gives its first
frame, a photo is read upright from its EXIF orientation, and what is no picture a model
reads is refused in words before any pixel is decoded."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from backends.pictures import VisionError, decode
from tests.vision_model import bomb, png
from wire import images


def test_an_animated_picture_gives_its_first_frame() -> None:
    frames = [Image.new("RGB", (8, 6), colour) for colour in ((250, 0, 0), (0, 0, 250))]
    animated = io.BytesIO()
    frames[0].save(animated, "GIF", save_all=True, append_images=frames[1:], duration=100)
    width, height, pixels = decode(animated.getvalue())
    assert (width, height) == (8, 6)
    red, green, blue = pixels[0], pixels[1], pixels[2]
    assert red > 200 and blue < 50 and green < 50, "the first frame, red"


def test_a_photo_is_read_upright() -> None:
    """A camera's portrait photo is stored on its side with EXIF orientation 6 (turn it a
    quarter clockwise to show it): the model reads it upright, taller than wide."""
    sideways = Image.new("RGB", (40, 20), (10, 200, 10))
    exif = Image.Exif()
    exif[0x0112] = 6  # Orientation
    photo = io.BytesIO()
    sideways.save(photo, "JPEG", exif=exif.tobytes())
    width, height, _pixels = decode(photo.getvalue())
    assert (width, height) == (20, 40)


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"", "is empty"),
        (b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>', "SVG drawing"),
        (b"%PDF-1.7 not a picture", "not a PNG, JPEG, GIF, BMP or WebP picture"),
        (b"\0" * (images.MAX_IMAGE_BYTES + 1), "pictures of up to 20 MB"),
    ],
    ids=["empty", "svg", "pdf", "too-large"],
)
def test_front_ends_refuse_what_no_model_reads_in_words(data: bytes, words: str) -> None:
    with pytest.raises(images.ImageRefused, match=words):
        images.checked(data, "the file")


def test_a_file_named_like_a_picture_is_judged_by_its_bytes() -> None:
    """A PNG named .jpg is read as the PNG it is; a text file named .png is refused."""
    assert images.kind_of(png((1, 2, 3))) == "png"
    assert images.checked(png((1, 2, 3)), "holiday.jpg")
    with pytest.raises(images.ImageRefused):
        images.checked(b"just some notes", "notes.png")


def test_the_worker_refuses_a_bomb_and_a_tiff_before_decoding() -> None:
    with pytest.raises(VisionError, match="too many pixels"):
        decode(bomb(50_000, 50_000))
    tiff = io.BytesIO()
    Image.new("RGB", (4, 4)).save(tiff, "TIFF")
    with pytest.raises(VisionError, match="could not be read"):
        decode(tiff.getvalue())  # only the kinds read are tried: TIFF's decoder never runs


def test_a_conversation_past_the_limits_is_refused() -> None:
    part = images.image_part(png((9, 9, 9)))
    many = [{"role": "user", "content": [part] * (images.MAX_IMAGES_PER_MESSAGE + 1)}]
    assert "at most 8 go in one message" in str(images.limits_problem(many))
    spread = [{"role": "user", "content": [part] * 4} for _ in range(5)]
    assert "at most 16 are read at once" in str(images.limits_problem(spread))
    assert images.limits_problem([{"role": "user", "content": [part]}]) is None


@pytest.mark.parametrize("kind", ["PNG", "JPEG"])
def test_a_large_picture_is_scaled_down_as_it_is_decoded(kind: str) -> None:
    """No projector reads more than 2048 pixels on a side: a 12-megapixel photo reaches
    it as 2048 x 1536 (a JPEG is decoded small from the start), its shape kept."""
    from backends.pictures import MAX_SIDE

    buffer = io.BytesIO()
    Image.new("RGB", (4096, 3072), (200, 30, 30)).save(buffer, format=kind)
    width, height, pixels = decode(buffer.getvalue())
    assert (width, height) == (MAX_SIDE, MAX_SIDE * 3 // 4)
    assert len(pixels) == width * height * 3
    small = png((1, 2, 3), (300, 200))
    assert decode(small)[:2] == (300, 200), "a small picture is left as it is"
