"""CDA (Zhou, Pappas & Smith, *Multilevel Text Alignment with Cross-Document Attention*, EMNLP 2020): the HAN
encoders and the Siamese matcher (`model`), cross-document attention (`attention`), its inputs, the
sentence-to-document metrics (`alignment`), and notebook 10's experiment (training included) and report."""
