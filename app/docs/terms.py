"""Words for the full-text index, in any language.

SQLite's FTS5 ``unicode61`` tokenizer splits on spaces and punctuation, which suits
English but turns a whole Chinese sentence into one "word".  So before text reaches the
index (and the same for a query), every run of CJK characters is rewritten as its
overlapping character pairs ("机器学习" → "机器 器学 学习"), the usual way to search
Chinese, Japanese and Korean without a dictionary; a single CJK character stays itself.
BM25 then works the same in every language, offline, with no model.
"""

from __future__ import annotations

import re

# CJK ideographs, kana, hangul (and their extensions); full-width punctuation is not.
_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f"
_CJK_RUN = re.compile(f"[{_CJK}]+")
_WORD = re.compile(rf"[^\W_]+|[{_CJK}]+", re.UNICODE)
_CJK_CHAR = re.compile(f"[{_CJK}]")

# Words so common in questions that they only add noise to an OR query.
_STOP_WORDS = """
    a an and are as at be by can could did do does for from had has have how i if in
    into is it its me my of on or our please should tell than that the their them then
    there these they this to was we were what when where which who whom why will with
    would you your about 的 了 是 在 和 吗 呢 什么 哪 怎么 请 我
"""
STOP_WORDS = frozenset(_STOP_WORDS.split())


def _pairs(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def index_terms(text: str) -> str:
    """``text`` as the index stores it: CJK runs as character pairs, the rest as it is."""
    return _CJK_RUN.sub(lambda m: " " + " ".join(_pairs(m.group(0))) + " ", text)


def query_terms(question: str) -> list[str]:
    """The distinct search terms of a question (lower case, stop words left out)."""
    terms: list[str] = []
    for term in _positions(question):
        if term not in STOP_WORDS and term not in terms:
            terms.append(term)
    return terms


def _positions(text: str) -> list[str]:
    """``text`` as the sequence of terms the index sees (lower case, CJK as pairs)."""
    # index_terms first: it sets CJK runs apart from Latin words written against them
    # ("Python是什么"), as the index's own tokenizer sees them.
    return _WORD.findall(index_terms(text.lower()))


def proximity(text: str, terms: list[str]) -> float:
    """How closely the question's terms stand together in ``text``: the share of them it
    holds, divided by the shortest stretch of it that holds them all (1.0: all of them,
    side by side).  BM25 counts words but not where they are, so "the chess club of
    Dunmere" and "Dunmere … the chess club of Brightwater" look alike to it."""
    wanted = set(terms)
    if not wanted:
        return 0.0
    sequence = [(i, t) for i, t in enumerate(_positions(text)) if t in wanted]
    present = {t for _, t in sequence}
    if not present:
        return 0.0
    best = len(_positions(text)) + 1
    counts: dict[str, int] = {}
    start = 0
    for end in range(len(sequence)):
        counts[sequence[end][1]] = counts.get(sequence[end][1], 0) + 1
        while len(counts) == len(present):
            best = min(best, sequence[end][0] - sequence[start][0] + 1)
            first = sequence[start][1]
            counts[first] -= 1
            if not counts[first]:
                del counts[first]
            start += 1
    return (len(present) / len(wanted)) * (len(present) / best)


def match_expression(question: str) -> str:
    """An FTS5 MATCH expression that finds passages with any of the question's terms
    (BM25 ranks those with more and rarer ones first); empty when nothing is searchable."""
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in query_terms(question))


def estimate_tokens(text: str) -> int:
    """Roughly how many tokens ``text`` is for a typical model: a CJK character is about
    one, other text about four characters per token."""
    cjk = len(_CJK_CHAR.findall(text)) if _CJK_CHAR.search(text) else 0
    return cjk + (len(text) - cjk + 3) // 4
