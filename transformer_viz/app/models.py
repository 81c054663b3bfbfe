"""The model menu: the bundled checkpoints (and a Hub model), each loaded once per process and shared."""

from __future__ import annotations

import json
import os
import threading
from dataclasses import replace
from pathlib import Path

from .. import i18n
from ..figures.words import t as figure_text
from ..hub.hub import CHECKPOINTS_DIR, DEFAULT_CHECKPOINT
from ..translator import Translator, load_model

HUB_MODEL_ENV = "TRANSFORMER_VIZ_HUB_MODEL"  # a Hub repo id to offer beside the bundled checkpoints


_models: dict[str, Translator] = {}
_models_lock = threading.Lock()


def available_models(folder: Path = CHECKPOINTS_DIR) -> list[str]:
    """Every checkpoint folder bundled in checkpoints/ (default first), plus the Hub model named in the environment."""
    names = sorted(p.name for p in folder.iterdir() if (p / "config.json").is_file()) if folder.is_dir() else []
    names.sort(key=lambda n: n != DEFAULT_CHECKPOINT)
    if os.environ.get(HUB_MODEL_ENV):
        names.append(os.environ[HUB_MODEL_ENV])
    return names


def read_record(name: str, file: str) -> dict | None:
    """A JSON file (config.json, evaluation.json, training.json) of the bundled checkpoint `name`; None if none."""
    try:
        path = CHECKPOINTS_DIR / name / file
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
    except (OSError, ValueError):  # not a folder name (a Hub repo id, a name with a NUL), or not JSON
        return None


def model_config(name: str) -> dict | None:
    """A menu entry's config fields: its loaded model's, else its bundled folder's config.json; None if neither."""
    with _models_lock:
        loaded = _models.get(name)
    return loaded.config.to_dict() if loaded is not None else read_record(name, "config.json")


def model_label(name: str, lang: str = i18n.DEFAULT) -> str:
    """What the menu shows for a model, from its config: 'pre-LN · sinusoidal (seed000)'; its name if unknown."""
    config = model_config(name)
    if config is None:
        return name
    blocks = i18n.text("model-pre-ln" if config.get("norm_first") else "model-post-ln", lang)
    kind = config.get("positional")
    key = f"model-positions-{kind}"
    positions = i18n.text(key, lang) if key in i18n.CATALOGUES[i18n.DEFAULT] else str(kind)
    return f"{blocks} · {positions} ({name})"


def model_choices(names: list[str], lang: str = i18n.DEFAULT) -> list[tuple[str, str]]:
    """The model menu's (label, value) choices: the value stays the name, which share links and the API use."""
    return [(model_label(name, lang), name) for name in names]


def get_translator(name: str) -> Translator:
    """Each model is loaded once per process and shared, read-only, by every visitor."""
    with _models_lock:
        if name not in _models:
            _models[name] = load_model(name)
        return _models[name]


def loaded_translator(name: str | None) -> Translator | None:
    """The loaded model whose Translator.name (the name its traces record) is `name`, or None: nothing is loaded."""
    with _models_lock:
        return next((translator for translator in _models.values() if translator.name == name), None)


def register_translator(name: str, translator: Translator) -> None:
    """Make an already loaded model available under `name` (tests, or a model built in code)."""
    with _models_lock:
        _models[name] = translator


def learned_and_sinusoidal(n_positions: int = 64) -> dict[str, tuple[str, object]]:
    """First positions of a bundled model's learned table and of the sinusoidal table, for side-by-side views.

    The sinusoidal table comes from a bundled sinusoidal model (or the formula, at the learned model's width).
    Titles are in the language of the surrounding figures.language() block (English outside one).
    """
    tables: dict[str, tuple[str, object]] = {}
    for name in available_models():
        if not (CHECKPOINTS_DIR / name).is_dir():
            continue  # only bundled models: never download just for this view
        translator = get_translator(name)
        kind = translator.config.positional
        if kind in tables:
            continue
        pos = translator.model.encoder.pos
        weight = pos.table if kind == "sinusoidal" else pos.table.weight
        title = figure_text("positions-of", kind=figure_text(f"positional-{kind}"), name=name, n=n_positions)
        tables[kind] = (title, weight[:n_positions].detach().cpu().numpy())
    if "learned" in tables and "sinusoidal" not in tables:
        from ..model.transformer import SinusoidalPositionalEncoding

        width = tables["learned"][1].shape[1]
        config = replace(get_translator(next(iter(available_models()))).config, d_model=width, positional="sinusoidal")
        tables["sinusoidal"] = (
            figure_text("positions-formula", width=width),
            SinusoidalPositionalEncoding(config).table[:n_positions].numpy(),
        )
    return tables
