"""A picture file's pixels, decoded in the worker by Pillow, within limits.

Pillow rather than libmtmd's helper: on a file its decoder cannot read, that helper goes
on to try it as a video by starting ``ffprobe`` on it.  Pillow reads the header before
any pixel, so a picture past ``MAX_PIXELS`` (a small PNG that claims 50,000 × 50,000) is
refused before it is decoded; an animated picture gives its first frame; a photo's EXIF
orientation is applied.  No engine library is imported here (the self-test of a frozen
build checks its Pillow with it).
"""

from __future__ import annotations

from wire.phrases import Phrase

MAX_PIXELS = 40_000_000  # a 40-megapixel photo reads; a decompression bomb does not
# All the pictures a request shows the model, together (eight photos of 25 megapixels).
MAX_REQUEST_PIXELS = 200_000_000
# No projector reads more than this on a side (SmolVLM and Gemma 3 read under 1,600 pixels,
# Qwen2.5-VL up to about 3.2 megapixels): a picture is scaled down to it as it is
# decoded (a JPEG decoded small from the start), so a request of large photos costs
# megabytes, not gigabytes, and the projector's own resizing has less to do.
MAX_SIDE = 2048
FORMATS = ("PNG", "JPEG", "GIF", "BMP", "WEBP")


class VisionError(Exception):
    """The projector or an image could not be used (the message says which)."""


def decode(data: bytes, number: int = 1) -> tuple[int, int, bytes]:
    """A picture file's pixels as RGB rows (width, height, bytes); VisionError in words
    for what is no picture, a kind not read, or one too large."""
    import io
    import warnings

    from PIL import Image, ImageOps

    too_large = VisionError(
        Phrase(
            "Picture {0} has too many pixels to be read (at most {1} million). Make it "
            "smaller first.",
            number,
            MAX_PIXELS // 1_000_000,
        )
    )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            # Only the decoders of the kinds read are tried: no other parser sees the file.
            with Image.open(io.BytesIO(data), formats=list(FORMATS)) as picture:
                kind, (width, height) = picture.format, picture.size
                if kind not in FORMATS:
                    raise VisionError(Phrase("Picture {0} is a {1} file.", number, kind))
                if width * height > MAX_PIXELS:
                    raise too_large
                if kind == "JPEG":
                    picture.draft("RGB", (MAX_SIDE, MAX_SIDE))  # read at a fraction
                upright = ImageOps.exif_transpose(picture).convert("RGB")  # the first frame
                upright.thumbnail((MAX_SIDE, MAX_SIDE), Image.Resampling.BICUBIC)
                return upright.width, upright.height, upright.tobytes()
    except (Image.DecompressionBombWarning, Image.DecompressionBombError) as exc:
        raise too_large from exc
    except (OSError, SyntaxError, ValueError, EOFError) as exc:  # Pillow's "cannot read"
        raise VisionError(
            Phrase(
                "Picture {0} could not be read: it is damaged, or not a PNG, JPEG, GIF, BMP "
                "or WebP file.",
                number,
            )
        ) from exc


def check_request(pictures: list[bytes]) -> None:
    """All of a request's pictures together are at most ``MAX_REQUEST_PIXELS`` (read
    from their headers, before any pixel is decoded); VisionError in words otherwise."""
    import io
    import warnings

    from PIL import Image

    total = 0
    for data in pictures:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", Image.DecompressionBombWarning)
                with Image.open(io.BytesIO(data), formats=list(FORMATS)) as picture:
                    width, height = picture.size
        except (Image.DecompressionBombError, OSError, SyntaxError, ValueError, EOFError):
            continue  # said for that picture, by number, when it is decoded
        total += width * height
    if total > MAX_REQUEST_PIXELS:
        raise VisionError(
            Phrase(
                "The pictures of this conversation have {0} million pixels together; at most "
                "{1} million are read at once. Send fewer or smaller pictures, or start a "
                "new conversation.",
                total // 1_000_000,
                MAX_REQUEST_PIXELS // 1_000_000,
            )
        )
