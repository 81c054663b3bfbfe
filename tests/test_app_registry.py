"""The plot registry against the page built from it: every plot placed once, in the tab it names; no browser."""

from __future__ import annotations

import pytest

from tests.tiny import tiny_translator
from transformer_viz.app import handlers as h
from transformer_viz.app import models
from transformer_viz.app import session as sessions
from transformer_viz.app.frames import N_OUT
from transformer_viz.app.registry import CLICK_BOX, CLICKABLE, OTHER_PLOTS, PLOTS, STEP_PLOTS, VIEW_CLICKS
from transformer_viz.app.stepping import start_config, start_js
from transformer_viz.app.tabs import Event


@pytest.fixture(scope="module")
def page_config():
    from transformer_viz.app.page import build_demo

    return build_demo().get_config_file()


def tabs_around(config) -> dict[str, list[str]]:
    """elem_id → the elem_ids of the tabs it sits in, outermost first."""
    props = {c["id"]: c.get("props", {}) for c in config["components"]}
    kinds = {c["id"]: c["type"] for c in config["components"]}
    out: dict[str, list[str]] = {}

    def walk(node, tabs):
        elem_id = props.get(node["id"], {}).get("elem_id")
        if elem_id:
            out[elem_id] = tabs
        if kinds.get(node["id"]) in ("tab", "tabitem") and elem_id:
            tabs = tabs + [elem_id]
        for child in node.get("children", []):
            walk(child, tabs)

    walk(config["layout"], [])
    return out


def test_every_registered_plot_sits_in_its_group_and_tab(page_config):
    where = tabs_around(page_config)
    for plot in PLOTS:
        expected = [] if plot.group == "page" else [f"group-{plot.group}", plot.tab]
        assert where[plot.id] == expected, plot.id
    plot_ids = [c["props"].get("elem_id") for c in page_config["components"] if c["type"] == "plot"]
    assert all(plot_ids.count(plot.id) == 1 for plot in PLOTS)


def test_the_page_starts_with_every_clickable_plot_and_the_click_box(page_config):
    config = start_config()
    clicks = {plot_id for plot_id, _, _ in config["clicks"]}
    # the views a tab draws itself are clicked the same way, into the same box
    assert clicks == {p.id for p in CLICKABLE} | {view for view, _ in VIEW_CLICKS}
    assert config["click_box"] == CLICK_BOX and CLICK_BOX in {
        c["props"].get("elem_id") for c in page_config["components"]
    }
    assert len(config["clicks"]) == len(clicks) and config["outputs"] == N_OUT
    assert [dep["js"] for dep in page_config["dependencies"]].count(start_js()) == 1  # run once, on load


def test_step_and_other_plots_split_the_registry_by_what_they_follow(empty_registry):
    assert {p.id for p in STEP_PLOTS} | {p.id for p in OTHER_PLOTS} == {p.id for p in PLOTS}
    assert all(p.follows & {"step", "head"} for p in STEP_PLOTS)
    assert not any(p.follows & {"step", "head"} for p in OTHER_PLOTS)
    models.register_translator("tiny", tiny_translator("seed000"))
    trace = sessions.translate("I see the house.", "tiny", sessions.decode_options("greedy", 4, 1, 0, 1, 0, 8)).trace
    drawn = h.view_figures(PLOTS, trace, step=1, layer=1, head="1", kind="decoder self")
    assert set(drawn) == {p.id for p in PLOTS}
    assert "Decoder self-attention" in drawn["plot-overview"].layout.title.text


def test_merged_events_run_each_handler_on_its_own_inputs():
    first = Event(lambda a, b: [a + b], ["a", "b"], ["x"])
    second = Event(lambda c: [c * 2, c * 3], ["c"], ["y", "z"])
    merged = Event.merged([first, second])
    assert merged.inputs == ["a", "b", "c"] and merged.outputs == ["x", "y", "z"]
    assert merged.fn(1, 2, 5) == [3, 10, 15]


def test_a_merged_event_with_one_output_gives_gradio_its_value():
    """Gradio takes a one-output handler's return as the value: a list there would be a plot's value."""
    as_value = Event(lambda a: {"figure": a}, ["a"], ["x"])  # one output, its value returned bare
    as_list = Event(lambda a: [{"figure": a}], ["a"], ["x"])  # one output, returned as a list of it
    for event in (as_value, as_list):
        assert Event.merged([event]).fn(7) == {"figure": 7}
    assert Event.merged([as_value, as_list]).fn(1, 2) == [{"figure": 1}, {"figure": 2}]


def test_a_tabs_block_holds_only_tabs(page_config):
    """Gradio numbers a gr.Tabs' tabs by their place among its children: anything else among them (a gr.State
    made after a tab's block) shifts the count, and a clicked tab then takes the next tab's place in the bar."""
    kinds = {c["id"]: c["type"] for c in page_config["components"]}
    strays = []

    def walk(node):
        children = node.get("children", [])
        if kinds.get(node["id"]) == "tabs":
            strays.extend(
                (node["id"], kinds.get(child["id"])) for child in children if kinds.get(child["id"]) != "tabitem"
            )
        for child in children:
            walk(child)

    walk(page_config["layout"])
    assert not strays
