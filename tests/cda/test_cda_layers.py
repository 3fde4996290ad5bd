"""CDA's layers: eq. 2 by hand, the softmax over candidates only, padding masked, and the released-code options."""

import pytest
import torch

from cdlm_nb.cda.attention import CrossAttention, with_document
from cdlm_nb.cda.model import GRUHAN, BertHAN, SiameseCDA, Side
from cdlm_nb.support.errors import ConfigError


def test_equation_2_by_hand():
    layer = CrossAttention(2)
    with torch.no_grad():
        layer.affine.weight.copy_(torch.tensor([[1.0, 0, 1, 0], [0, 1, 0, 1]]))
        layer.affine.bias.zero_()
    d_a = torch.tensor([[[1.0, 0.0]]])
    candidates = torch.tensor([[[2.0, 0.0], [0.0, 1.0], [9.0, 9.0]]])
    out, weights = layer(d_a, candidates, torch.tensor([[1, 1, 0]]))
    e2, e0 = torch.exp(torch.tensor(2.0)), torch.exp(torch.tensor(0.0))
    expected_w = torch.tensor([e2 / (e2 + e0), e0 / (e2 + e0), 0.0])
    assert torch.allclose(weights[0, 0], expected_w)  # the padded candidate gets nothing
    mix = expected_w[0] * torch.tensor([2.0, 0.0]) + expected_w[1] * torch.tensor([0.0, 1.0])
    assert torch.allclose(out[0, 0], torch.tensor([1.0, 0.0]) + mix)  # affine([d; mix]) with W = [I I]


def test_softmax_is_over_the_candidates_unless_the_batch_bug_is_chosen():
    layer, queries, candidates = CrossAttention(4), torch.randn(3, 1, 4), torch.randn(3, 5, 4)
    mask = torch.ones(3, 5, dtype=torch.long)
    assert torch.allclose(layer(queries, candidates, mask)[1].sum(-1), torch.ones(3, 1))
    bug = layer(queries, candidates, mask, softmax_dim=0)[1]
    assert torch.allclose(bug.sum(0), torch.ones(1, 5)) and not torch.allclose(bug.sum(-1), torch.ones(3, 1))


def test_the_shallow_candidates_are_the_sentences_and_the_document():
    sentences, mask, document = torch.zeros(2, 3, 4), torch.tensor([[1, 1, 0], [1, 1, 1]]), torch.ones(2, 4)
    candidates, candidate_mask = with_document(sentences, mask, document)
    assert candidates.shape == (2, 4, 4) and candidate_mask.tolist() == [[1, 1, 0, 1], [1, 1, 1, 1]]
    assert torch.equal(candidates[:, -1], document)


def _word_side(lengths_per_doc):
    torch.manual_seed(0)
    n_sentences = max(len(doc) for doc in lengths_per_doc)
    n_words = max(max(doc) for doc in lengths_per_doc)
    ids = torch.zeros(len(lengths_per_doc), n_sentences, n_words, dtype=torch.long)
    for i, doc in enumerate(lengths_per_doc):
        for j, length in enumerate(doc):
            ids[i, j, :length] = torch.randint(2, 20, (length,))
    sentence_mask = (ids != 0).any(-1).long()
    return Side(sentence_mask, word_ids=ids, word_mask=(ids != 0).long())


def test_padding_does_not_change_a_document_vector_unless_the_mask_bug_is_chosen():
    torch.manual_seed(0)
    han = GRUHAN(20, embedding_dim=6, hidden=4).eval()
    alone = _word_side([[3, 3]])  # no padding inside
    padded = Side(torch.tensor([[1, 1, 0]]), word_ids=torch.nn.functional.pad(alone.word_ids, (0, 2, 0, 1)))
    padded.word_mask = (padded.word_ids != 0).long()
    with torch.no_grad():
        vector = han.document(alone, han.sentences(alone))[0]
        assert torch.allclose(vector, han.document(padded, han.sentences(padded))[0], atol=1e-6)
        han.mask_padding = False
        assert not torch.allclose(vector, han.document(padded, han.sentences(padded))[0], atol=1e-4)
        assert torch.allclose(vector, han.document(alone, han.sentences(alone))[0], atol=1e-6)  # no padding: same


def test_the_document_word_state_lets_one_sentence_change_the_next():
    torch.manual_seed(0)
    han = GRUHAN(20, embedding_dim=6, hidden=4).eval()
    side = _word_side([[3, 3]])
    changed = Side(side.sentence_mask, word_ids=side.word_ids.clone(), word_mask=side.word_mask)
    changed.word_ids[0, 0, 0] = 19 if side.word_ids[0, 0, 0] != 19 else 18
    with torch.no_grad():
        second = han.sentences(side)[0, 1]
        assert torch.allclose(second, han.sentences(changed)[0, 1])  # sentences are read apart
        han.word_state = "document"
        assert not torch.allclose(han.sentences(side)[0, 1], han.sentences(changed)[0, 1])


@pytest.mark.parametrize("cda", ["none", "shallow", "deep"])
def test_the_matcher_gives_a_logit_and_alignment_scores_per_pair(cda):
    torch.manual_seed(0)
    model = SiameseCDA(GRUHAN(20, embedding_dim=6, hidden=4), cda=cda).eval()
    a, b = _word_side([[3, 2, 4], [2, 0]]), _word_side([[2], [3, 3]])
    a.sentence_mask = torch.tensor([[1, 1, 1], [1, 0, 0]])
    output = model(a, b)
    assert output.logits.shape == (2,)
    assert torch.allclose(output.attention_alignment.sum(-1), torch.ones(2))
    assert output.attention_alignment[1, 1:].abs().max() == 0 and output.cosine_alignment[1, 1] == -2.0


def test_deep_needs_word_vectors_and_combine_is_checked():
    with pytest.raises(ConfigError, match="GRU-HAN only"):
        SiameseCDA(BertHAN(8, hidden=4), cda="deep")
    with pytest.raises(ConfigError, match="cda='wide' is not a CDA kind"):
        SiameseCDA(BertHAN(8, hidden=4), cda="wide")
    with pytest.raises(ConfigError, match="combine='multiply'"):
        CrossAttention(4, combine="multiply")
