"""Plain-PyTorch sentence-ordering architectures: encoders, pointer decoders, searches, presets."""
