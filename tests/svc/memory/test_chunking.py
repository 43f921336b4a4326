"""Chunking documents into overlapping windows at natural boundaries."""

from __future__ import annotations

from svc.memory.chunking import chunk_text, count_tokens


def words(n: int, prefix: str = "w") -> str:
    return " ".join(f"{prefix}{i}" for i in range(n))


def test_short_text_is_one_chunk_and_blank_text_none() -> None:
    chunks = chunk_text("  # Title\n\nHello, world.  ")
    assert [c.text for c in chunks] == ["# Title\n\nHello, world."]
    assert chunks[0].heading == "Title" and chunks[0].tokens == 6
    assert chunk_text(" \n\t ") == []


def test_long_text_is_split_into_bounded_overlapping_chunks() -> None:
    text = words(1300)
    chunks = chunk_text(text, max_tokens=512, overlap=64)
    assert [c.tokens for c in chunks] == [512, 512, 404]
    assert [c.index for c in chunks] == [0, 1, 2]
    # Each chunk starts 64 tokens before the previous one ended.
    assert chunks[1].text.split()[0] == "w448" and chunks[2].text.split()[0] == "w896"
    assert chunks[-1].text.endswith("w1299")
    for chunk in chunks:
        assert text[chunk.start : chunk.end] == chunk.text


def test_chunks_end_at_a_paragraph_break_when_one_is_near() -> None:
    first, second = words(450, "a"), words(300, "b")
    chunks = chunk_text(f"{first}\n\n{second}", max_tokens=512, overlap=64)
    assert chunks[0].text == first
    assert chunks[1].text.startswith(" ".join(first.split()[-64:]))


def test_sentence_end_is_preferred_to_mid_sentence() -> None:
    sentence = words(420) + ". " + words(200, "x")
    chunks = chunk_text(sentence, max_tokens=512, overlap=10)
    assert chunks[0].text.endswith("w419.")


def test_each_chunk_knows_the_heading_it_falls_under() -> None:
    text = "# Intro\n\n" + words(600, "i") + "\n\n## Deploy\n\n" + words(600, "d")
    headings = [c.heading for c in chunk_text(text)]
    assert headings[0] == "Intro" and headings[-1] == "Deploy"


def test_punctuation_counts_as_tokens() -> None:
    assert count_tokens("a, b. c!") == 6
