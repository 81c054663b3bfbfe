"""Decoding figures: the next-token distribution at one step, and the tree beam search explored."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from ..trace import Trace
from .attention import check_step
from .labels import CHAR_EM, LINE_EM, default_top, title_chars
from .style import (
    MASKED_GREY,
    OKABE_ITO,
    Style,
    download_name,
    esc,
    finish,
    piece_label,
    style,
    token_ticks,
)
from .words import t

CHOSEN = OKABE_ITO["vermillion"]
ALTERNATIVE = OKABE_ITO["sky_blue"]
BEAM_NAME = "beam-tree"  # the beam tree's download
EDGE_LINES = {  # the beam tree's edges by kind; widths before the look's line width
    "pruned": dict(color=MASKED_GREY, width=0.5, dash="dot"),
    "kept": dict(color="#999999", width=0.7),
    "chosen": dict(color=CHOSEN, width=1.5),
}
NODE_COLOURS = {"pruned": MASKED_GREY, "kept": OKABE_ITO["blue"], "chosen": CHOSEN}
TOPK_PX = 460  # the top-k bars beside the lesson's map: two fifths of a 1280 px page
BAR_TEXT_PAD = 3  # px between a bar's end and the text Plotly writes past it


def topk_bar(trace: Trace, step: int, presentation: bool = False, width: float | None = None) -> go.Figure:
    """The most likely next tokens at `step` (probabilities at temperature 1), the chosen one highlighted.

    A sampled token outside the recorded alternatives gets a bar of its own, so the choice is always shown.
    """
    check_step(trace, step)
    st = style(presentation)
    record = trace.steps[step]
    options = [(o["token"], o["id"], float(o["prob"])) for o in record["top_k"]]
    if record["id"] not in {i for _, i, _ in options}:
        options.append((record["token"], record["id"], float(record["prob"])))
    tokens = [token for token, _, _ in options]
    data = []
    for chosen, name, colour in ((False, t("alternative"), ALTERNATIVE), (True, t("chosen-token"), CHOSEN)):
        rows = [r for r, (_, i, _) in enumerate(options) if (i == record["id"]) == chosen]
        data.append(
            dict(
                type="bar",
                x=[options[r][2] for r in rows],
                y=rows,
                orientation="h",
                name=name,
                marker=dict(color=colour),
                text=[f"{options[r][2]:.1%}" for r in rows],
                textposition="outside",
                cliponaxis=False,
                hovertext=[f"{esc(options[r][0])} (id {options[r][1]})" for r in rows],
                hovertemplate="%{hovertext}<br>p = %{x:.3f}<extra>" + name + "</extra>",
            )
        )
    layout = dict(
        xaxis=dict(
            range=[0, 1], tickformat=".0%", title=dict(text=t("probability")), showgrid=True, gridcolor="#E0E0E0"
        ),
        # a margin of its own instead of Plotly's automargin: the bars stay put from step to step, and a step is
        # drawn in one pass instead of two (measured in the browser: 11 ms against 31 ms a step)
        yaxis=dict(**token_ticks(tokens), autorange="reversed", title=dict(text=t("next-token")), automargin=False),
        margin=dict(l=candidates_margin(trace, st.font_size), r=probability_margin(st.font_size)),
        barmode="overlay",
        bargap=0.25,
    )
    # two lines at every step, the entropy and the forced-prefix note on the second: the title takes the same room
    # inside the forced prefix as after it, so the bars stay put as the learner steps past a branch
    forced = t("forced-prefix") if step < trace.forced_prefix else ""
    title = t("topk-title", step=step, entropy=float(record["entropy"]), forced=forced)
    height = max(300, 1.6 * st.row_px * len(tokens)) + 160 + 2 * st.font_size
    if width is None:  # how wide the page draws it: beside the lesson's map on screen, under it in a slide look
        width = st.figure_px if presentation else TOPK_PX
    layout["legend"] = legend(data, width - layout["margin"]["l"] - layout["margin"]["r"], st.font_size)
    return finish(data, layout, st, title, height, download_name("next-token-top-k", step=step), width=width)


LEGEND_ITEM_PX = 40  # a legend entry's symbol and the gaps around its name


def legend(data: list[dict], plot_px: float, font_size: int) -> dict:
    """The legend in one row over the bars where its names fit the plot's width; else stacked in its lower right
    corner, under the bars' ends (the least likely candidates' bars are the shortest), so that it never runs into
    the title over it."""
    names = [trace["name"] for trace in data]
    row_px = sum(CHAR_EM * font_size * sum(title_chars(name)) + LEGEND_ITEM_PX for name in names)
    if row_px <= plot_px:
        return dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1.0)
    return dict(yanchor="bottom", y=0.0, xanchor="right", x=1.0, bgcolor="rgba(255,255,255,0.8)")


def candidates_margin(trace: Trace, font_size: int) -> int:
    """The top-k chart's left margin in pixels: room for the widest candidate of any step and the axis title."""
    labels = [piece_label(o["token"]) for record in trace.steps for o in record["top_k"]]
    labels += [piece_label(record["token"]) for record in trace.steps]
    widest = max((sum(title_chars(label)) for label in labels), default=1)
    return int(CHAR_EM * font_size * widest + LINE_EM * font_size + 16)


