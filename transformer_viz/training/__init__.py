"""Training data and training: the Ding dictionary, batching, the training loop, evaluation."""
