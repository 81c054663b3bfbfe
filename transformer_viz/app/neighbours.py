"""The embedding neighbours of a trace's source pieces, from the loaded model that made the trace."""

from __future__ import annotations

from .. import figures
from ..lab.geometry import nearest
from ..trace import Trace
from .models import loaded_translator


def draw_neighbours(trace: Trace, presentation: bool = False):
    """Each source piece's nearest pieces in the model's shared embedding (None when that model is not loaded)."""
    translator = loaded_translator(trace.model.get("name"))
    if translator is None or translator.config.to_dict() != trace.model.get("config"):
        return None
    found = nearest(translator, trace.source_ids)
    return figures.neighbours_figure(found, presentation=presentation) if found.tokens else None
