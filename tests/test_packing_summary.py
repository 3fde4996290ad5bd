from datasets import Dataset

from cdlm_nb.packing_summary import packing_metrics, packing_summary


def test_packing_summary_reads_a_dataset_from_its_arrow_columns():
    packed = Dataset.from_dict({"sources": [["a/0", "a/1"], ["b/0", "b/1", "b/2", "b/3"]],
                                "input_ids": [[0] * 10, [0] * 30], "truncated": [False, True]})
    assert packing_summary(packed) == {"examples": 2, "docs_per_example": 3.0, "tokens_per_example": 20.0,
                                       "truncated": 1}
    assert packing_metrics(packing_summary(packed)) == {"masking/docs_per_example": 3.0,
                                                        "masking/tokens_per_example": 20.0}
