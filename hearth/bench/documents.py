"""``hearth bench --docs``: how well and how fast documents are found.

A corpus is generated here (seeded, so every run is the same): documents in English and
Chinese, each stating one fact once among sentences that reuse the same names and words
(distractors), and for each fact a question worded differently from it.  Measured:

* recall@5 of BM25 alone, and of hybrid search (BM25 fused with the vectors of an
  embedding model; the starter model in embedding mode when no other is named);
* query latency p95 over an index of at least 10,000 passages (search only, and the time
  to embed the question apart);
* indexing throughput in MB of text per second, through the real extraction process;
* the same throughput and passage counts for a real folder (``--docs-corpus``, such as the
  HTML Python documentation of the ``python3-doc`` package).
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.docs.chunking import Passage
from app.docs.index import DocumentIndex
from app.docs.indexer import Embedder
from app.docs.library import Documents
from app.docs.retrieval import Retriever

SEED = 20261201
_NAMES = {
    "places": """Aldmoor|Brightwater|Caskfell|Dunmere|Eastholm|Fernvale|Greywick|Harrowgate|Ivydale|
        Juniper Bay|Kestrel Point|Lowmarsh|Millbrook|Northcliff|Oakhaven|Pinecrest|Queensford|
        Ravenhill|Stonebridge|Thornbury""",
    "things": """observatory|library|bakery|lighthouse|museum|brewery|school of music|
        botanical garden|clock tower|ferry company|printing house|glassworks|chess club|
        hospital|weaving mill|fire brigade|orchestra|zoo|bank|theatre""",
    "people": """Ada Quill|Bram Holt|Cora Finch|Dov Marsh|Edda Lark|Finn Roe|Gwen Tarr|Hugo Vale|
        Iris Penn|Jory Wren|Kaia Moss|Lev Birch|Mira Stone|Nils Crane""",
    "zh_places": """青石镇|白鹭湾|松风岭|云溪村|落霞城|金沙港|柳岸镇|梅花坞|清泉县|雁门关|桃源乡|
        龙泉镇|凤凰城|碧水湾|红枫岭|银杏村|望江县|石门镇|海棠湾|竹林坳""",
    "zh_things": """天文台|图书馆|面包房|灯塔|博物馆|酿酒厂|音乐学院|植物园|钟楼|渡轮公司|印刷厂|
        医院|棋社|纺织厂|消防队|动物园""",
    "zh_people": "王明远|李思雨|张晓峰|陈雪梅|刘海涛|赵一鸣|孙丽华|周文博|吴静怡|郑国强",
}


def _names(key: str) -> list[str]:
    return [name.strip() for name in _NAMES[key].split("|")]


PLACES, THINGS, PEOPLE = _names("places"), _names("things"), _names("people")
ZH_PLACES, ZH_THINGS, ZH_PEOPLE = _names("zh_places"), _names("zh_things"), _names("zh_people")
FILLER = (
    "The weather in {place} was mild that year. Visitors often praised the {thing} of "
    "{other}. Local records mention {person} in several letters. Trade along the river grew "
    "steadily. The council met every second Tuesday. Many families kept gardens behind "
    "their houses. Travellers arrived by coach and stayed at the inn near the square."
)
ZH_FILLER = (
    "那一年{place}的天气很温和。游客常常称赞{other}的{thing}。当地的记录在几封信中提到了{person}。"
    "沿河的贸易稳步增长。议会每隔一个星期二开会。许多家庭在房子后面种了花园。"
)


@dataclass
class Case:
    file: str
    fact: str
    question: str


@dataclass
class DocsFigures:
    documents: int
    questions: int
    recall_bm25: tuple[float, float, float]  # all, English, Chinese
    recall_hybrid: tuple[float, float, float] | None
    hybrid_model: str
    index_mb_s: float
    query_p95_ms: float
    query_p95_hybrid_ms: float | None
    embed_question_ms: float | None
    passages_for_latency: int
    corpus_files: int = 0
    corpus_mb: float = 0.0
    corpus_mb_s: float = 0.0
    corpus_passages: int = 0
    corpus_skipped: int = 0
    indexing_stall_ms: float = 0.0
    indexing_1000_files_s: float = 0.0


def make_corpus(folder: Path, count: int = 600) -> list[Case]:
    """``count`` documents (half English, half Chinese), one fact each, and the questions."""
    rng = random.Random(SEED)
    folder.mkdir(parents=True, exist_ok=True)
    cases: list[Case] = []
    used: set[tuple[str, str]] = set()
    for number in range(count):
        chinese = number % 2 == 1
        places, things, people = (
            (ZH_PLACES, ZH_THINGS, ZH_PEOPLE) if chinese else (PLACES, THINGS, PEOPLE)
        )
        free = [(p, t) for p in places for t in things if (p, t) not in used]
        if not free:
            raise ValueError("the corpus has more documents than distinct facts")
        place, thing = rng.choice(free)
        used.add((place, thing))
        person, year = rng.choice(people), rng.randint(1500, 1999)
        filler = ZH_FILLER if chinese else FILLER
        padding = [
            filler.format(
                place=rng.choice(places),
                thing=rng.choice(things),
                other=rng.choice(places),
                person=rng.choice(people),
            )
            for _ in range(2)
        ]
        if chinese:
            fact = f"{place}的{thing}由{person}于{year}年创立。"
            question = f"{place}的{thing}是谁创立的？"
        else:
            fact = f"The {thing} of {place} was founded in {year} by {person}."
            question = f"Who founded the {thing} in {place}, and when?"
        at = rng.randint(0, len(padding))
        body = "\n\n".join([*padding[:at], fact, *padding[at:]])
        name = f"doc{number:04d}.txt"
        (folder / name).write_text(body, encoding="utf-8")
        cases.append(Case(name, fact, question))
    return cases


def recall_at(
    retriever: Retriever, collection: str, cases: list[Case], k: int = 5
) -> tuple[float, float, float]:
    """recall@k over all questions, the English ones and the Chinese ones."""
    found: list[bool] = []
    for case in cases:
        hits = retriever.search([collection], case.question, k)
        found.append(any(case.fact in hit.text and hit.file.endswith(case.file) for hit in hits))
    english, chinese = found[0::2], found[1::2]
    return sum(found) / len(found), sum(english) / len(english), sum(chinese) / len(chinese)


def _p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def latency(
    index: DocumentIndex, embedder: Embedder | None, questions: list[str]
) -> tuple[float, float | None, float | None, int]:
    """p95 of searches over an index grown to 10,000+ passages (words; words and vectors),
    and the median time to embed a question."""
    rng = random.Random(SEED + 1)
    words = [w for text in (FILLER, ZH_FILLER) for w in text.split()]
    total = index.db.execute("SELECT count(*) FROM chunks").fetchone()[0]
    batch = 0
    while total < 10_000:
        rows = [
            Passage(" ".join(rng.choice(words) for _ in range(60)), None, "", ordinal)
            for ordinal in range(100)
        ]
        index.record_indexed("latency", f"filler{batch}.txt", "text", 1, 1, f"x{batch}", rows)
        total += len(rows)
        batch += 1
    collections = ["bench", "latency"]
    words_only = Retriever(index)
    timings = []
    for question in questions:
        started = time.perf_counter()
        words_only.search(collections, question, 5)
        timings.append((time.perf_counter() - started) * 1000)
    hybrid_p95 = embed_ms = None
    if embedder is not None:
        vectors = index.vectors(["bench"], embedder.name)
        if vectors:
            width = len(vectors[0][1])
            filler_ids = [
                int(r[0])
                for r in index.db.execute(
                    "SELECT chunks.id FROM chunks JOIN files ON files.id = chunks.file_id"
                    " WHERE files.collection = 'latency'"
                )
            ]
            noise = np.random.default_rng(SEED).standard_normal((len(filler_ids), width // 4))
            noise /= np.linalg.norm(noise, axis=1, keepdims=True)
            blobs = noise.astype(np.float32)
            index.store_vectors(
                embedder.name, [(i, blobs[n].tobytes()) for n, i in enumerate(filler_ids)]
            )
        fixed = _FixedQuestion(embedder)
        hybrid = Retriever(index, fixed)
        hybrid.search(collections, questions[0], 5)  # the vector matrix is made once
        hybrid_timings, embed_timings = [], []
        for question in questions[:50]:
            started = time.perf_counter()
            fixed.vector = embedder.embed([question])[0]
            embed_timings.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            hybrid.search(collections, question, 5)
            hybrid_timings.append((time.perf_counter() - started) * 1000)
        hybrid_p95 = _p95(hybrid_timings)
        embed_ms = statistics.median(embed_timings)
    return _p95(timings), hybrid_p95, embed_ms, total


class _FixedQuestion:
    """The embedder with the question's vector made beforehand (to time search alone)."""

    def __init__(self, embedder: Embedder) -> None:
        self.inner = embedder
        self.vector: list[float] = []

    @property
    def name(self) -> str:
        return self.inner.name

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.vector] if self.vector else self.inner.embed(texts)


