"""Long-document classification (notebook 08): AoSE, attention over pre-trained sentence embeddings
(Abdaoui & Dutta 2023), with its same-encoder baselines, frozen and fine-tuned.

| module       | what                                                                            |
|--------------|---------------------------------------------------------------------------------|
| `segments`   | a document -> sentences of 5-250 tokens, read up to N tokens                    |
| `model`      | `DocumentClassifier` (attention or mean over sentence vectors), `FineTunedClassifier` |
| `training`   | one training loop and one prediction loop for every model                       |
| `baselines`  | TF-IDF + logistic regression                                                    |
| `experiment` | `prepare` a corpus, `run_frozen` and `run_finetuned` every model                |
| `report`     | AoSE's Tables 3-7 beside ours, the truncation figure, the α view, metrics, readings |

The attention layer is `cdlm_nb.attention_pooling` (shared with CDA's hierarchical attention networks);
sentence embeddings come from `cdlm_nb.sentence_encoders` (cached in the run folder); the corpora from
`cdlm_nb.data.aose_sets`.
"""
