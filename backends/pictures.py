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
                upright = ImageOps.exif_transpose(picture).convert("RGB")  # the first frame
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
