import numpy as np

from svmlab.estimators._ovo import ovo_pairs, ovo_scores, ovo_votes, ovo_winner


def test_pairs_put_the_larger_class_first():
    assert ovo_pairs([10, 30, 20]) == [(1, 2), (1, 0), (2, 0)]
    assert ovo_pairs([5, 5]) == [(0, 1)]  # equal sizes: lower index first


def test_votes_then_evidence_then_lowest_index():
    pairs = [(0, 1), (0, 2), (1, 2)]
    outputs = np.array(
        [
            [
                1.0,
                -1.0,
                1.0,
            ],  # 0 beats 1, 2 beats 0, 1 beats 2: one vote each; evidence 0:2, 1:0, 2:-2
            [0.5, 2.0, -0.1],  # class 0 wins 2 votes
            [0.0, 0.0, 0.0],  # zero votes for the second class: 1 and 2 tie at... 2 gets 2 votes
        ]
    )
    votes, evidence = ovo_votes(outputs, pairs, 3)
    assert votes.tolist() == [[1, 1, 1], [2, 0, 1], [0, 1, 2]]
    assert ovo_winner(votes, evidence).tolist() == [0, 0, 2]
    assert (np.argmax(ovo_scores(votes, evidence), axis=1) == ovo_winner(votes, evidence)).all()
    flat = np.zeros((1, 3))
    assert ovo_winner(flat, flat).tolist() == [0]
