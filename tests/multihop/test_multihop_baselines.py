"""The non-neural reference: TF-IDF paragraph and sentence ranking, and the answer heuristic."""

from cdlm_nb.multihop.baselines import heuristic_answer, tfidf_prediction


def test_answer_heuristic_rules():
    assert heuristic_answer("Did the fire in Oslo need more firefighters than the one in Rome?", "") == "yes"
    assert heuristic_answer("Which earthquake killed more people, the one in Quito or the one in Lima?", "") == "Quito"
    assert heuristic_answer("Who was older when arrested, Ann Lee or Bo Kim?", "") == "Ann Lee"
    assert heuristic_answer("In which city was the founder of Acme Corp born?",
                            "Acme Corp was founded in 1950 by Jean Dupont.") == "1950"
    assert heuristic_answer("Where was Jean Dupont born?", "Jean Dupont was born in New York City.") == "New York City"


def test_tfidf_picks_the_paragraphs_that_share_words_with_the_question(qa_row):
    decoded = tfidf_prediction(qa_row)
    assert decoded.paragraphs == ["Acme Corp", "Jean Dupont"]
    assert ("Acme Corp", 0) in decoded.supporting and all(title != "Weather" for title, _ in decoded.supporting)
