"""CDA (Zhou, Pappas & Smith, *Multilevel Text Alignment with Cross-Document Attention*, EMNLP 2020): hierarchical
attention networks (`han`), cross-document attention (`attention`), the Siamese matcher (`model`), its inputs,
training, the sentence-to-document metrics (`alignment`), and notebook 10's experiment and report.
"""
