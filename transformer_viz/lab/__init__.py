"""Experiments on a trained model, above the translator: comparisons, replays and analyses of its attention
(the hooks they use are in probes/)."""
