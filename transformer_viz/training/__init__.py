"""Training: batching, the training loop, checkpoints and snapshots, evaluation, mixtures and retrain (the pairs it
reads come from corpus/)."""
