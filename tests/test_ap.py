"""auprc_ap against plain definitions, brute force over orderings, and scikit-learn."""

from fractions import Fraction
from itertools import permutations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score

from pranker import auprc_ap
from pranker.measures.ap import ap_from_tie_groups, tie_groups
from pranker.null import min_auprc

MODES = ["average", "stable", "threshold", "optimistic", "pessimistic"]


# ---------------------------------------------------------------------------
# plain definitions, written independently of the package
# ---------------------------------------------------------------------------


def ap_of_order(labels_in_rank_order):
    """(1/P) sum_k k / r_k for a fully ordered list of labels, exact."""
    total = Fraction(0)
    k = 0
    for i, lab in enumerate(labels_in_rank_order, start=1):
        if lab:
            k += 1
            total += Fraction(k, i)
    return total / k


def orderings_consistent_with(scores):
    """All orders of indices with non-increasing scores (ties in any order)."""
    n = len(scores)
    for perm in permutations(range(n)):
        if all(scores[perm[i]] >= scores[perm[i + 1]] for i in range(n - 1)):
            yield perm


def brute_force(scores, y, mode):
    n = len(scores)
    if mode == "stable":
        order = sorted(range(n), key=lambda i: (-scores[i], i))
        return ap_of_order([y[i] for i in order])
    if mode == "threshold":
        # one operating point per distinct threshold t: precision at t, recall step
        P = sum(y)
        total = Fraction(0)
        prev_tp = 0
        for t in sorted(set(scores), reverse=True):
            tp = sum(1 for i in range(n) if scores[i] >= t and y[i])
            k = sum(1 for i in range(n) if scores[i] >= t)
            total += Fraction(tp - prev_tp, P) * Fraction(tp, k)
            prev_tp = tp
        return total
    values = [ap_of_order([y[i] for i in perm]) for perm in orderings_consistent_with(scores)]
    if mode == "average":
        return sum(values) / len(values)
    if mode == "optimistic":
        return max(values)
    return min(values)  # pessimistic


def random_tied_case(rng, n):
    scores = rng.integers(0, 3, size=n).astype(float)
    y = rng.integers(0, 2, size=n)
    if y.sum() == 0:
        y[rng.integers(n)] = 1
    return scores, y


@pytest.mark.parametrize("mode", MODES)
def test_tie_modes_match_brute_force_over_orderings(mode):
    rng = np.random.default_rng(1)
    for _ in range(25):
        n = int(rng.integers(1, 8))
        scores, y = random_tied_case(rng, n)
        want = brute_force(list(scores), list(y), mode)
        got = auprc_ap(scores, y, ties=mode)
        assert abs(got - float(want)) <= 1e-13 * float(want), (scores, y, mode)


def test_optimistic_pessimistic_are_extremes_of_orderings():
    # positives first / last inside ties = max / min over tie orders (checked above);
    # here the explicit ranks: one group of 4 with 2 positives behind 1 negative
    s = [2.0, 1, 1, 1, 1]
    y = [0, 1, 0, 1, 0]
    assert auprc_ap(s, y, ties="optimistic") == pytest.approx((1 / 2 + 2 / 3) / 2, rel=1e-15)
    assert auprc_ap(s, y, ties="pessimistic") == pytest.approx((1 / 4 + 2 / 5) / 2, rel=1e-15)


def test_seed_r_example():
    y = [1, 1, 1, 0, 0, 0, 1, 0, 1, 0]
    s = [0.9, 0.8, 0.4, 0.5, 0.3, 0.2, 0.8, 0.3, 0.8, 0.3]
    # positives at ranks 1..4 (0.9 and the three tied 0.8 positives) and 6 (0.4)
    want = (1 + 1 + 1 + 1 + Fraction(5, 6)) / 5
    for mode in MODES:
        assert auprc_ap(s, y, ties=mode) == pytest.approx(float(want), rel=1e-15)
    # matrix input: flattened (as in R) when asked for with average="micro"
    S, Y = np.reshape(s, (2, 5)), np.reshape(y, (2, 5))
    assert auprc_ap(S, Y, average="micro") == pytest.approx(float(want))
    with pytest.raises(ValueError, match=r"^auprc_ap: .*average='micro'.*average='macro'"):
        auprc_ap(S, Y)


