"""html_to_markdown."""

from __future__ import annotations

from svc.tools.markdown import html_to_markdown


def test_structure_survives_and_code_does_not() -> None:
    page = (
        "<html><head><style>.x{}</style><script>var a = 1;</script></head><body>"
        "<h2>Title</h2><p>One<br>two</p><template><p>hidden</p></template>"
        "<pre><code>print('hi')</code></pre><p>A&amp;B</p></body></html>"
    )
    markdown = html_to_markdown(page)
    assert "## Title" in markdown
    assert "print('hi')" in markdown
    assert "A&B" in markdown
    for gone in ("var a", ".x{}", "hidden"):
        assert gone not in markdown
    assert "\n\n\n" not in markdown


def test_text_without_markup_is_returned_trimmed() -> None:
    assert html_to_markdown("  https://example.org/page.html  ") == "https://example.org/page.html"
