"""Whole ordering models that are not the encoder-decoder composition of
`models.ordering_model.OrderingModel`: the pairwise orderer, the calibration baselines (a
bag-of-words regression, a word-overlap rule) and the random baseline. The presets of
models/presets/ build them."""
