"""Sentence vectors of a pretrained Transformer (all-MiniLM-L6-v2 by default, any encoder of
`models.blocks.pretrained`) under ATTOrderNet's paragraph encoder and decoder: frozen
(`minilm_ptrnet`) or with its top layers fine-tuned (`minilm_finetune`); their YAMLs."""
