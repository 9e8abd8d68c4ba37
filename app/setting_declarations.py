"""Every setting Hearth has, declared once: its type, default, range, label and a
description for people (``DECLARATIONS``).  The settings dialog, validation, the command
line's ranges and every default read elsewhere come from here, so there is no second list
to forget.  The store that reads and writes the values is ``app/settings.py``.
"""

from __future__ import annotations

from app.setting_type import Setting
from wire.defaults import CONTEXT_TOKENS, SAMPLING

DECLARATIONS: tuple[Setting, ...] = (
    Setting(
        "models.directory",
        str,
        "",
        "Models folder",
        "Folder where Hearth looks for and keeps GGUF models. Empty: the 'models' "
        "folder inside Hearth's data folder.",
        empty="the 'models' folder inside Hearth's data folder",
        folder=True,
    ),
    Setting(
        "models.added",
        str,
        "",
        "Other model files and folders",
        "GGUF files or checkpoint folders to use in place, one per line.",
        multiline=True,
    ),
    Setting(
        "models.scan_other_apps",
        bool,
        True,
        "Use models from other apps",
        "List models that the Hugging Face and ModelScope caches, LM Studio, Ollama and "
        "GPT4All already downloaded. They are used where they are, never copied.",
    ),
    Setting(
        "models.default",
        str,
        "",
        "Default model",
        "The model used when none is chosen: Hearth remembers the last one you used. "
        "Empty: the bundled starter model.",
        internal=True,
    ),
    Setting(
        "engine.context_length",
        int,
        CONTEXT_TOKENS,
        "Context length (tokens)",
        "How much conversation the model sees at once. Longer needs more memory. When a "
        "conversation is longer, the oldest messages are left out (the system prompt "
        "is always kept).",
        minimum=256,
        maximum=1_048_576,
    ),
    Setting(
        "engine.memory_budget_gb",
        float,
        0.0,
        "Memory for loaded models (GB)",
        "How much RAM the models Hearth keeps loaded may take together: the chat's, those "
        "the API (`hearth serve`, or Chat › Serve the API) loads, and the documents' "
        "embedding model. When a model does not fit, the least recently used idle one is "
        "unloaded first. 0: four fifths of the memory free when the first model loads. GPU "
        "memory is budgeted from the GPUs' free memory.",
        minimum=0.0,
        maximum=65536.0,
        special="Automatic (4/5 of free memory)",
    ),
    Setting(
        "engine.parallel",
        int,
        4,
        "Replies at once (per model)",
        "How many replies one model writes at the same time: the chat beside other apps "
        "using Hearth's server, or several requests from one app. Each reply has the whole "
        "context length of its own, so the memory for the context is counted this many "
        "times; Hearth uses fewer where more would not fit (GPU first). 1 answers one "
        "request after another. GGUF models only.",
        minimum=1,
        maximum=16,
    ),
    Setting(
        "engine.prompt_cache_on_disk",
        bool,
        False,
        "Keep conversations' prompt cache on disk",
        "Hearth keeps what a model has read of recent conversations in memory, so going "
        "back to one answers at once instead of reading it all again. On: also on disk in "
        "the data folder (up to 4 GB, every model together), for more conversations and "
        "after a restart. GGUF models only.",
        advanced=True,
    ),
    Setting(
        "engine.refuse_unfit",
        bool,
        True,
        "Refuse models that will not fit",
        "Before loading, Hearth estimates the memory a model needs with the chosen context "
        "length and refuses one that cannot fit in this computer's memory, instead of "
        "letting the system run out of memory. Turn this off to try anyway.",
        advanced=True,
    ),
    Setting(
        "engine.threads",
        int,
        0,
        "CPU threads",
        "Threads used for generation. 0 picks the number of physical cores.",
        minimum=0,
        maximum=512,
        advanced=True,
        special="Automatic (physical cores)",
    ),
    Setting(
        "engine.packs_manifest",
        str,
        "",
        "Where llama.cpp runtime packs are listed",
        "The web address, file or folder of the list of llama.cpp runtime packs (CUDA) that "
        "Hearth can add. Read only when you install a pack. Empty: the list published with "
        "this version of Hearth on its release page.",
        empty="the list on this version's release page",
        advanced=True,
    ),
    Setting(
        "engine.packs_mirror",
        str,
        "",
        "Runtime pack mirror",
        "A web address or folder holding copies of the release's runtime packs. Tried first "
        "for the packs, the list's own place after it. The list itself is never read from "
        "the mirror, and every pack is checked against the list's SHA-256 before it is "
        "used, so a mirror cannot change a pack.",
        empty="none: the release page only",
        advanced=True,
        folder=True,
    ),
    Setting(
        "engine.pypi_mirror",
        str,
        "",
        "PyPI mirror for the PyTorch engine",
        "A package index that mirrors PyPI (its simple index, e.g. "
        "https://pypi.tuna.tsinghua.edu.cn/simple), tried first when the PyTorch engine is "
        "installed. Every file is checked against the SHA-256 Hearth's lock file names, so a "
        "mirror cannot change the engine.",
        empty="none: PyPI itself",
        advanced=True,
    ),
    Setting(
        "engine.pytorch_mirror",
        str,
        "",
        "PyTorch index mirror",
        "A copy of the PyTorch index's folders (cpu/, cu130/…, e.g. "
        "https://mirrors.aliyun.com/pytorch-wheels/), tried first for the wheels that come "
        "from download.pytorch.org. Checked against the lock file's SHA-256 like any other.",
        empty="none: download.pytorch.org itself",
        advanced=True,
    ),
    Setting(
        "sampling.temperature",
        float,
        SAMPLING["temperature"],
        "Temperature",
        "Randomness of the reply. 0 always picks the most likely word.",
        minimum=0.0,
        maximum=2.0,
    ),
    Setting(
        "sampling.top_p",
        float,
        SAMPLING["top_p"],
        "Top-p",
        "Only words within this share of probability are considered.",
        minimum=0.0,
        maximum=1.0,
        advanced=True,
    ),
    Setting(
        "sampling.top_k",
        int,
        SAMPLING["top_k"],
        "Top-k",
        "Only the k most likely words are considered. 0 turns this off.",
        minimum=0,
        maximum=1000,
        advanced=True,
        special="Off",
    ),
    Setting(
        "sampling.min_p",
        float,
        SAMPLING["min_p"],
        "Min-p",
        "Words less likely than this fraction of the best one are skipped.",
        minimum=0.0,
        maximum=1.0,
        advanced=True,
        special="Off",
    ),
    Setting(
        "sampling.repeat_penalty",
        float,
        SAMPLING["repeat_penalty"],
        "Repeat penalty",
        "Discourages repeating the same words. 1 turns this off.",
        minimum=0.5,
        maximum=2.0,
        advanced=True,
    ),
    Setting(
        "sampling.max_tokens",
        int,
        0,
        "Maximum reply length (tokens)",
        "0 lets the reply run until the model stops or the context is full.",
        minimum=0,
        maximum=1_048_576,
        special="No limit",
    ),
    Setting(
        "sampling.seed",
        int,
        -1,
        "Seed",
        "The same seed, model and settings give the same reply. -1 picks a new one each time.",
        minimum=-1,
        maximum=2**31 - 1,
        advanced=True,
        special="Random each time",
    ),
    Setting(
        "hub.huggingface_endpoint",
        str,
        "",
        "Hugging Face address",
        "Where Hearth finds Hugging Face models, e.g. a mirror such as https://hf-mirror.com. "
        "Empty: $HF_ENDPOINT, else https://huggingface.co.",
        empty="https://huggingface.co (or $HF_ENDPOINT)",
    ),
    Setting(
        "hub.modelscope_endpoint",
        str,
        "",
        "ModelScope address",
        "Where Hearth finds ModelScope models. Empty: $MODELSCOPE_ENDPOINT, else "
        "https://www.modelscope.cn.",
        empty="https://www.modelscope.cn (or $MODELSCOPE_ENDPOINT)",
    ),
    Setting(
        "hub.refresh_catalog",
        bool,
        False,
        "Check the recommended models on the hub daily",
        "Once a day, ask the hub (ModelScope on a Chinese locale, else Hugging Face) for "
        "today's file names and sizes of the models in Hearth's catalogue, so the "
        "recommendations and their fit are current. Only those repositories are asked for; "
        "nothing about you. Off: the catalogue shipped with Hearth is used until you press "
        "Check the hub on the Models screen.",
    ),
    Setting(
        "hub.catalog_last_attempt",
        float,
        0.0,
        "Last daily catalogue check",
        "When the daily check of the catalogue last tried the hub (seconds since 1970), so "
        "an offline computer does not try again at every start.",
        minimum=0.0,
        internal=True,
    ),
    Setting(
        "server.host",
        str,
        "127.0.0.1",
        "API server address",
        "Where Hearth's API listens (Chat › API server, and `hearth serve` without --host). "
        "127.0.0.1: only programs on this computer can reach it. Another address (0.0.0.0 "
        "for every network) requires an API key.",
    ),
    Setting(
        "server.port",
        int,
        8765,
        "API server port",
        "The port of Hearth's API (Chat › API server, and `hearth serve` without --port).",
        minimum=1,
        maximum=65535,
    ),
    Setting(
        "server.keep_alive_minutes",
        float,
        5.0,
        "Keep idle API models loaded (minutes)",
        "A model that `hearth serve` loaded for a request is unloaded after this long "
        "without requests (a request may ask for another time, as Ollama's keep_alive "
        "does). 0: unload as soon as a request is answered.",
        minimum=0.0,
        maximum=10080.0,
        advanced=True,
        special="Unload at once",
    ),
    Setting(
        "documents.passages",
        int,
        6,
        "Passages per question",
        "How many passages of the chosen collections are given to the model with each "
        "question, the best first (fewer when they do not fit in its context).",
        minimum=1,
        maximum=20,
    ),
    Setting(
        "documents.embedding_model",
        str,
        "",
        "Embedding model for documents",
        "A GGUF embedding model (its name in the library, or a path) whose vectors are "
        "searched beside the words of your documents, to find passages that say the same "
        "thing in other words. It runs in a worker process of its own. Empty: word search "
        "only, which works in every language with no model.",
        empty="none: word search only",
        advanced=True,
    ),
    Setting(
        "tools.max_calls",
        int,
        10,
        "Tool calls per reply",
        "How many tools a model may call while writing one reply (MCP servers and Hearth's "
        "own tools). Past it, calls are not run and the model is asked to answer with what "
        "it has.",
        minimum=1,
        maximum=100,
        advanced=True,
    ),
    Setting(
        "tools.call_timeout_s",
        int,
        60,
        "Tool call time limit (seconds)",
        "How long a tool may take to answer before its call is stopped and the model is "
        "told it timed out.",
        minimum=1,
        maximum=3600,
        advanced=True,
    ),
    Setting(
        "downloads.parallel",
        int,
        2,
        "Downloads at once",
        "How many files download at the same time; the others wait in the queue.",
        minimum=1,
        maximum=8,
    ),
    Setting(
        "downloads.connections",
        int,
        8,
        "Connections at once",
        "How many connections the downloads open together: a file comes as several pieces "
        "at once, since a hub gives each connection only part of the line's speed. The "
        "files downloading at once share them. A server that says it is busy gets fewer.",
        minimum=1,
        maximum=32,
        advanced=True,
    ),
    Setting(
        "downloads.limit_mb_s",
        float,
        0.0,
        "Download speed limit (MB/s)",
        "The most all downloads together may take from the network each second, to leave "
        "room for other programs. 0: no limit.",
        minimum=0.0,
        maximum=10000.0,
        advanced=True,
        special="No limit",
    ),
    Setting(
        "chat.send_reasoning",
        bool,
        False,
        "Send the model's thinking back to it",
        "Reasoning models (DeepSeek-R1, QwQ…) write their thinking before the answer. By "
        "default only the answers are sent back in later turns, as their authors advise; "
        "this also sends the thinking (it fills the context faster).",
        advanced=True,
    ),
    Setting(
        "appearance.theme",
        str,
        "system",
        "Theme",
        "Light or dark; 'system' follows the operating system.",
        choices=("system", "light", "dark"),
    ),
    Setting(
        "appearance.font_size",
        int,
        0,
        "Conversation font size (points)",
        "Size of the text in conversations and the message box. 0 uses the system size.",
        minimum=0,
        maximum=48,
        special="System size",
    ),
    Setting(
        "appearance.wrap_code",
        bool,
        False,
        "Wrap long code lines",
        "Off: a long code line stays one line and scrolls inside its block (Shift+wheel, a "
        "sideways swipe, or the block's scroll bar). On: it wraps, and the code is text you "
        "can select in part, move through with the keyboard and have read aloud.",
    ),
    Setting(
        "appearance.language",
        str,
        "system",
        "Language",
        "Language of Hearth's windows; 'system' follows the operating system. Takes effect "
        "the next time Hearth starts.",
        choices=("system", "en", "zh_CN"),
    ),
    Setting(
        "window.geometry",
        str,
        "",
        "Window position and size",
        "Restored when Hearth starts.",
        internal=True,
    ),
    Setting(
        "window.splitter",
        str,
        "",
        "Sidebar width",
        "Restored when Hearth starts.",
        internal=True,
    ),
    Setting(
        "updates.check",
        bool,
        False,
        "Check for new versions of Hearth",
        "Once a day, ask where Hearth is released whether a newer version is out, and say so "
        "in the status bar and the About box. Only that request is sent: nothing about you, "
        "your chats or your models. Hearth never downloads or installs anything by itself.",
    ),
    Setting(
        "updates.asked",
        bool,
        False,
        "Asked about update checks",
        "Whether the first start has asked if Hearth may check for new versions.",
        internal=True,
    ),
    Setting(
        "updates.last_check",
        float,
        0.0,
        "Last update check",
        "When Hearth last asked for new versions (seconds since 1970), so it asks once a day.",
        minimum=0.0,
        internal=True,
    ),
    Setting(
        "updates.latest",
        str,
        "",
        "Latest release",
        "The version the last update check found, and its page: shown until the next check.",
        internal=True,
    ),
    Setting(
        "updates.page",
        str,
        "",
        "Latest release's page",
        "The web page of the release the last update check found.",
        internal=True,
    ),
    Setting(
        "chat.system_prompt",
        str,
        "",
        "Instructions for new conversations",
        "Instructions given to the model at the start of every new conversation (the "
        "system prompt); each conversation can change its own under Chat › Instructions.",
        multiline=True,
    ),
)

BY_KEY: dict[str, Setting] = {s.key: s for s in DECLARATIONS}


def lowest(key: str) -> float:
    """The smallest value the declaration allows (for ranges written elsewhere: the command
    line, the API)."""
    minimum = BY_KEY[key].minimum
    assert minimum is not None, key
    return minimum


def highest(key: str) -> float:
    maximum = BY_KEY[key].maximum
    assert maximum is not None, key
    return maximum
