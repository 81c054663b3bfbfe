"""A small load test: concurrent gradio_client visitors with normal and bad sentences (benchmarks/bench_load.py).

Every bad sentence must come back as the app's clear error, nothing else may fail, and every
visitor must get exactly the answer a lone visitor gets for the same sentence.
"""

from __future__ import annotations

import re

import pytest

pytest.importorskip("gradio_client")
from gradio_client import Client  # noqa: E402
from gradio_client.exceptions import AppError  # noqa: E402

from benchmarks.bench_load import INPUTS, run_load  # noqa: E402
from transformer_viz.translator import load_model  # noqa: E402


def library_outcomes(folder) -> list[tuple[str, str, str | None]]:
    """INPUTS with the error the library gives for each on this checkpoint (the tiny test models read only
    16 tokens, so some sentences are too long for them that the trained models take)."""
    translator, inputs = load_model(folder / "seed000"), []
    for label, text, error in INPUTS:
        try:
            translator.translate(text, truncate=False, max_new_tokens=1)
            inputs.append((label, text, None))
        except ValueError as refused:
            assert error is None or error in str(refused), (label, error, str(refused))
            inputs.append((label, text, str(refused)))
    return inputs


def test_concurrent_visitors_get_their_own_answers_and_clear_errors(app_server):
    url, folder = app_server
    inputs = library_outcomes(folder)
    assert any(error for _, _, error in inputs) and any(error is None for _, _, error in inputs)
    alone = {}
    client = Client(url, verbose=False, download_files=False)
    for label, text, error in inputs:
        if error is None:
            alone[label] = client.predict(text, "seed000", api_name="/translate")
        else:
            with pytest.raises(AppError, match=re.escape(error)):
                client.predict(text, "seed000", api_name="/translate")
    client.close()

    report = run_load(
        url, clients=4, seconds=3, model="seed000", inputs=inputs, min_each=len(inputs)
    )  # every input, by all four
    assert report["unexpected_errors"] == 0, report["problems"]
    assert report["served"] >= 4 * len(inputs)
    assert report["expected_errors"] >= 4 * sum(error is not None for _, _, error in inputs)
    assert report["answers"] == {label: [answer] for label, answer in alone.items()}  # each input, its one answer