def probability_margin(font_size: int) -> int:
    """The top-k chart's right margin in pixels: room for a full bar's "100.0%", written past the bar's end.

    One character more than CHAR_EM's estimate: digits and "%" are wider than an average letter (0.64 and 0.95 em in
    DejaVu Sans, the fallback sans-serif of many Linux browsers).
    """
    return max(40, int(CHAR_EM * font_size * (len(f"{1:.1%}") + 1) + BAR_TEXT_PAD))


def token_lookup(trace: Trace, id_to_token: dict[int, str] | None) -> dict[int, str]:
    """Every id → piece the trace knows (its output and each step's alternatives), overridden by id_to_token."""
    lookup = dict(zip(trace.target_ids, trace.target_tokens))
    for record in trace.steps:
        lookup.update({o["id"]: o["token"] for o in record["top_k"]})
    lookup.update(id_to_token or {})
    return lookup


def chosen_path(trace: Trace) -> set[int]:
    """Indices of beam_tree nodes on the returned translation's path: follow target_ids from the root."""
    path, parent = set(), -1
    for step, token in enumerate(trace.target_ids):
        match = [
            i
            for i, n in enumerate(trace.beam_tree)
            if n["step"] == step and n["parent"] == parent and n["id"] == token and n["kept"]
        ]
        if not match:
            break
        parent = match[0]
        path.add(parent)
    return path


def node_text(token_id: int, lookup: dict[int, str]) -> str:
    """A beam node's label: its piece as the maps show it ("Hund" for "▁Hund"), or its id when the piece is unknown."""
    return esc(piece_label(lookup[token_id])) if token_id in lookup else f"#{token_id}"


def node_hover(trace: Trace, node: int, lookup: dict[int, str]) -> str:
    """A beam node's hover: its token, the hypothesis's total log-probability, the token's own, and for a
    finished hypothesis the length-normalised score beam search ranks it by (Wu et al. 2016)."""
    n = trace.beam_tree[node]
    before = trace.beam_tree[n["parent"]]["log_prob"] if n["parent"] >= 0 else 0.0
    own = n["log_prob"] - before
    lines = [
        t(
            "node-hover",
            node=node,
            step=n["step"],
            token=f"{esc(piece_label(lookup.get(n['id'], '?')))} (id {n['id']})",
        ),
        t("node-log-p", log_p=n["log_prob"]),
        t("node-own", own=own, p=math.exp(own)),
    ]
    if n["finished"]:
        alpha = float(trace.options.get("length_penalty", 0.0))
        lines.append(t("node-finished", score=n["log_prob"] / ((5 + n["step"] + 1) / 6) ** alpha, alpha=alpha))
    lines.append(t("nodes-kept") if n["kept"] else t("node-pruned"))
    lines.append(t("node-click"))
    return "<br>".join(lines)


def beam_tree_figure(trace: Trace, id_to_token: dict[int, str] | None = None, presentation: bool = False) -> go.Figure:
    """Beam search's explored nodes by (step, rank): kept beams in colour, pruned ones grey, the chosen path
    highlighted, finished hypotheses (</s>) as diamonds. Tokens come from the trace or `id_to_token`: each node
    is labelled with its piece as the maps show it ("Hund" for "▁Hund"), its hover names the raw piece and id.

    Each node marker carries its node id (index into trace.beam_tree) as customdata; hover shows its scores.
    analysis.beam_node_prefix(trace.beam_tree, node) gives the target ids that lead to it.
    """
    st = style(presentation)
    if not trace.beam_tree:
        return no_beam_figure(trace, st)
    lookup, path = token_lookup(trace, id_to_token), chosen_path(trace)
    ranks, counts = node_ranks(trace.beam_tree)
    root = (-1, (max(counts.values()) - 1) / 2)  # <s>, left of step 0, halfway down the widest step
    kinds = node_kinds(trace.beam_tree, path)
    data = [
        *beam_edges(trace.beam_tree, kinds, ranks, root, st),
        *beam_nodes(trace, kinds, ranks, lookup, st),
        beam_root(root, st),
    ]
    title = t("beam-title-size", size=trace.options.get("beam_size", "?"))
    height = max(400, 46 * max(counts.values())) + 150
    return finish(data, beam_layout(counts), st, title, height, BEAM_NAME)


