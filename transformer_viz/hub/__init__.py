"""Checkpoints on disk and on the Hugging Face Hub: loading, saving, model cards."""
