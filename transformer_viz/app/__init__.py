"""The Gradio app: the page, its tabs and their event handlers. The only part that imports gradio."""
