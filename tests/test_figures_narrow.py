"""The lesson's plots on a phone (figures/narrow.py): drawn for a 320 px box too, their title, key labels and legend
laid out for it, and carried in the figure the page receives for a projector's box."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from transformer_viz import figures
from transformer_viz.app import handlers as h
from transformer_viz.app.registry import PLOTS
from transformer_viz.figures.attention import FIT_WIDTH_PX, MAP_SIDES_PX
from transformer_viz.figures.labels import LINE_EM, MIN_TICK_PX, TITLE_EM, title_chars
from transformer_viz.figures.narrow import NARROW_BELOW, NARROW_PX, drawn
from transformer_viz.figures.steps import TOPK_PX
from transformer_viz.figures.views import LESSON_FIT_PX, PHONE_FIT_PX

LONG = "my brother and my sister want the garden, a cat and the house and the dog sees coffee."


@pytest.fixture(scope="module")
def long_trace(translator):
    return translator.trace(LONG, max_new_tokens=6)


def lines_fit(text: str, width: float, size: float) -> bool:
    """Every line of a title (escaped HTML, <br> between lines) within `width` pixels, as wrap_title measures it."""
    return all(sum(title_chars(line)) * TITLE_EM * size <= width for line in text.split("<br>"))


def test_a_phones_map_is_drawn_for_the_least_height_the_page_gives_the_lesson():
    """On a phone the lesson's maps start below the first screen: js/lesson.js gives their boxes its least height,
    and the plot in the box has 24 px less."""
    lesson_js = (Path(__file__).parents[1] / "transformer_viz" / "js" / "lesson.js").read_text()
    least = int(re.search(r"const LESSON_MIN_PX = (\d+);", lesson_js).group(1))
    assert PHONE_FIT_PX == least - 24


def test_a_phones_map_labels_every_key_it_can_without_two_running_into_each_other(long_trace):
    fig = figures.attention_head(long_trace, "cross", 0, "mean", step=2, fit_px=LESSON_FIT_PX, width=NARROW_PX)
    keys, x = long_trace.source_tokens, fig.layout.xaxis
    stride = x.tickvals[1] - x.tickvals[0]
    assert x.tickangle == -45 and stride > 1, "too many keys for a phone: every n-th labelled"
    apart = 0.71 * stride * (NARROW_PX - MAP_SIDES_PX) / len(keys)  # between two labels' lines, tilted
    assert apart >= LINE_EM * x.tickfont.size and x.tickfont.size >= MIN_TICK_PX
    cells = fig.data[0].customdata  # and the hover names every cell's query and key
    assert len(cells[0]) == len(keys) and "%{customdata[1]}" in fig.data[0].hovertemplate
    assert lines_fit(fig.layout.title.text, NARROW_PX, fig.layout.title.font.size)
    wide = figures.attention_head(long_trace, "cross", 0, "mean", step=2, fit_px=LESSON_FIT_PX)
    assert wide.layout.title.text.count("<br>") < fig.layout.title.text.count("<br>")  # its title in more lines
    assert lines_fit(wide.layout.title.text, FIT_WIDTH_PX, wide.layout.title.font.size)


def test_a_phones_map_wraps_its_axis_titles_to_its_room(trace):
    fig = figures.attention_head(trace, "cross", 0, "mean", step=1, fit_px=LESSON_FIT_PX, width=NARROW_PX)
    layout = fig.layout
    rows_px = LESSON_FIT_PX - layout.margin.t - layout.margin.b
    assert lines_fit(layout.yaxis.title.text, rows_px, layout.font.size)  # the query title beside the rows only
    assert "<br>" in layout.xaxis.title.text  # the key title and its note, in as many lines as the width asks


def test_a_phones_top_k_keeps_its_legend_out_of_its_title(trace):
    wide, phone = (figures.topk_bar(trace, 1, width=width) for width in (TOPK_PX, NARROW_PX))
    assert wide.layout.legend.y == 1.0 and wide.layout.legend.orientation == "h"  # one row over the bars
    assert phone.layout.legend.y == 0.0 and phone.layout.legend.orientation is None  # inside, under the bars' ends
    assert lines_fit(phone.layout.title.text, NARROW_PX, phone.layout.title.font.size)


def test_the_page_receives_the_lessons_plots_with_their_phone_drawing_on_screen_only(trace):
    lesson = [p for p in PLOTS if p.screen_px]
    assert {p.id for p in lesson} == {"plot-cross", "plot-topk"}
    screen = h.view_figures(lesson, trace, step=1, layer=1, head="2")
    for plot in lesson:
        narrow = screen[plot.id].layout.meta["narrow"]
        assert narrow["below"] == round(NARROW_BELOW * plot.screen_px) and narrow["change"]["layout"]
    phone = figures.attention_head(trace, "cross", 1, 2, step=1, fit_px=PHONE_FIT_PX, width=NARROW_PX)
    title = narrow_title(screen["plot-cross"])
    assert title == drawn(phone)["layout"]["title"]["text"]
    slides = h.view_figures(lesson, trace, step=1, presentation=True)
    assert all("narrow" not in (fig.layout.meta or {}) for fig in slides.values())  # a slide keeps its own size


def narrow_title(fig) -> str:
    """The title the page draws in a phone's box: the narrow change's, or the figure's own where it does not change."""
    change = fig.layout.meta["narrow"]["change"]["layout"].get("title", {}).get("text")
    return change[1] if change else fig.layout.title.text
