"""From search text to an FTS5 query, and from bm25 to a score."""

from __future__ import annotations

from svc.memory import ScopeClause
from svc.memory.query import MAX_TERMS, idf, scope_text, score_from_bm25, terms
from svc.memory.sqlite_fts_repository import fts_query, scope_query


def test_terms_split_like_the_index_tokenizer_and_drop_function_words() -> None:
    assert terms("How do I rotate the deploy_key?") == ["rotate", "deploy", "key"]
    assert terms("Café crème, 2024!") == ["café", "crème", "2024"]


def test_a_query_of_only_function_words_keeps_them() -> None:
    assert terms("what is it") == ["what", "is", "it"]


def test_terms_are_distinct_and_bounded() -> None:
    assert terms("alpha ALPHA alpha beta") == ["alpha", "beta"]
    assert len(terms(" ".join(f"w{i}" for i in range(100)))) == MAX_TERMS


def test_every_term_is_quoted_so_fts_syntax_is_never_interpreted() -> None:
    assert (
        fts_query(terms('NEAR(k1 k2) OR "x" AND -y*'))
        == '{content tags} : ("near" OR "k1" OR "k2" OR "x" OR "y")'
    )
    assert fts_query(["rotat"], prefix=True) == '{content tags} : ("rotat"*)'
    assert fts_query(terms("?!")) is None


def test_score_is_bounded_and_strictly_increasing_in_bm25() -> None:
    raw_values = [0.0001, 0.2, 1.0, 3.0, 12.0]
    scores = [score_from_bm25(v) for v in raw_values]
    assert scores == sorted(scores) and len(set(scores)) == len(scores)
    assert all(0.0 < s < 1.0 for s in scores)
    assert score_from_bm25(3.0) == 0.75 and score_from_bm25(-1.0) == 0.0


def test_idf_stays_positive_for_terms_in_most_records() -> None:
    assert idf(1, 1) > 0 and idf(10, 10) > 0
    assert idf(1000, 1) > idf(1000, 100) > idf(1000, 900) > 0


def test_scope_tokens_hash_ids_into_plain_tokens() -> None:
    tier, session, demoted = scope_text(
        tier="session", project_id="proj-1", session_id="a b/c", run_id=None, demoted=True
    ).split()
    assert (tier, demoted) == ("0tsession", "0xdemoted")
    assert session.startswith("0s") and session.isalnum() and len(session) == 18
    tier, project = scope_text(
        tier="project", project_id="proj-1", session_id=None, run_id=None, demoted=False
    ).split()
    assert tier == "0tproject" and project.startswith("0p")
    assert scope_text(
        tier="session", project_id=None, session_id=None, run_id="r1", demoted=False
    ).startswith("0tsession 0r")
    assert (
        scope_text(tier="global", project_id="x", session_id=None, run_id=None, demoted=False)
        == "0tglobal"
    )
    clause_text = scope_query(
        [ScopeClause("project", project_id="proj-1"), ScopeClause("global"), ScopeClause("session")]
    )
    assert clause_text == f'scope : ("{project}" OR "0tglobal" OR "0tsession")'
    assert scope_query([]) is None
