"""A small load test: concurrent gradio_client visitors with normal and bad sentences (benchmarks/bench_load.py).

Every bad sentence must come back as the app's clear error, nothing else may fail, and every
visitor must get exactly the answer a lone visitor gets for the same sentence.
"""
from __future__ import annotations

import pytest

pytest.importorskip("gradio_client")
from gradio_client import Client  # noqa: E402
from gradio_client.exceptions import AppError  # noqa: E402

from benchmarks.bench_load import INPUTS, run_load  # noqa: E402


def test_concurrent_visitors_get_their_own_answers_and_clear_errors(app_server):
    url, _ = app_server
    alone = {}
    client = Client(url, verbose=False, download_files=False)
    for label, text, error in INPUTS:
        if error is None:
            alone[label] = client.predict(text, "seed000", api_name="/translate")
        else:
            with pytest.raises(AppError, match=error):
                client.predict(text, "seed000", api_name="/translate")
    client.close()

    report = run_load(url, clients=4, seconds=3, model="seed000", min_each=len(INPUTS))  # every input, by all four
    assert report["unexpected_errors"] == 0, report["problems"]
    assert report["served"] >= 4 * len(INPUTS)
    assert report["expected_errors"] >= 4 * sum(error is not None for _, _, error in INPUTS)
    assert report["answers"] == {label: [answer] for label, answer in alone.items()}  # each input, its one answer
