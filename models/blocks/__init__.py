"""Building blocks of the ordering models: embeddings, sentence and paragraph encoders, pointer
decoders, attention parts."""
