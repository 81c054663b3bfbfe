"""The model: ordinary PyTorch modules written as the equations of the paper, with hook points. Imports only torch."""
