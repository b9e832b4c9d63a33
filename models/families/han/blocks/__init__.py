"""The blocks only the HAN family uses."""
