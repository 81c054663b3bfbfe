"""Hugging Face Spaces entry point: build the transformer-viz demo and serve it.

Honours GRADIO_SERVER_NAME / GRADIO_SERVER_PORT (Gradio reads them itself);
TRANSFORMER_VIZ_HUB_MODEL=owner/name adds a Hub checkpoint to the model menu.
"""

import os

# Gradio's usage analytics would phone home: off unless the environment asks for them (before gradio is imported).
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

from transformer_viz.app.page import launch  # noqa: E402

if __name__ == "__main__":
    launch()
