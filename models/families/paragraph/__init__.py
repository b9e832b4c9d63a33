"""A pretrained Transformer over the whole shuffled paragraph (the 2020-2021 orderers:
BERSON, B-TSort, Re-BART's encoders) with a pointer, a listwise or a topological-sort head
(`paragraph.py`), BERSON's recipe and the presets' YAMLs (`conf/`)."""
