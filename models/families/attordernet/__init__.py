"""ATTOrderNet of Cui, Li, Chen and Zhang (2018), "Deep Attentive Sentence Ordering Network"
(EMNLP): three sentence encoders (BiLSTM `attordernet`, self-attention `attordernet_att`, CNN
`attordernet_cnn`) under one self-attention paragraph encoder and LSTM pointer decoder, whose
settings and named sizes are `settings.AttOrderNetSettings`."""
