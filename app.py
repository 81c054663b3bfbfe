"""Hugging Face Spaces entry point: build the transformer-viz demo and serve it.

Honours GRADIO_SERVER_NAME / GRADIO_SERVER_PORT (Gradio reads them itself);
TRANSFORMER_VIZ_HUB_MODEL=owner/name adds a Hub checkpoint to the model menu.
"""
from transformer_viz.ui import launch

if __name__ == "__main__":
    launch()
