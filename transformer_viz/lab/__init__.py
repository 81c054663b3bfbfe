"""Experiments on a trained model: interventions, comparisons, and analyses of its attention."""