def measure(
    scratch: Path, embedder: Embedder | None, model_name: str, corpus: Path | None, say: object
) -> DocsFigures:
    tell = say if callable(say) else (lambda _t: None)
    cases = make_corpus(scratch / "corpus")
    documents = Documents(scratch / "data")
    megabytes = sum(p.stat().st_size for p in (scratch / "corpus").iterdir()) / 1e6
    started = time.perf_counter()
    documents.add("bench", [scratch / "corpus"])
    index_s = time.perf_counter() - started
    tell(f"  indexed {len(cases)} documents ({megabytes:.2f} MB) in {index_s:.1f} s")
    recall_bm25 = recall_at(documents.retriever, "bench", cases)
    tell("  recall@5, BM25: {:.3f} (English {:.3f}, Chinese {:.3f})".format(*recall_bm25))
    recall_hybrid = None
    if embedder is not None:
        documents.embedder = embedder
        started = time.perf_counter()
        with documents.extractor() as extractor:
            from app.docs.indexer import Indexer

            Indexer(documents.index, extractor, embedder).embed_missing("bench")
        tell(f"  embedded the passages with {model_name} in {time.perf_counter() - started:.1f} s")
        recall_hybrid = recall_at(documents.retriever, "bench", cases)
        tell("  recall@5, hybrid: {:.3f} (English {:.3f}, Chinese {:.3f})".format(*recall_hybrid))
    p95, hybrid_p95, embed_ms, total = latency(
        documents.index, embedder, [c.question for c in cases[:200]]
    )
    figures = DocsFigures(
        len(cases),
        len(cases),
        recall_bm25,
        recall_hybrid,
        model_name if embedder else "",
        megabytes / index_s,
        p95,
        hybrid_p95,
        embed_ms,
        total,
    )
    figures.indexing_stall_ms, figures.indexing_1000_files_s = indexing_stalls(scratch)
    tell(
        f"  the Documents screen indexed 1,000 files in {figures.indexing_1000_files_s:.1f} s; "
        f"longest stall of the window {figures.indexing_stall_ms:.1f} ms"
    )
    if corpus is not None:
        documents.embedder = None  # words only: the throughput of reading and indexing
        started = time.perf_counter()
        report = documents.add("corpus", [corpus])
        elapsed = time.perf_counter() - started
        counts = documents.index.counts("corpus")
        figures.corpus_files = counts.indexed
        figures.corpus_mb = report.progress.bytes_total / 1e6
        figures.corpus_mb_s = figures.corpus_mb / elapsed
        figures.corpus_passages = counts.chunks
        figures.corpus_skipped = counts.skipped + counts.failed
        tell(f"  {corpus}: {counts.indexed} files, {figures.corpus_mb:.1f} MB in {elapsed:.1f} s")
    documents.index.close()
    return figures


