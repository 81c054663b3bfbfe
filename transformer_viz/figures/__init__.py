"""Plotly figure builders: pure functions from a Trace (or numpy arrays) to a go.Figure.

No torch, no model, no gradio here. Every builder takes `presentation=False`; True gives slide-sized
fonts on white. Show a figure with `plot_config()` (modebar PNG at 3x; plot_config("svg") for vector),
or hand Gradio `figure_json(fig)`, whose "config" key gr.Plot's front end applies; the camera's download is
named after what the figure shows (download_name(), e.g. "cross-attention_L0-H3_step-3.png").
Words (titles, axes, legends, hovers) are English unless built inside `with language("ja"):` (or "ko").
Layers, heads and steps count from 0, as in the hook names and trace.steps[i]["index"].
The attention maps (attention_grid, attention_head, overview, alignment) take units="pieces" (the default) or
units="words": SentencePiece pieces merged into words, keys summed and queries averaged (units.py says how).
score_figure takes a score.Score (Translator.score): a German sentence's pieces, their probabilities and ranks.
"""

from .alignment import alignment
from .attention import attention_axes, attention_grid, attention_head, head_matrix
from .attribution import agreement_figure, attribution_figure
from .compare import attention_pair, attention_side_by_side, padding_side_by_side, probability_change
from .geometry import neighbours_figure, query_key_figure
from .heads import head_summary_figure, rollout_figure, word_attention_figure
from .lens import logit_lens_figure
from .masks import cross_mask, decoder_causal_mask, encoder_padding_mask, mask_matrix, score_pipeline
from .overview import overview, overview_index
from .positions import cosine_similarity, position_similarity, positional_curves, positional_heatmap
from .qkv import qk_product, qkv_figure
from .qkv_numbers import QueryNumbers, query_numbers, strongest_source
from .replay import replay_figures
from .score import score_figure
from .steps import beam_tree_figure, topk_bar
from .style import (
    OKABE_ITO,
    PLOT_CONFIG,
    download_name,
    download_name_of,
    esc,
    figure_json,
    plot_config,
    with_download_name,
)
from .units import UNITS
from .views import VIEWS, show
from .words import current_language, language

__all__ = [
    "attention_grid",
    "attention_head",
    "alignment",
    "overview",
    "overview_index",
    "attention_axes",
    "head_matrix",
    "topk_bar",
    "beam_tree_figure",
    "probability_change",
    "attention_side_by_side",
    "attention_pair",
    "padding_side_by_side",
    "head_summary_figure",
    "rollout_figure",
    "word_attention_figure",
    "positional_heatmap",
    "positional_curves",
    "position_similarity",
    "cosine_similarity",
    "mask_matrix",
    "encoder_padding_mask",
    "decoder_causal_mask",
    "cross_mask",
    "score_pipeline",
    "logit_lens_figure",
    "attribution_figure",
    "agreement_figure",
    "qkv_figure",
    "qk_product",
    "query_numbers",
    "QueryNumbers",
    "strongest_source",
    "PLOT_CONFIG",
    "plot_config",
    "figure_json",
    "download_name",
    "download_name_of",
    "with_download_name",
    "esc",
    "OKABE_ITO",
    "UNITS",
    "language",
    "current_language",
    "show",
    "VIEWS",
    # the "Beyond attention" views'
    "replay_figures",
    "query_key_figure",
    "neighbours_figure",
    # a German sentence scored piece by piece (score.Score)
    "score_figure",
]
