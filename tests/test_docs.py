"""The README is what a visitor reads first, short enough to read to the end; the rest lives in docs/ pages it
links. Every relative link and image of the README and of those pages resolves from where the page is, the
README gives exactly the two set-up commands CI runs, and its front matter still configures the Space."""

from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]
MAX_README_LINES = 250
LINK = re.compile(r"!?\[[^\]]*\]\(<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\)")  # [text](target) and ![alt](target)


def prose(text: str) -> str:
    """The text without its code blocks and inline code, where brackets are code, not links."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`]*`", "", text)


def anchors(page: Path) -> set[str]:
    """The anchors GitHub makes of a page's headings: lower case, punctuation dropped, spaces to hyphens."""
    headings = re.findall(r"^#+ (.+)$", prose(page.read_text()), flags=re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def links(page: Path) -> list[str]:
    """Every link and image target of the page, in order."""
    return LINK.findall(prose(page.read_text()))


def broken(page: Path, root: Path = ROOT) -> list[str]:
    """The page's relative links and images that lead nowhere from the page's folder (or out of the checkout),
    and anchors no heading of their page makes. Addresses with a scheme (https:, mailto:) are not followed."""
    found = []
    for target in links(page):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):
            continue
        path, _, anchor = target.partition("#")
        where = (page.parent / path).resolve() if path else page
        if not where.is_relative_to(root.resolve()) or not where.exists():
            found.append(f"{target} (no such file)")
        elif anchor and where.suffix == ".md" and anchor not in anchors(where):
            found.append(f"{target} (no such heading)")
    return found


def test_the_readme_is_short():
    lines = len(README.read_text().splitlines())
    assert lines < MAX_README_LINES, f"README.md has {lines} lines: move a section into a docs/ page"


def test_the_readme_links_every_docs_page_and_each_exists():
    linked = {(README.parent / t.partition("#")[0]).resolve() for t in links(README) if t.startswith("docs/")}
    pages = {p.resolve() for p in PAGES[1:]}
    assert len(pages) >= 8 and {DOCS / "architecture.md", DOCS / "user-guide.md"} <= pages
    assert pages <= linked, sorted(p.name for p in pages - linked)  # no page a visitor cannot reach
    assert all(p.exists() for p in linked), sorted(str(p) for p in linked if not p.exists())


def test_every_relative_link_and_image_resolves():
    assert sum(len(links(p)) for p in PAGES) > 40  # the README's and the pages' screenshots and cross-links
    assert {page.name: broken(page) for page in PAGES if broken(page)} == {}


def test_a_broken_link_or_image_is_found(tmp_path):
    (tmp_path / "docs" / "screenshots").mkdir(parents=True)
    (tmp_path / "docs" / "screenshots" / "a.png").write_bytes(b"")
    (tmp_path / "README.md").write_text("# Top\n\n## The models\n")
    page = tmp_path / "docs" / "guide.md"
    page.write_text(
        "# Guide\n\n![fine](screenshots/a.png) ![moved](docs/screenshots/a.png) [up](../README.md#the-models)\n"
        "[gone](../README.md#checkpoints) [here](#guide) [web](https://example.org/x) [out](../../elsewhere.md)\n"
        "`[in code](missing.md)`\n\n```\n[in a block](missing.md)\n```\n"
    )
    assert broken(page, tmp_path) == [
        "docs/screenshots/a.png (no such file)",
        "../README.md#checkpoints (no such heading)",
        "../../elsewhere.md (no such file)",
    ]


def test_the_readme_gives_the_two_set_up_commands_that_ci_runs():
    """A fresh machine needs two commands: one serves the app on the bundled checkpoint, one runs the tests."""
    quick_start = re.search(r"^## Quick start\n(.*?)^## ", README.read_text(), flags=re.S | re.M).group(1)
    block = re.search(r"```bash\n(.*?)```", quick_start, flags=re.S).group(1)
    commands = [line.split("#")[0].strip() for line in block.splitlines() if line.split("#")[0].strip()]
    assert commands == ["./scripts/serve", "./scripts/test"]
    assert all(os.access(ROOT / command, os.X_OK) for command in commands)
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert [line for line in ci if line.startswith("exec ")] == ["exec ./scripts/test"]


def test_the_front_matter_still_configures_the_space():
    """The Space gets README.md's front matter (completed by `space`, tests/test_space.py): huggingface_hub's own
    parser reads the app, the pinned Gradio, the licences (`other`, linked to the README's Licences section) and
    the tags from it."""
    from huggingface_hub import SpaceCard

    from transformer_viz.hub.space import APP_FILES

    assert re.match(r"---\n.*?\n---\n", README.read_text(), flags=re.S), "README.md must start with its front matter"
    data = SpaceCard.load(README).data
    assert data.sdk == "gradio" and (ROOT / data.app_file).is_file() and "README.md" in APP_FILES
    pin = re.search(r"^gradio==(\S+)$", (ROOT / "requirements.txt").read_text(), flags=re.M).group(1)
    assert data.sdk_version == pin
    assert (data.license, data.license_name) == ("other", "mit-code-and-training-data-licences")
    page, _, anchor = data.license_link.partition("#")
    assert page == "README.md" and anchor in anchors(README)
    assert {"translation", "education", "interpretability"} <= set(data.tags)


def test_the_licences_section_names_mit_and_every_licence_of_the_weights_data():
    """Every licence of the bundled checkpoints' data (their corpus credits, Ding's first) and MIT for the code,
    with no licence claimed for the weights."""
    from transformer_viz.hub.card import corpus_licences
    from transformer_viz.hub.space import bundled_checkpoints

    text = prose(README.read_text())
    licences = text[text.index("\n## Licences\n") : text.index("\n## Credits\n")]
    data = {name for folder in bundled_checkpoints(ROOT) for name in corpus_licences(folder)}
    assert data == {"GPL-2.0-or-later", "GPL-3.0-or-later", "CC-BY-SA-3.0"}
    assert all(name in licences for name in data) and "MIT" in licences and "LICENSE" in licences
    assert "No other licence is claimed for the weights" in licences and "no claim about whether" in licences


def diagram_layers(page: Path = DOCS / "architecture.md") -> list[set[str]]:
    """The layers the architecture page draws, top down: each line's modules and folders before its `←` note."""
    block = re.search(r"```\n(transformer_viz/.*?)```", page.read_text(), flags=re.S).group(1)
    names = [re.findall(r"\b(\w+)(?:/|\.py)", line.split("←")[0]) for line in block.splitlines()[1:]]
    return [set(found) for found in names if found]


def test_the_architecture_diagram_is_the_layers_the_tests_enforce():
    from tests.test_layers import LAYERS

    assert diagram_layers() == [set(layer) for layer in reversed(LAYERS)]


def test_the_architecture_page_has_a_line_for_every_subpackage_and_top_level_module():
    package = ROOT / "transformer_viz"
    there = {f"{p.name}/" for p in package.iterdir() if (p / "__init__.py").is_file()}
    there |= {p.name for p in package.glob("*.py")}
    rows = set(re.findall(r"^\| `([\w.]+/?)` \|", (DOCS / "architecture.md").read_text(), flags=re.M))
    assert {"model/", "probes/", "i18n/", "translator.py", "__init__.py"} <= there
    assert rows == there, (sorted(there - rows), sorted(rows - there))