def indexing_stalls(scratch: Path, files: int = 1000) -> tuple[float, float]:
    """The Qt main thread's longest stall (ms) while the Documents screen indexes a folder
    of ``files`` files in the background, and how long the indexing took (s)."""
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QEventLoop, QTimer

    from hearth.bench.stalls import StallMonitor
    from ui.documents.documents_screen import DocumentsScreen
    from ui.documents.indexing import Indexing
    from ui.gui import make_application

    make_application()
    folder = scratch / "stall-folder"
    for number in range(files):
        sub = folder / f"part{number // 100}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"note{number:04d}.md").write_text(
            f"# Note {number}\n\n"
            + FILLER.format(place="Aldmoor", thing="zoo", other="Oakhaven", person="Ada Quill"),
            encoding="utf-8",
        )
    documents = Documents(scratch / "stall-data")
    indexing = Indexing(documents)
    screen = DocumentsScreen(documents, indexing)
    screen.resize(1000, 700)
    screen.show()
    loop = QEventLoop()
    indexing.idle.connect(loop.quit)
    QTimer.singleShot(600_000, loop.quit)
    stalls = StallMonitor()
    stalls.start()
    started = time.perf_counter()
    screen.new_collection("stalls", str(folder))
    loop.exec()
    elapsed = time.perf_counter() - started
    stalls.stop()
    indexing.close()
    screen.deleteLater()
    documents.index.close()
    return stalls.longest_ms, elapsed