def test_threshold_mode_equals_sklearn():
    rng = np.random.default_rng(2)
    for n, levels in [(50, 5), (1000, 30), (5000, 10**6)]:
        scores = rng.integers(0, levels, size=n) / 7.0
        y = rng.random(n) < 0.2
        y[0] = True
        want = average_precision_score(y, scores)
        assert auprc_ap(scores, y, ties="threshold") == pytest.approx(want, rel=1e-12, abs=0)


def test_no_ties_all_modes_agree_with_plain_loop():
    rng = np.random.default_rng(3)
    s = rng.standard_normal(2000)
    y = rng.random(2000) < 0.05
    order = np.argsort(-s)
    ranks = np.flatnonzero(y[order]) + 1
    want = np.mean(np.arange(1, len(ranks) + 1) / ranks)
    for mode in MODES:
        assert auprc_ap(s, y, ties=mode) == pytest.approx(want, rel=1e-13)


def test_large_tie_groups_average_against_expectation_formula():
    """A group of n tied items with p positives after A items / B positives.

    E[AP contribution] summed over positions by the plain definition
    E[y_i S_i]/i, computed in exact fractions; large enough groups (n > 64)
    exercise the asymptotic branch of the harmonic sums.
    """
    A, B, n, p = 37, 5, 300, 40
    # ranking: A items above (the first B positive), then the tied group
    scores = np.concatenate([np.arange(A, 0, -1) + 10.0, np.zeros(n)])
    y = np.concatenate([np.arange(A) < B, np.arange(n) < p])
    total = Fraction(0)
    for j in range(1, B + 1):  # positives above, at ranks 1..B
        total += Fraction(j, j)
    for t in range(1, n + 1):
        e_ys = Fraction(p, n) * (B + 1) + Fraction((t - 1) * p * (p - 1), n * (n - 1))
        total += e_ys / (A + t)
    want = total / (B + p)
    assert auprc_ap(scores, y) == pytest.approx(float(want), rel=1e-13)


def test_infinite_scores_are_ranked():
    s = [np.inf, 1.0, -np.inf, 0.5, -np.inf]
    y = [0, 1, 1, 0, 0]
    # ranks: inf(neg)=1, 1.0(pos)=2, 0.5(neg)=3, -inf tie of (pos, neg) at 4-5
    assert auprc_ap(s, y, ties="optimistic") == pytest.approx((1 / 2 + 2 / 4) / 2)
    assert auprc_ap(s, y, ties="pessimistic") == pytest.approx((1 / 2 + 2 / 5) / 2)
    assert auprc_ap(s, y, ties="stable") == pytest.approx((1 / 2 + 2 / 4) / 2)


def test_signed_zero_is_one_tie_group():
    assert auprc_ap([0.0, -0.0], [0, 1], ties="average") == 0.75


def test_tie_groups_counts():
    s = np.array([3.0, 2, 2, 2, 1, 1, 0])
    y = np.array([1, 0, 1, 1, 0, 1, 0], dtype=bool)
    g, n, pg, pt = tie_groups(s, y)
    assert g.tolist() == [0, 1, 4] and n.tolist() == [1, 3, 2]
    assert pg.tolist() == [0, 1, 3] and pt.tolist() == [1, 2, 1]
    for mode in ["average", "threshold", "optimistic", "pessimistic"]:
        assert ap_from_tie_groups(g, n, pg, pt, 4, mode) == pytest.approx(auprc_ap(s, y, ties=mode))
    with pytest.raises(ValueError, match="stable"):
        ap_from_tie_groups(g, n, pg, pt, 4, "stable")


# ---------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------

case = st.integers(1, 40).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(-5, 5), min_size=n, max_size=n),
        st.lists(st.booleans(), min_size=n, max_size=n).filter(any),
    )
)


