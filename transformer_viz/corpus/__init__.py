"""The parallel data, made before any training: the Ding dictionary's pairs (ding.py), the corpus built from the
German translations Debian ships (sources, debs, extract, clean, build), the everyday test set and the leak-free
split (pairs.py)."""
