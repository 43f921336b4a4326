"""question: asks through the session callback and returns the answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from svc.errors import ValidationFailed
from svc.tools import ToolContext, ToolFailed
from svc.tools.builtin import QuestionTool

question = QuestionTool()


def interactive(
    workspace: Path, answers: list[list[str]], asked: list[list[dict[str, Any]]]
) -> ToolContext:
    async def ask(questions: list[dict[str, Any]]) -> list[list[str]]:
        asked.append(questions)
        return answers

    return ToolContext(workspace=workspace, interactive=True, ask_question=ask)


async def test_asks_and_returns_answers(workspace: Path) -> None:
    asked: list[list[dict[str, Any]]] = []
    ctx = interactive(workspace, [["Postgres"], ["tests", "docs"]], asked)
    args = {
        "questions": [
            {
                "question": "Which DB?",
                "header": "Database",
                "options": ["Postgres", {"label": "SQLite", "description": "file"}],
            },
            {"question": "What else?", "options": ["tests", "docs"], "multiple": True},
        ]
    }
    result = await question.execute(args, ctx)
    assert asked == [
        [
            {
                "header": "Database",
                "question": "Which DB?",
                "options": [
                    {"label": "Postgres", "description": ""},
                    {"label": "SQLite", "description": "file"},
                ],
                "multiple": False,
                "custom": False,
            },
            {
                "header": "Question",
                "question": "What else?",
                "options": [
                    {"label": "tests", "description": ""},
                    {"label": "docs", "description": ""},
                ],
                "multiple": True,
                "custom": False,
            },
        ]
    ]
    assert result.output == "Q: Which DB?\nA: Postgres\nQ: What else?\nA: tests, docs"
    assert result.metadata["answers"] == [["Postgres"], ["tests", "docs"]]


async def test_single_question_shorthand_is_free_text(workspace: Path) -> None:
    asked: list[list[dict[str, Any]]] = []
    result = await question.execute(
        {"question": "Your name?"}, interactive(workspace, [["Ada"]], asked)
    )
    assert asked[0] == [
        {
            "header": "Question",
            "question": "Your name?",
            "options": [],
            "multiple": False,
            "custom": True,
        }
    ]
    assert result.output == "Q: Your name?\nA: Ada"


async def test_unanswered_questions_are_marked(workspace: Path) -> None:
    result = await question.execute(
        {"questions": [{"question": "A?"}, {"question": "B?"}]}, interactive(workspace, [[]], [])
    )
    assert result.output == "Q: A?\nA: (no answer)\nQ: B?\nA: (no answer)"


async def test_needs_an_interactive_session(workspace: Path, ctx: ToolContext) -> None:
    with pytest.raises(ToolFailed, match="question needs an interactive session"):
        await question.execute({"question": "Hello?"}, ctx)

    async def ask(questions: list[dict[str, Any]]) -> list[list[str]]:
        raise AssertionError("must not be asked outside an interactive session")

    with pytest.raises(ToolFailed, match="interactive session"):
        await question.execute(
            {"question": "Hello?"}, ToolContext(workspace=workspace, ask_question=ask)
        )


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({}, "args.questions"),
        ({"questions": []}, "args.questions"),
        ({"questions": [{"header": "x"}]}, "args.questions[0].question"),
        (
            {"questions": [{"question": "q", "options": [{"description": "no label"}]}]},
            "args.questions[0].options[0].label",
        ),
        ({"questions": [{"question": "q", "options": [3]}]}, "args.questions[0].options[0]"),
        ({"question": "a", "questions": [{"question": "b"}]}, "args.question"),
    ],
)
async def test_bad_arguments(workspace: Path, args: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationFailed) as info:
        await question.execute(args, interactive(workspace, [], []))
    assert info.value.extra["field"] == field
