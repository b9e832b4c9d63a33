"""LSTM+PtrNet and CNN+PtrNet of Gong, Chen, Qiu and Huang (2016), "End-to-End Neural
Sentence Ordering Using Pointer Network": the presets and their shared settings
(`ptrnet.py`, `PtrNetSettings`), their YAMLs (`conf/`: the models, the released
configuration and the papers' runs) and their tests (`tests/`)."""