def no_beam_figure(trace: Trace, st: Style) -> go.Figure:
    """The figure for a trace without a beam tree: a note naming the strategy it was decoded with, under the title.

    The title and its note are the whole figure (a slide of it keeps that size): under them no plot, one pixel
    high, and a thin margin, so that no blank band is left between the note and the edges.
    """
    note = t("no-beam", strategy=esc(trace.options.get("strategy", "greedy")))
    title = f"{t('beam-title')}<br><span style='font-size:75%'>{note}</span>"
    layout = dict(xaxis=dict(visible=False), yaxis=dict(visible=False), margin=dict(b=4))
    return finish([], layout, st, title, default_top(st.title_size) + 5, BEAM_NAME)


def node_ranks(nodes: list[dict]) -> tuple[list[int], dict[int, int]]:
    """Each node's rank within its step, and each step's number of nodes."""
    ranks, counts = [], {}
    for n in nodes:  # candidates come best-first within a step: their order is their rank
        ranks.append(counts.get(n["step"], 0))
        counts[n["step"]] = ranks[-1] + 1
    return ranks, counts


def node_kinds(nodes: list[dict], path: set[int]) -> list[tuple[str, list[int]]]:
    """The node indices by kind, in drawing order: pruned, kept off the chosen path, on the chosen path."""
    return [
        ("pruned", [i for i, n in enumerate(nodes) if not n["kept"]]),
        ("kept", [i for i, n in enumerate(nodes) if n["kept"] and i not in path]),
        ("chosen", [i for i in range(len(nodes)) if i in path]),
    ]


def beam_edges(
    nodes: list[dict], kinds: list[tuple[str, list[int]]], ranks: list[int], root: tuple[float, float], st: Style
) -> list[dict]:
    """The edges from each node's parent (or <s>) to it, a line trace per kind: the chosen path drawn last, on top."""

    def position(i: int) -> tuple[float, float]:
        return root if i < 0 else (nodes[i]["step"], ranks[i])

    data = []
    for name, members in kinds:
        ex, ey = [], []
        for i in members:
            (x0, y0), (x1, y1) = position(nodes[i]["parent"]), position(i)
            ex += [x0, x1, None]
            ey += [y0, y1, None]
        line = EDGE_LINES[name]
        data.append(
            dict(
                type="scatter",
                x=ex,
                y=ey,
                mode="lines",
                hoverinfo="skip",
                showlegend=False,
                name=t("edges-" + name),
                line={**line, "width": st.line_width * line["width"]},
            )
        )
    return data


def beam_nodes(
    trace: Trace, kinds: list[tuple[str, list[int]]], ranks: list[int], lookup: dict[int, str], st: Style
) -> list[dict]:
    """The nodes as labelled markers, a trace per kind, each marker carrying its node id; finished ones diamonds."""
    nodes = trace.beam_tree
    data = []
    for name, members in kinds:
        data.append(
            dict(
                type="scatter",
                x=[nodes[i]["step"] for i in members],
                y=[ranks[i] for i in members],
                mode="markers+text",
                name=t("nodes-" + name),
                text=[node_text(nodes[i]["id"], lookup) for i in members],
                textposition="top center",
                marker=dict(
                    color=NODE_COLOURS[name],
                    size=st.font_size * 0.9,
                    line=dict(color="#444444", width=0.5),
                    symbol=["diamond" if nodes[i]["finished"] else "circle" for i in members],
                ),
                customdata=members,  # the node ids (indices into trace.beam_tree): points[0].customdata on click
                hovertext=[node_hover(trace, i, lookup) for i in members],
                hoverinfo="text",
                textfont=dict(size=max(9, st.font_size - 3), color="#888888" if name == "pruned" else "#222222"),
            )
        )
    return data


def beam_root(root: tuple[float, float], st: Style) -> dict:
    """The start marker, <s>, the root every hypothesis grows from."""
    return dict(
        type="scatter",
        x=[root[0]],
        y=[root[1]],
        mode="markers+text",
        text=["&lt;s&gt;"],
        textposition="middle left",
        marker=dict(color="#222222", size=st.font_size * 0.9),
        name=t("start"),
        showlegend=False,
        hoverinfo="skip",
    )


def beam_layout(counts: dict[int, int]) -> dict:
    """The layout: a tick per step, ranks top-down, the legend above the plot."""
    return dict(
        xaxis=dict(
            title=dict(text=t("step")), tickmode="array", tickvals=sorted(counts), showgrid=True, gridcolor="#E0E0E0"
        ),
        yaxis=dict(title=dict(text=t("rank")), autorange="reversed", dtick=1),
        legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1.0),
    )