@settings(max_examples=100, deadline=None)
@given(case, st.sampled_from(MODES))
def test_monotone_transform_invariance(data, mode):
    s, y = np.array(data[0], dtype=float), np.array(data[1])
    t = s**3 + 2 * s + 7  # strictly increasing and exact on these integers
    assert auprc_ap(t, y, ties=mode) == auprc_ap(s, y, ties=mode)


@settings(max_examples=100, deadline=None)
@given(case, st.randoms(use_true_random=False))
def test_average_mode_invariant_to_input_order(data, rnd):
    s, y = np.array(data[0], dtype=float), np.array(data[1])
    perm = list(range(len(s)))
    rnd.shuffle(perm)
    a = auprc_ap(s, y)
    b = auprc_ap(s[perm], y[perm])
    assert b == pytest.approx(a, rel=1e-13)


@settings(max_examples=100, deadline=None)
@given(case, st.sampled_from(MODES))
def test_bounds(data, mode):
    s, y = np.array(data[0], dtype=float), np.array(data[1])
    ap = auprc_ap(s, y, ties=mode)
    lo = min_auprc(len(s), int(np.sum(y)))
    assert lo * (1 - 1e-13) <= ap <= 1 + 1e-13
    opt = auprc_ap(s, y, ties="optimistic")
    pes = auprc_ap(s, y, ties="pessimistic")
    assert pes * (1 - 1e-13) <= ap
    if mode != "threshold":
        # orderings of ties lie between positives-last and positives-first; the
        # threshold mode is not an ordering (it credits a whole tied group with
        # the precision at its end) and can exceed the optimistic value
        assert ap <= opt * (1 + 1e-13)


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------


def test_nan_scores_rejected_with_count_and_index():
    s = np.array([0.1, np.nan, 0.3, np.nan])
    with pytest.raises(
        ValueError, match=r"2 NaN value\(s\); the first is at \(flattened\) index 1"
    ):
        auprc_ap(s, [1, 0, 1, 0])
    assert np.isnan(s[1])  # input untouched


def test_bad_inputs():
    with pytest.raises(ValueError, match="same number of elements"):
        auprc_ap([0.1, 0.2], [1, 0, 1])
    with pytest.raises(ValueError, match="no positive"):
        auprc_ap([0.1, 0.2], [0, 0])
    with pytest.raises(ValueError, match="empty"):
        auprc_ap([], [])
    with pytest.raises(TypeError, match="numeric"):
        auprc_ap(["a", "b"], [1, 0])
    with pytest.raises(TypeError, match="numeric"):
        auprc_ap([0.1, 0.2], ["yes", "no"])
    with pytest.raises(TypeError):
        auprc_ap([1 + 2j, 0.2], [1, 0])
    with pytest.raises(ValueError, match="NaN"):
        auprc_ap([0.1, 0.2], [np.nan, 1])
    with pytest.raises(ValueError, match="ties must be one of"):
        auprc_ap([0.1, 0.2], [1, 0], ties="random")


def test_labels_bool_int_and_nonzero():
    s = [0.9, 0.5, 0.1]
    a = auprc_ap(s, [True, False, True])
    assert auprc_ap(s, [1, 0, 1]) == a
    assert auprc_ap(s, [1, -1, 1]) == a  # -1/1 labels: 1 is the positive class
    with pytest.raises(ValueError, match="must be binary"):
        auprc_ap(s, [2.5, 0.0, -1])
    assert auprc_ap(s, np.array([2.5, 0.0, -1]) != 0) == a  # R's "nonzero is positive", asked for


