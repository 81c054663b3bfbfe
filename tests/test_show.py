"""transformer_viz.show: a view by name is the app's own figure; the example notebook runs and shows figures."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import plotly.graph_objects as go
import pytest

import transformer_viz
from transformer_viz import figures
from transformer_viz.app import registry
from transformer_viz.app.registry import View
from transformer_viz.figures.views import LESSON_FIT_PX

NOTEBOOK = Path(__file__).resolve().parents[1] / "docs" / "example.ipynb"
# show()'s name of each view → the registry plot the page draws it in
APP_PLOT = {
    "cross": "plot-cross",
    "decoder_self": "plot-dec-self",
    "encoder_self": "plot-enc-self",
    "topk": "plot-topk",
    "alignment": "plot-alignment",
    "masks": "plot-masks",
    "pe": "plot-pe",
    "overview": "plot-overview",
}


def registry_figure(plot_id: str, view: View) -> go.Figure:
    return next(plot for plot in registry.PLOTS if plot.id == plot_id).figure(view)


def test_the_page_places_the_views_of_the_one_table_and_draws_only_the_models_own_besides():
    """Each plot the page draws from a trace is an entry of figures.VIEWS (no second definition in the app); the
    others are drawn from the bundled models or the loaded translator, which figures never touch."""
    assert set(figures.VIEWS) >= set(APP_PLOT)
    plots = {plot.id: plot for plot in registry.PLOTS}
    assert all(plots[plot_id].view is figures.VIEWS[name] for name, plot_id in APP_PLOT.items())
    own = {plot.id for plot in registry.PLOTS if plot.view not in figures.VIEWS.values()}
    assert own == {plot.id for plot in registry.PLOTS if not plot.from_trace} | {"plot-beam", "plot-neighbours"}
    placed = [plot.view for plot in registry.PLOTS]
    assert all(spec in placed for spec in figures.VIEWS.values())  # no view in the table that the page leaves out


@pytest.mark.parametrize("name", list(figures.VIEWS))
def test_show_draws_every_view_of_the_table_by_its_name(trace, name):
    shown = transformer_viz.show(trace, name, layer=1, head=0, step=1, presentation=True)
    assert isinstance(shown, go.Figure) or (name == "logit_lens" and trace.logit_lens is None)


@pytest.mark.parametrize("name", list(APP_PLOT))
@pytest.mark.parametrize("presentation", [False, True], ids=["screen", "slides"])
def test_show_is_the_figure_the_app_draws(trace, name, presentation):
    layer, head, step = 1, 2, len(trace.target_ids) - 2
    view = View(trace, step=step, layer=layer, head=head, kind="decoder_self", presentation=presentation, in_box=True)
    expected = registry_figure(APP_PLOT[name], view).to_plotly_json()
    if name == "cross" and not presentation:  # the page draws it for the lesson's box; a notebook has no box
        assert expected["layout"]["height"] == LESSON_FIT_PX
        expected = figures.attention_head(trace, "cross", layer, head, step=step).to_plotly_json()
    extra = dict(kind="decoder_self") if name == "overview" else {}
    shown = transformer_viz.show(trace, name, layer=layer, head=head, step=step, presentation=presentation, **extra)
    assert isinstance(shown, go.Figure)
    assert shown.to_plotly_json() == expected


def test_show_takes_the_heads_mean_the_words_and_a_language(trace):
    view = View(trace, step=1, layer=0, head="mean", units="words", in_box=True)
    with figures.language("ja"):
        expected = registry_figure("plot-alignment", view).to_plotly_json()
    shown = transformer_viz.show(trace, "alignment", layer=0, head="mean", step=1, units="words", lang="ja")
    assert shown.to_plotly_json() == expected
    with figures.language("ko"):  # without lang, the language of the block around it
        assert transformer_viz.show(trace, "topk", step=0).layout.title.text.startswith("0단계")


def test_a_step_is_marked_only_when_asked(trace):
    unmarked = transformer_viz.show(trace, "cross")
    marked = transformer_viz.show(trace, "cross", step=1)
    assert not unmarked.layout.shapes and marked.layout.shapes
    assert transformer_viz.show(trace, "topk").to_plotly_json() == figures.topk_bar(trace, 0).to_plotly_json()


def test_an_unknown_view_is_refused_with_the_list_of_views(trace):
    with pytest.raises(ValueError) as err:
        transformer_viz.show(trace, "crosss")
    message = str(err.value)
    assert "'crosss'" in message
    assert all(name in message for name in figures.VIEWS)


def code_cells(path: Path) -> list[str]:
    """The code cells of an nbformat 4 notebook, in order, each as one string."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    assert notebook["nbformat"] == 4 and isinstance(notebook["cells"], list)
    for cell in notebook["cells"]:
        assert cell["cell_type"] in ("markdown", "code", "raw") and isinstance(cell["source"], (list, str))
    return ["".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "code"]


def run_cells(cells: list[str]) -> list:
    """Each cell run in order in one namespace, as a kernel runs them; what each cell's last expression evaluates to
    (None for a cell that ends in a statement), which is what Jupyter shows under it."""
    namespace: dict = {"__name__": "__main__"}
    shown = []
    for source in cells:
        tree = ast.parse(source)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, "<cell>", "exec"), namespace)
        shown.append(None if last is None else eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace))
    return shown


def test_the_example_notebook_runs_and_shows_two_views():
    cells = code_cells(NOTEBOOK)
    assert any("load_model()" in cell for cell in cells)
    shown = [value for value in run_cells(cells) if isinstance(value, go.Figure)]
    assert len(shown) >= 2
    titles = [fig.layout.title.text for fig in shown]
    assert len(set(titles)) == len(titles)  # two different views, each with its title


def test_the_notebook_runner_would_catch_a_broken_cell():
    with pytest.raises(NameError):
        run_cells(["x = 1", "y = no_such_name + x"])
    assert run_cells(["a = 2\nmax(a,\n    3) * 2", "b = a"]) == [6, None]
