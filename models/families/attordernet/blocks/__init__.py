"""Blocks only the ATTOrderNet family uses: its self-attention paragraph encoder (Cui et al.
2018, sec. 2.2) and the word-level self-attention sentence encoder of ATTOrderNet(ATT)."""