def test_sort_in_pieces_gives_the_same_counts(monkeypatch):
    """The threaded path sorts one piece per core; counts add up exactly."""
    import pranker.measures.ap as ap_module

    rng = np.random.default_rng(11)
    s = np.round(rng.standard_normal(5000), 1)  # many ties across pieces
    y = rng.random(5000) < 0.05
    want = {m: auprc_ap(s, y, ties=m) for m in MODES}
    monkeypatch.setattr(ap_module, "_PARALLEL_MIN", 10)
    monkeypatch.setattr(ap_module.os, "cpu_count", lambda: 3)
    assert len(ap_module._sorted_parts(s)) == 3  # pieces, each sorted in its own thread
    for m in MODES:  # integer counts, then the same AP arithmetic: bit for bit
        assert auprc_ap(s, y, ties=m) == want[m]
    # and against the plain definition for the tie-free stable order
    order = sorted(range(len(s)), key=lambda i: (-s[i], i))
    assert auprc_ap(s, y, ties="stable") == pytest.approx(float(ap_of_order([y[i] for i in order])))


# ---------------------------------------------------------------------------
# sample_weight: the weighted definitions in exact fractions
# ---------------------------------------------------------------------------


def weighted_brute_force(scores, y, w, mode):
    """Weighted AP in fractions: sum over positives of w_i * precision / positive weight.

    ``"threshold"``: the precision of i's whole tie group (items scoring >= s_i);
    ``"stable"``: the precision of the items up to i in the order of decreasing
    score, ties in input order.
    """
    n = len(scores)
    w = [Fraction(x) for x in w]
    pos = sum(w[i] for i in range(n) if y[i])
    order = sorted(range(n), key=lambda i: (-scores[i], i))
    total = Fraction(0)
    for k, i in enumerate(order):
        if not y[i] or w[i] == 0:
            continue
        if mode == "threshold":
            above = [j for j in range(n) if scores[j] >= scores[i]]
        else:
            above = order[: k + 1]
        tp = sum(w[j] for j in above if y[j])
        total += w[i] * tp / sum(w[j] for j in above)
    return total / pos


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 4), st.booleans(), st.sampled_from([0, 0.5, 1, 2, 3.75])),
        min_size=1,
        max_size=12,
    ),
    st.sampled_from(["threshold", "stable"]),
)
def test_weighted_ap_against_fractions(items, mode):
    s = [float(a) for a, _, _ in items]
    y = [b for _, b, _ in items]
    w = [c for _, _, c in items]
    if not any(b and c > 0 for _, b, c in items):
        with pytest.raises(ValueError, match="^auprc_ap: y has no positive instance with nonzero"):
            auprc_ap(s, y, sample_weight=w, ties=mode)
        return
    want = float(weighted_brute_force(s, y, w, mode))
    assert auprc_ap(s, y, sample_weight=w, ties=mode) == pytest.approx(want, rel=1e-13)


@pytest.mark.parametrize("seed", range(6))
def test_integer_weights_are_copies_with_threshold_ties(seed):
    rng = np.random.default_rng(seed)
    n = 40
    s = rng.integers(0, 6, n) / 5.0
    y = rng.random(n) < 0.4
    y[0] = True
    w = rng.integers(0, 4, n)
    w[0] = 2
    want = auprc_ap(np.repeat(s, w), np.repeat(y, w), ties="threshold")
    assert auprc_ap(s, y, sample_weight=w, ties="threshold") == pytest.approx(want, rel=1e-13)
    # unit weights change nothing
    for mode in ("threshold", "stable"):
        assert auprc_ap(s, y, sample_weight=np.ones(n), ties=mode) == pytest.approx(
            auprc_ap(s, y, ties=mode), rel=1e-13
        )


def test_weighted_ap_leaves_out_zero_weights_and_masks():
    s = np.array([0.9, 0.8, 0.7, 0.6, 0.5])
    y = np.array([1, 0, 1, 0, 1])
    w = np.array([1.0, 0.0, 2.0, 1.0, 0.5])
    keep = w > 0
    for mode in ("threshold", "stable"):
        want = auprc_ap(s[keep], y[keep], sample_weight=w[keep], ties=mode)
        assert auprc_ap(s, y, sample_weight=w, ties=mode) == want
        w_m = np.ma.array(np.where(keep, w, 7.0), mask=~keep)  # a masked weight drops its item
        assert auprc_ap(s, y, sample_weight=w_m, ties=mode) == want
