"""OrderBench data package: readers, splitting, tokenisation, vocabulary, pretrained
vectors, the shuffle protocol (docs/design.md, section 5), caching and the Lightning DataModule.

Downloaded and derived files live in the git-ignored ``data/cache/`` folder.
"""
