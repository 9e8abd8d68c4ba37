"""Documents: real files of every format indexed, searched and cited; collections kept
up to date as their files change; what a message was given kept with it."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.chat.outbox import Draft, prepare
from app.chat.recorder import engine_messages
from app.chat.store import ChatStore
from app.core import Core
from app.docs.grounding import Grounding, cited_numbers
from app.docs.library import Documents
from tests import documents as make
from tests.conftest import run_hearth


@pytest.fixture
def docs(data_dir: Path) -> Iterator[Documents]:
    documents = Documents(data_dir, data_dir / "logs")
    yield documents
    documents.index.close()


@pytest.fixture
def shelf(tmp_path: Path) -> Path:
    """A folder with one document of each format, each stating its own facts."""
    folder = tmp_path / "shelf"
    folder.mkdir()
    make.pdf(
        folder / "atlas.pdf",
        [
            "Chapter one of the atlas describes the coast of Freedonia.",
            "The river Wombat is 412 kilometres long and flows into the Bay of Marmots.",
            "The last page lists the mountains of Sylvania.",
        ],
    )
    make.docx(
        folder / "budget.docx",
        [
            ("Overview", "This report covers the year."),
            ("Spending", "The lighthouse repair cost 9,300 florins."),
        ],
    )
    make.epub(
        folder / "tale.epub",
        [
            ("The Meeting", "The knight met an owl named Pellinore."),
            ("The Parting", "They parted at dawn."),
        ],
    )
    (folder / "guide.md").write_text(
        "# Setup\n\nInstall the kettle.\n\n## Descaling\n\n"
        "Descale the kettle with citric acid every month.\n",
        encoding="utf-8",
    )
    (folder / "page.html").write_text(
        "<html><head><title>Zoo</title><script>alert(1)</script></head><body>"
        "<h1>Opening hours</h1><p>The zoo opens at 7:15 on Sundays.</p>"
        "<img src='http://example.invalid/tracker.png'></body></html>",
        encoding="utf-8",
    )
    (folder / "stock.csv").write_text("item,count\nteapots,17\nsaucers,230\n", encoding="utf-8")
    (folder / "中文笔记.txt").write_text(
        "量子计算机使用量子比特进行运算。北京烤鸭是著名的中国菜。", encoding="utf-8"
    )
    (folder / "photo.jpg").write_bytes(b"\xff\xd8\xff\xe0" + bytes(100))  # not a document
    return folder


def test_every_format_is_indexed_and_answers_cite_page_or_section(
    docs: Documents, shelf: Path
) -> None:
    report = docs.add("shelf", [shelf])
    assert report.problems == []
    assert report.progress.indexed == 7 and report.progress.ignored == 1
    summary = docs.summaries()[0]
    assert (summary.name, summary.indexed, summary.skipped, summary.failed) == ("shelf", 7, 0, 0)

    def best(question: str) -> tuple[str, int | None, str, str]:
        hit = docs.search(["shelf"], question, 3)[0]
        return Path(hit.file).name, hit.page, hit.section, hit.text

    name, page, _, text = best("How long is the river Wombat?")
    assert (name, page) == ("atlas.pdf", 2) and "412" in text
    assert best("What did the lighthouse repair cost?")[:3] == ("budget.docx", None, "Spending")
    assert best("What was the owl called?")[:3] == ("tale.epub", None, "The Meeting")
    assert best("How often should I descale the kettle?")[:3] == (
        "guide.md",
        None,
        "Setup › Descaling",
    )
    name, _, section, text = best("When does the zoo open on Sunday?")
    assert (name, section) == ("page.html", "Opening hours")
    assert "alert" not in text and "tracker" not in text
    assert "230" in best("how many saucers")[3]
    assert best("量子比特是什么？")[0] == "中文笔记.txt"
    assert best("烤鸭")[0] == "中文笔记.txt"


def test_collections_follow_their_files(docs: Documents, shelf: Path) -> None:
    docs.add("shelf", [shelf])
    before = {Path(r.path).name: r for r in docs.index.files("shelf")}
    # changed, new, deleted and renamed files
    (shelf / "guide.md").write_text("# Setup\n\nThe kettle now needs vinegar.\n", encoding="utf-8")
    (shelf / "new.md").write_text("The ferry leaves at noon.\n", encoding="utf-8")
    (shelf / "stock.csv").unlink()
    (shelf / "budget.docx").rename(shelf / "budget-2026.docx")
    report = docs.update("shelf")
    progress = report.progress
    assert (progress.indexed, progress.renamed, progress.removed) == (2, 1, 1)
    after = {Path(r.path).name: r for r in docs.index.files("shelf")}
    assert "stock.csv" not in after and "budget.docx" not in after
    assert after["budget-2026.docx"].id == before["budget.docx"].id  # moved, not read again
    assert Path(docs.search(["shelf"], "ferry")[0].file).name == "new.md"
    assert "vinegar" in docs.search(["shelf"], "kettle")[0].text
    assert docs.search(["shelf"], "citric acid") == []  # the old text is gone
    # nothing changed: nothing read
    again = docs.update("shelf").progress
    assert again.indexed == 0 and again.files_total == 0


def test_a_thousand_files_with_changes_made_while_indexing(docs: Documents, tmp_path: Path) -> None:
    folder = tmp_path / "many"
    for number in range(1000):
        sub = folder / f"part{number // 100}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"note{number:04d}.txt").write_text(
            f"Note {number}: the code word is zebra{number}.\n"
        )
    changed: list[str] = []

    def meddle(progress: object) -> None:
        done = getattr(progress, "files_done", 0)
        if done == 500 and not changed:
            (folder / "part9" / "note0999.txt").write_text("Replaced: the code word is yak.\n")
            (folder / "part0" / "note0001.txt").unlink()
            (folder / "part0" / "extra.txt").write_text("Added late: the code word is gnu.\n")
            changed.append("yes")

    report = docs.add("many", [folder], on_progress=meddle)
    assert changed and report.progress.files_total == 1000
    assert docs.search(["many"], "zebra500")[0].text.startswith("Note 500")
    # the next update picks up everything that happened during the first
    progress = docs.update("many").progress
    assert progress.indexed >= 1 and progress.removed == 1
    assert docs.search(["many"], "yak") and docs.search(["many"], "gnu")
    assert docs.search(["many"], "zebra1") == []
    assert docs.index.counts("many").indexed == 1000  # 1000 - 1 deleted + 1 added


def test_attachments_go_whole_when_they_fit_and_as_passages_when_not(
    docs: Documents, shelf: Path, tmp_path: Path
) -> None:
    whole = docs.ground(
        "How long is the river?", attachments=[shelf / "atlas.pdf"], budget_tokens=2000
    )
    assert [a.mode for a in whole.attachments] == ["whole"] and whole.notes == []
    assert "412 kilometres" in whole.context and "Bay of Marmots" in whole.sources[0].text
    long_file = tmp_path / "long.md"
    long_file.write_text(
        "\n\n".join(
            f"Paragraph {i} is about nothing in particular, filler words." for i in range(400)
        )
        + "\n\nThe secret password of the vault is tangerine.\n",
        encoding="utf-8",
    )
    cut = docs.ground("What is the vault's password?", attachments=[long_file], budget_tokens=600)
    assert [a.mode for a in cut.attachments] == ["passages"]
    assert "tangerine" in cut.sources[0].text
    assert cut.tokens <= 700
    assert "too long to give whole" in cut.notes[0]


def test_what_a_message_was_given_is_kept_with_it(
    docs: Documents, shelf: Path, tmp_path: Path
) -> None:
    docs.add("shelf", [shelf])
    grounding = docs.ground(
        "How long is the river Wombat?", collections=["shelf"], budget_tokens=2000
    )
    assert grounding.sources[0].page == 2
    store = ChatStore(tmp_path / "chats.sqlite3")
    conversation = store.create_conversation(model="m")
    store.add_message(
        conversation.id, "user", "How long is the river Wombat?", documents=grounding.to_json()
    )
    store.close()
    reopened = ChatStore(tmp_path / "chats.sqlite3")
    message = reopened.messages(conversation.id)[0]
    kept = Grounding.from_json(message.documents)
    assert kept.sources[0].page == 2 and kept.sources[0].text == grounding.sources[0].text
    sent = engine_messages([message])[0]["content"]
    assert sent.startswith("Answer the question using the numbered sources")
    assert "[1] atlas.pdf, page 2" in sent and sent.endswith(
        "Question:\n\nHow long is the river Wombat?"
    )
    reopened.close()


def test_citations_are_read_from_the_answer() -> None:
    assert cited_numbers("It is 412 km long [1]. It ends in a bay [2, 3]. See [x] and [4;5].") == {
        1,
        2,
        3,
        4,
        5,
    }
    assert cited_numbers("No sources used.") == set()


@pytest.mark.slow
def test_the_command_line_contracts(shelf: Path, data_dir: Path) -> None:
    added = run_hearth("docs", "add", "shelf", str(shelf), str(shelf / "photo.jpg"))
    assert added.returncode == 0, added.stderr
    assert "skipped: " in added.stderr and "photo.jpg" in added.stderr  # named explicitly
    listing = json.loads(run_hearth("docs", "list", "--json").stdout)
    assert listing[0]["name"] == "shelf" and listing[0]["files"] == 8 and listing[0]["chunks"] >= 7
    found = run_hearth("docs", "search", "shelf", "river Wombat length", "--json")
    hits = json.loads(found.stdout)
    assert len(hits) == 1 and {"file", "page", "section", "text", "score"} <= set(hits[0])
    several = run_hearth("docs", "search", "shelf", "river kettle owl zoo", "--json", "-k", "2")
    assert len(json.loads(several.stdout)) == 2
    assert hits[0]["page"] == 2 and hits[0]["file"].endswith("atlas.pdf")

    chat = run_hearth(
        "chat",
        "--collection",
        "shelf",
        "--json",
        "--max-tokens",
        "8",
        "How long is the river Wombat?",
    )
    assert chat.returncode == 0, chat.stderr
    events = [json.loads(line) for line in chat.stdout.splitlines()]
    sources = next(e for e in events if e["type"] == "sources")["sources"]
    assert sources[0]["file"].endswith("atlas.pdf") and sources[0]["page"] == 2
    assert "412" in sources[0]["text"]
    assert events[-1]["type"] == "cited"

    attached = run_hearth(
        "chat", "--attach", str(shelf / "guide.md"), "--max-tokens", "8", "Summarise this."
    )
    assert attached.returncode == 0, attached.stderr
    assert "Sources:\n[1] guide.md" in attached.stdout

    missing = run_hearth("chat", "--collection", "nope", "--max-tokens", "4", "hi")
    assert missing.returncode == 1 and "There is no collection named nope" in missing.stderr
    assert "Traceback" not in missing.stderr

    removed = run_hearth("docs", "rm", "shelf")
    assert removed.returncode == 0 and json.loads(run_hearth("docs", "list", "--json").stdout) == []
    assert (shelf / "atlas.pdf").exists()  # the user's files are never touched
    shutil.rmtree(shelf)


def test_an_embedding_model_adds_vectors_and_hybrid_search(
    core: Core, starter: Path, tmp_path: Path
) -> None:
    from app.documents import open_documents

    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("The lighthouse keeper feeds the gulls at dawn.\n")
    (folder / "b.md").write_text("Quarterly revenue grew by four percent.\n")
    words_only = open_documents(core, quiet=True)
    try:
        words_only.add("notes", [folder])
        assert words_only.index.vector_state("") == (0, 0)  # no model: no worker, no vectors
    finally:
        words_only.close()
    core.settings.set("documents.embedding_model", str(starter))
    documents = open_documents(core, quiet=True)
    try:
        documents.update("notes")  # nothing changed on disk: only the missing vectors
        assert documents.index.vector_state(str(starter))[0] == 2
        hits = documents.search(["notes"], "Who feeds the gulls?", 2)
        assert Path(hits[0].file).name == "a.md"
    finally:
        documents.close()


def test_two_attached_files_of_one_name_stay_two(docs: Documents, tmp_path: Path) -> None:
    for folder, fact in (
        ("a", "The red key opens the cellar."),
        ("b", "The blue key opens the attic."),
    ):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "README.md").write_text(
            "\n\n".join(["Filler about nothing at all."] * 300) + f"\n\n{fact}\n"
        )
    files = [tmp_path / "a" / "README.md", tmp_path / "b" / "README.md"]
    grounding = docs.ground(
        "Which key opens the cellar and which the attic?", attachments=files, budget_tokens=700
    )
    texts = " ".join(s.text for s in grounding.sources)
    assert "red key" in texts and "blue key" in texts
    assert {s.path for s in grounding.sources if "key" in s.text} == {str(f) for f in files}


def test_a_question_mixing_chinese_and_latin_words_finds_its_passage(
    docs: Documents, tmp_path: Path
) -> None:
    (tmp_path / "zh.md").write_text(
        "Python是一种编程语言，由吉多创造。\n\n熊猫住在四川。\n", encoding="utf-8"
    )
    docs.add("mixed", [tmp_path / "zh.md"])
    assert "Python" in docs.search(["mixed"], "Python是谁创造的？")[0].text


def test_stored_documents_of_any_shape_never_break_a_chat() -> None:
    damaged = {"sources": [{"n": "1"}, {"n": 2, "file": 5, "page": "3"}, "x"], "attachments": [7]}
    grounding = Grounding.from_json(damaged)
    assert [(s.n, s.file, s.page) for s in grounding.sources] == [(2, "", None)]
    assert grounding.attachments == []
    assert Grounding.from_json({"sources": "nope", "collections": {"a": 1}}).empty


def test_vectors_count_only_as_much_as_they_tell_passages_apart() -> None:
    from app.docs.index import Hit
    from app.docs.retrieval import fuse, vector_weight

    assert vector_weight(1.0) == 0.0  # the starter model's vectors: about 1 deviation
    assert vector_weight(3.0) == 0.5 and vector_weight(6.0) == 1.0

    def hit(chunk_id: int) -> Hit:
        return Hit(chunk_id, "c", f"{chunk_id}.md", None, "", "", 0.0)

    words = [hit(1), hit(2), hit(3), hit(4)]
    meaning = [hit(4), hit(3), hit(9)]
    assert [h.chunk_id for h in fuse([words, meaning], 3, [1.0, 0.0])] == [1, 2, 3]
    assert {h.chunk_id for h in fuse([words, meaning], 2, [1.0, 1.0])} == {3, 4}  # in both


def test_the_outbox_reads_a_drafts_files_and_an_edit_keeps_those_it_was_sent_with(
    docs: Documents, shelf: Path
) -> None:
    """The window's outbox, without Qt: a draft given nothing is sent as it is; a draft's
    file is read into what the message is sent with; an edit that ticks a collection keeps
    the file its message was first sent with, every source numbered again."""
    plain = prepare(Draft("Hello"), docs.ground, 2000, 5)
    assert (plain.text, plain.documents) == ("Hello", None)
    first = prepare(Draft("How long is the river?", (shelf / "atlas.pdf",)), docs.ground, 2000, 5)
    assert first.grounding is not None and "412 kilometres" in first.grounding.context
    docs.add("shelf", [shelf])
    edit = Draft(
        "How long is the river Wombat?",
        collections=("shelf",),
        edit_of=7,
        edited_documents=first.documents,
    )
    edited = prepare(edit, docs.ground, 2000, 5)
    assert edited.edit_of == 7 and edited.grounding is not None
    assert [a.name for a in edited.grounding.attachments] == ["atlas.pdf"]
    assert any(s.collection == "shelf" for s in edited.grounding.sources)
    assert [s.n for s in edited.grounding.sources] == list(
        range(1, len(edited.grounding.sources) + 1)
    )
