"""Make the tests' tiny vision model, offline: a SmolVLM-shaped (Idefics3) checkpoint with
random weights, saved with transformers, then converted by the converter that ships in
llama.cpp's source into a text GGUF and its projector (``mmproj-*.gguf``).

Why this model: SmolVLM's text side is SmolLM2, the starter's family, so its tokenizer is
read from the starter GGUF (no download), and llama.cpp's converter and libmtmd both know
the family (projector type ``idefics3``).  Its answers are noise; what tests check is that
an image reaches the model: the prompt grows by the image's tokens, and two different
images give different greedy replies, on both engines.

Shape (small enough to build in about half a minute on 2 cores):

* text: a random Llama, hidden 64, 2 layers, 4 heads (2 for keys and values), SmolLM2's
  tokenizer plus SmolVLM's image tokens; weights drawn wide (gain 2, embeddings of unit
  spread) so that the random model does not just echo its last token whatever it sees;
* vision: a random SigLIP, tiles of 128 pixels in patches of 16, 2 layers, hidden 64;
  pixel shuffle 2 gives 16 tokens a tile; an image is split in at most 2×2 tiles plus the
  whole at one tile's size;
* the connector is scaled to the word embeddings' spread, so images steer the reply.

Output, in OUT: ``hf/`` (the transformers checkpoint with its processor),
``tiny-smolvlm-f16.gguf``, ``mmproj-tiny-smolvlm-f16.gguf`` and ``.built`` last.  The
converter comes from the llama-cpp-python sdist of the installed version (downloaded once
into ``OUT/src`` by pip, or taken from ``--source DIR``).

Usage: python -m tests.tools.make_vision_model OUT [--source LLAMA_CPP_PYTHON_SDIST_DIR]
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

# SmolVLM-256M-Instruct's chat template: content parts, "<image>" where an image goes.
CHAT_TEMPLATE = (
    "<|im_start|>{% for message in messages %}{{message['role'] | capitalize}}"
    "{% if message['content'][0]['type'] == 'image' %}{{':'}}{% else %}{{': '}}{% endif %}"
    "{% for line in message['content'] %}{% if line['type'] == 'text' %}{{line['text']}}"
    "{% elif line['type'] == 'image' %}{{ '<image>' }}{% endif %}{% endfor %}"
    "<end_of_utterance>\n{% endfor %}{% if add_generation_prompt %}{{ 'Assistant:' }}{% endif %}"
)
TILE, PATCH, SHUFFLE = 128, 16, 2
TOKENS_PER_TILE = (TILE // PATCH) ** 2 // SHUFFLE**2  # 16
IMAGE_TOKENS = ["<fake_token_around_image>", "<image>", "<end_of_utterance>", "<global-img>"]
IMAGE_TOKENS += [f"<row_{i}_col_{j}>" for i in range(1, 7) for j in range(1, 7)]
TEXT_MODEL = "tiny-smolvlm-f16.gguf"
PROJECTOR = "mmproj-tiny-smolvlm-f16.gguf"


def make_checkpoint(folder: Path) -> None:
    """The random checkpoint, its processor and tokenizer, saved with transformers."""
    import torch
    from transformers import (
        AutoTokenizer,
        Idefics3Config,
        Idefics3ForConditionalGeneration,
        Idefics3ImageProcessor,
        Idefics3Processor,
        LlamaConfig,
    )

    from app.models.library import starter_model_path

    starter = starter_model_path()
    assert starter is not None, "the starter model package is not installed"
    torch.manual_seed(0)
    tokenizer = AutoTokenizer.from_pretrained(str(starter.parent), gguf_file=starter.name)
    tokenizer.add_special_tokens({"additional_special_tokens": IMAGE_TOKENS})
    tokenizer.chat_template = CHAT_TEMPLATE
    text = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=8192,
        rms_norm_eps=1e-5,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    text.architectures = ["LlamaForCausalLM"]  # the converter picks the text class by it
    config = Idefics3Config(
        text_config=text.to_dict(),
        vision_config={
            "hidden_size": 64,
            "intermediate_size": 128,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "image_size": TILE,
            "patch_size": PATCH,
        },
        scale_factor=SHUFFLE,
        image_token_id=tokenizer.vocab["<image>"],
        tie_word_embeddings=True,
    )
    config.pad_token_id = tokenizer.eos_token_id
    config.architectures = ["Idefics3ForConditionalGeneration"]
    model = Idefics3ForConditionalGeneration(config)  # float32
    with torch.no_grad():
        text_model = model.model.text_model
        for name, weight in text_model.named_parameters():
            if weight.dim() == 2 and "embed" not in name:
                weight.normal_(0, 2.0 / weight.shape[1] ** 0.5)
        text_model.embed_tokens.weight.normal_(0, 1.0)
        spread = text_model.embed_tokens.weight.std().item()
        projection = model.model.connector.modality_projection.proj.weight
        projection.normal_(0, spread / projection.shape[1] ** 0.5)
    model.tie_weights()
    images = Idefics3ImageProcessor(
        size={"longest_edge": 2 * TILE},
        max_image_size={"longest_edge": TILE},
        do_image_splitting=True,
    )
    processor = Idefics3Processor(
        images, tokenizer, image_seq_len=TOKENS_PER_TILE, chat_template=CHAT_TEMPLATE
    )
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    # The converter writes add_bos_token=False only for SmolLM2's own vocabulary size.
    _update_json(folder / "tokenizer_config.json", add_bos_token=False, add_eos_token=False)


def _update_json(path: Path, **values: object) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    data.update(values)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")


def converter_source(out: Path, given: Path | None) -> Path:
    """llama.cpp's source as vendored in the installed llama-cpp-python's sdist."""
    from importlib.metadata import version

    wanted = version("llama-cpp-python")
    if given is not None:
        return given / "vendor" / "llama.cpp"
    unpacked = out / "src" / f"llama_cpp_python-{wanted}"
    if not unpacked.is_dir():
        downloads = out / "src" / "download"
        pip = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"]
        sdist = ["--no-binary", ":all:", "-d", str(downloads), f"llama-cpp-python=={wanted}"]
        subprocess.run([*pip, *sdist], check=True)
        archive_path = downloads / f"llama_cpp_python-{wanted}.tar.gz"
        with tarfile.open(archive_path) as archive:
            # The converter and what it imports, not the 290 MB of llama.cpp's source.
            needed = [m for m in archive.getmembers() if _converter_part(m.name)]
            archive.extractall(out / "src", members=needed, filter="data")
        shutil.rmtree(downloads)
    return unpacked / "vendor" / "llama.cpp"


def _converter_part(name: str) -> bool:
    parts = name.split("/")
    if parts[1:3] != ["vendor", "llama.cpp"] or len(parts) < 4:
        return False
    return parts[3] == "convert_hf_to_gguf.py" or parts[3] in ("conversion", "gguf-py")


def convert(source: Path, checkpoint: Path, out: Path) -> None:
    """The text GGUF, then the projector, by llama.cpp's own converter (which puts its
    vendored gguf-py first: PyPI's gguf of the same number differs)."""
    script = source / "convert_hf_to_gguf.py"
    for extra, name in (([], TEXT_MODEL), (["--mmproj"], PROJECTOR)):
        target = ["--outtype", "f16", "--outfile", str(out / name)]
        done = subprocess.run(
            [sys.executable, str(script), str(checkpoint), *extra, *target],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise SystemExit(f"converting {name} failed:\n{done.stderr[-4000:]}")


def main(argv: list[str]) -> int:
    out = Path(argv[0])
    given = Path(argv[argv.index("--source") + 1]) if "--source" in argv else None
    # Built by this very script already (a fresh clone's newer file time is no change):
    # kept, so that another checkout's tests using it are never pulled from under them.
    stamp = f"tiny SmolVLM-shaped model for the tests\n{_recipe()}\n"
    built = out / ".built"
    if built.is_file() and built.read_text(encoding="utf-8") == stamp:
        built.touch()  # newer than the script again: make asks no more
        return 0
    built.unlink(missing_ok=True)
    checkpoint = out / "hf"
    shutil.rmtree(checkpoint, ignore_errors=True)
    checkpoint.mkdir(parents=True)
    make_checkpoint(checkpoint)
    convert(converter_source(out, given), checkpoint, out)
    built.write_text(stamp, encoding="utf-8")
    return 0


def _recipe() -> str:
    """What the model is made by: this script's own text, hashed."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
