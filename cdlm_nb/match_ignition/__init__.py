"""Match-Ignition (Pang, Lan & Cheng, *Match-Ignition: Plugging PageRank into Transformer for Long-form Text
Matching*, arXiv:2101.06423, 2021): PageRank filters at the sentence level (`sentence_filter`) and, inside the
transformer, at the word level (`word_filter`), plugged into notebook 05's pair harness (`cdlm_nb.matching`)."""
