"""The hierarchical attention network of Wang and Wan (2019), "Hierarchical Attention
Networks for Sentence Ordering" (AAAI): its preset (`han.py`), its blocks (`blocks/`), its
model, paper and parameter-study YAMLs (`conf/`) and its tests (`tests/`)."""
