"""Argument order, label meaning and masked arrays at the public entry points."""

import inspect

import numpy as np
import pytest

from pranker import (
    InputError,
    ap_interval,
    auprc_ap,
    average_precision_many,
    pr_curve,
    pranker,
    roc_auc,
    roc_auc_many,
    roc_curve,
)
from pranker._validation import binarize_labels, check_labels, check_scores_labels
from pranker.measures.uncertainty import auprc_trapezoid

RNG = np.random.default_rng(20240611)
S = RNG.random(40)
Y = np.zeros(40, dtype=int)
Y[[0, 3, 5, 11, 17, 18, 24, 30, 36]] = 1  # every row of Y.reshape(4, 10) has both


def _value(f, *args, **kwargs):
    """A comparable summary of what a measure function returns."""
    out = f(*args, **kwargs)
    if hasattr(out, "precision"):
        return out.precision.tolist(), out.recall.tolist()
    if hasattr(out, "tpr"):
        return out.fpr.tolist(), out.tpr.tolist()
    if hasattr(out, "auprc_interval"):  # TrapezoidAUPRC, APInterval
        return out.auprc
    if isinstance(out, np.ndarray):
        return out.tolist()
    return out


# one-ranking functions, with the name their errors start with
SINGLE = [
    (auprc_ap, "auprc_ap"),
    (pr_curve, "pr_curve"),
    (roc_curve, "roc_curve"),
    (roc_auc, "roc_auc"),
    (auprc_trapezoid, "auprc_trapezoid"),
    (ap_interval, "ap_interval"),
]
ROWS = [(average_precision_many, "average_precision_many"), (roc_auc_many, "roc_auc_many")]
ALL = SINGLE + ROWS


def _args(f):
    """(scores, y) suited to ``f``: 2-D for the row-wise functions."""
    if (f, f.__name__) in ROWS:
        return S.reshape(4, 10), Y.reshape(4, 10)
    return S, Y


# ---------------------------------------------------------------------------
# swapped arguments
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("f, where", ALL)
def test_sklearn_order_is_refused_with_a_clear_message(f, where):
    s, y = _args(f)
    with pytest.raises(ValueError) as info:
        f(y, s)  # scikit-learn's (y_true, y_score)
    msg = str(info.value)
    assert msg.startswith(f"{where}: the arguments look swapped")
    assert "(scores, y), like R" in msg and "(y_true, y_score)" in msg
    assert f"{where}(y_true=..., y_score=...)" in msg


def test_swap_guard_in_pranker():
    with pytest.raises(ValueError, match="^pranker: the arguments look swapped"):
        pranker(Y, S)


@pytest.mark.parametrize("labels_as_scores", [Y.astype(bool), Y.astype(float), 2 * Y - 1])
def test_swap_guard_sees_bool_float_and_pm1_scores(labels_as_scores):
    with pytest.raises(ValueError, match="look swapped"):
        auprc_ap(labels_as_scores, S)


def test_swap_guard_with_pos_label():
    # sklearn habit: pos_label=1 with the arguments in sklearn's order
    with pytest.raises(ValueError, match="look swapped.*non-integer values such as") as info:
        auprc_ap(Y, S, pos_label=1)
    assert "y != 0" not in str(info.value)  # with pos_label the binary hint does not apply


def test_hard_predictions_as_scores_are_not_mistaken_for_a_swap():
    hard = (S > 0.5).astype(int)
    assert 0 < auprc_ap(hard, Y) <= 1  # both binary: nothing to detect
    classes = np.arange(40) % 3  # 0/1 predictions scored against class 2 (one-vs-rest)
    assert auprc_ap(hard, classes, pos_label=2) == auprc_ap(hard, classes == 2)


def test_multiclass_labels_with_binary_scores_say_both_possibilities():
    hard = (S > 0.5).astype(int)
    with pytest.raises(ValueError, match="look swapped.*If the order is right.*pos_label="):
        auprc_ap(hard, np.arange(40) % 3)


# ---------------------------------------------------------------------------
# keyword spellings
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("f, where", ALL)
def test_keyword_spellings_agree(f, where):
    s, y = _args(f)
    want = _value(f, s, y)
    assert _value(f, scores=s, y=y) == want
    assert _value(f, y_true=y, y_score=s) == want
    assert _value(f, s, y_true=y) == want
    assert _value(f, y=y, y_score=s) == want


@pytest.mark.parametrize("f, where", ALL)
def test_both_spellings_at_once_are_refused(f, where):
    s, y = _args(f)
    with pytest.raises(
        TypeError, match=rf"^{where}\(\) got scores twice: as scores= and as y_score="
    ):
        f(scores=s, y_score=s, y=y)
    with pytest.raises(TypeError, match=rf"^{where}\(\) got y twice: positionally and as y_true="):
        f(s, y, y_true=y)
    with pytest.raises(TypeError, match=r"got scores twice: positionally and as y_score=.*y_true="):
        f(y, y_score=s)  # a first positional argument is always the scores


def test_signatures_still_show_r_order():
    for f, _ in ALL:
        assert list(inspect.signature(f).parameters)[:2] == ["scores", "y"]
        assert "pos_label" in inspect.signature(f).parameters


def test_missing_argument_is_a_plain_type_error():
    with pytest.raises(TypeError):
        auprc_ap(y_true=Y)


# ---------------------------------------------------------------------------
# what is a positive
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("f, where", ALL)
def test_codings_agree(f, where):
    s, y = _args(f)
    want = _value(f, s, y)
    assert _value(f, s, y.astype(bool)) == want
    assert _value(f, s, y.astype(np.float32)) == want
    assert _value(f, s, 2 * y - 1) == want  # -1/1: 1 is the positive class
    assert _value(f, s, y.astype(np.uint8)) == want
    assert _value(f, s, 1 - y, pos_label=0) == want


@pytest.mark.parametrize("f, where", ALL)
def test_more_than_two_values_is_an_error_that_says_what_to_do(f, where):
    s, y = _args(f)
    y3 = y * (1 + np.cumsum(y).reshape(y.shape) % 3)  # values 0, 1, 2, 3
    with pytest.raises(ValueError) as info:
        f(s, y3)
    msg = str(info.value)
    assert msg.startswith(f"{where}: y has 4 distinct values (0, 1, 2, 3)")
    assert "numpy.asarray(y) != 0" in msg and "pos_label=" in msg
    # and both ways out work
    assert _value(f, s, np.asarray(y3) != 0) == _value(f, s, y)
    if (f, where) in SINGLE:  # (some rows hold no 2)
        assert _value(f, s, y3, pos_label=2) == _value(f, s, y3 == 2)


@pytest.mark.parametrize(
    "bad, what",
    [
        ([1, 2], "holds the values 1, 2"),
        ([0, 2], "holds the values 0, 2"),
        ([0.0, 0.5], "holds the values 0, 0.5"),
        ([-1, 0, 1], "has 3 distinct values"),
    ],
)
def test_two_valued_but_not_binary_coding(bad, what):
    y = np.resize(bad, 40)
    with pytest.raises(ValueError, match=f"^auprc_ap: y {what}.*must be binary"):
        auprc_ap(S, y)


def test_single_valued_labels():
    assert auprc_ap(S, np.ones(40)) == 1.0  # all positive
    for value in (0, -1, False):
        with pytest.raises(ValueError, match="^auprc_ap: y has no positive instance.*pos_label="):
            auprc_ap(S, np.full(40, value))
    with pytest.raises(ValueError, match="holds the single value 5.*pos_label="):
        auprc_ap(S, np.full(40, 5))
    assert auprc_ap(S, np.full(40, 5), pos_label=5) == 1.0


def test_string_labels_need_pos_label():
    words = np.where(Y == 1, "spam", "ham")
    with pytest.raises(TypeError, match="^auprc_ap: y holds non-numeric labels.*pos_label="):
        auprc_ap(S, words)
    want = auprc_ap(S, Y)
    assert auprc_ap(S, words, pos_label="spam") == want
    assert auprc_ap(S, list(words), pos_label="spam") == want
    assert auprc_ap(S, words.astype(object), pos_label="spam") == want
    assert auprc_ap(S, np.char.encode(words), pos_label=b"spam") == want
    assert roc_auc(S, words, pos_label="ham") == pytest.approx(1 - roc_auc(S, Y))


def test_one_vs_rest_with_pos_label():
    classes = np.array(["a", "b", "c", "d"])[np.arange(40) % 4]
    assert auprc_ap(S, classes, pos_label="c") == auprc_ap(S, classes == "c")


def test_pos_label_errors():
    words = np.where(Y == 1, "spam", "ham")
    with pytest.raises(
        ValueError,
        match="^auprc_ap: pos_label='Spam' does not occur in y, whose values are 'ham', 'spam'",
    ):
        auprc_ap(S, words, pos_label="Spam")
    with pytest.raises(ValueError, match="^pr_curve: pos_label=1 is not a string.*pos_label='1'"):
        pr_curve(S, words, pos_label=1)
    with pytest.raises(ValueError, match="^roc_auc: pos_label='1' is a string but y holds numbers"):
        roc_auc(S, Y, pos_label="1")
    with pytest.raises(ValueError, match="pos_label=7 does not occur"):
        auprc_ap(S, Y, pos_label=7)
    with pytest.raises(ValueError, match="pos_label cannot be NaN"):
        auprc_ap(S, Y, pos_label=float("nan"))
    with pytest.raises(ValueError, match="single label value"):
        auprc_ap(S, Y, pos_label=[1])
    with pytest.raises(ValueError, match="no negative instance"):
        roc_auc(S, np.ones(40), pos_label=1)


def test_nan_labels_are_still_an_error():
    y = Y.astype(float)
    y[4] = np.nan
    with pytest.raises(
        ValueError,
        match=r"^auprc_ap: y contains 1 NaN value\(s\); the first is at "
        r"\(flattened\) index 4",
    ):
        auprc_ap(S, y)
    with pytest.raises(ValueError, match="NaN"):
        auprc_ap(S, y, pos_label=1)


def test_average_precision_many_shared_and_per_row_labels():
    s = S.reshape(4, 10)
    y = np.array(["x", "y"])[Y[:10] % 2]
    got = average_precision_many(s, y, pos_label="y")
    # the row kernel against the single-ranking one: to 1e-12 relative
    assert got.tolist() == pytest.approx([auprc_ap(row, Y[:10]) for row in s], rel=1e-12)


# ---------------------------------------------------------------------------
# masked arrays: masked instances are left out
# ---------------------------------------------------------------------------


def _masked_inputs():
    s = S.copy()
    s[[2, 7]] = np.nan  # masked entries may hold anything
    s_m = np.ma.masked_invalid(s)
    y_m = np.ma.array(Y, mask=np.zeros(40, bool))
    y_m[[3, 9]] = np.ma.masked
    keep = np.ones(40, bool)
    keep[[2, 7, 3, 9]] = False
    return s_m, y_m, keep


@pytest.mark.parametrize("f, where", SINGLE)
def test_masked_instances_are_dropped(f, where):
    s_m, y_m, keep = _masked_inputs()
    want = _value(f, S[keep], Y[keep])
    assert _value(f, s_m, y_m) == want
    assert _value(f, s_m, np.ma.getdata(y_m)) == _value(
        f, S[~np.ma.getmaskarray(s_m)], Y[~np.ma.getmaskarray(s_m)]
    )
    assert _value(f, np.ma.array(S), np.ma.array(Y)) == _value(f, S, Y)  # nothing masked


def test_masked_weights_drop_their_items():
    s_m, y_m, keep = _masked_inputs()
    w = np.ma.array(np.arange(1.0, 41.0), mask=False)
    w[5] = np.ma.masked
    keep_w = keep.copy()
    keep_w[5] = False
    got = pr_curve(s_m, y_m, sample_weight=w)
    want = pr_curve(S[keep_w], Y[keep_w], sample_weight=np.arange(1.0, 41.0)[keep_w])
    assert got.precision.tolist() == want.precision.tolist()
    assert roc_auc(s_m, y_m, sample_weight=w) == roc_auc(
        S[keep_w], Y[keep_w], sample_weight=np.arange(1.0, 41.0)[keep_w]
    )


def test_masked_labels_of_strings():
    words = np.ma.array(np.where(Y == 1, "spam", "ham"), mask=np.arange(40) < 5)
    assert auprc_ap(S, words, pos_label="spam") == auprc_ap(S[5:], Y[5:])


def test_everything_masked():
    with pytest.raises(ValueError, match="^auprc_ap: all 40 instances are masked"):
        auprc_ap(np.ma.masked_all(40), Y)


def test_masked_positives_can_leave_none():
    y_m = np.ma.array(Y, mask=Y == 1)
    with pytest.raises(ValueError, match="no positive"):
        auprc_ap(S, y_m)


def test_masked_size_mismatch_is_reported():
    with pytest.raises(ValueError, match="same number of elements"):
        auprc_ap(np.ma.masked_invalid([0.1, np.nan, 0.3]), [1, 0])


@pytest.mark.parametrize("f, where", ROWS)
def test_row_functions_refuse_masked_entries(f, where):
    s = np.ma.masked_invalid(np.where(np.arange(40) == 3, np.nan, S)).reshape(4, 10)
    with pytest.raises(
        ValueError, match=f"^{where}: scores is a masked array with 1 masked entries.*compressed"
    ):
        f(s, Y.reshape(4, 10))
    y = np.ma.array(Y, mask=np.arange(40) == 0).reshape(4, 10)
    with pytest.raises(ValueError, match=f"^{where}: y is a masked array"):
        f(S.reshape(4, 10), y)


# ---------------------------------------------------------------------------
# the entry point other code calls
# ---------------------------------------------------------------------------


def test_check_scores_labels_contract():
    s, yb = check_scores_labels([[3, 1], [2, 0]], [[1, -1], [-1, 1]], where="somewhere")
    assert s.dtype == np.float64 and s.shape == (4,) and s.flags.c_contiguous
    assert yb.dtype == np.bool_ and yb.tolist() == [True, False, False, True]
    s, yb = check_scores_labels(S, np.zeros(40), require_positive=False)
    assert not yb.any()
    with pytest.raises(ValueError, match="^somewhere: y has no positive"):
        check_scores_labels(S, np.zeros(40), where="somewhere")
    with pytest.raises(ValueError, match="^pranker: the arguments look swapped"):
        check_scores_labels(Y, S)  # default where


def test_binarize_and_check_labels_keep_and_flatten_shape():
    y = np.array([[1, -1, 1], [-1, -1, 1]])
    assert binarize_labels(y).shape == (2, 3)
    assert check_labels(y).tolist() == [True, False, True, False, False, True]
    assert check_labels(np.array(["a", "b"]), pos_label="b").tolist() == [False, True]
    with pytest.raises(ValueError, match=r"^chunk 3: labels \(x\) has 3 distinct"):
        check_labels([0, 1, 2], name="labels (x)", where="chunk 3")


def test_a_chunk_may_lack_pos_label():
    chunk = np.array(["ham", "ham"])
    with pytest.raises(ValueError, match="does not occur"):
        check_labels(chunk, pos_label="spam")
    assert check_labels(chunk, pos_label="spam", pos_label_must_occur=False).tolist() == [
        False,
        False,
    ]


def _entries_into_validation(fn):
    """Calls of _validation's public functions made from outside the module, by name."""
    import collections
    import sys

    import pranker._validation as validation

    here = validation.__file__
    public = {n for n in dir(validation) if not n.startswith("_")}
    counts: collections.Counter = collections.Counter()

    def profile(frame, event, arg):
        code = frame.f_code
        if (
            event == "call"
            and code.co_filename == here
            and code.co_name in public
            and frame.f_back is not None
            and frame.f_back.f_code.co_filename != here
        ):
            counts[code.co_name] += 1

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return counts


def test_pranker_validates_the_scores_once():
    """One pranker(scores, y) call checks the scores at its boundary, not again in the AP path."""
    import pranker as pk

    rng = np.random.default_rng(3)
    y = rng.random(400) < 0.1
    s = rng.standard_normal(400) + y
    pk.pranker(s, y)  # compile outside the profile
    counts = _entries_into_validation(lambda: pk.pranker(s, y))
    on_scores = sum(
        counts[name]
        for name in ("check_scores_labels", "check_scores", "check_no_nan", "binarize_labels")
    )
    assert 1 <= on_scores <= 2, counts
    # the AP of invalid input is still refused at the boundary
    with pytest.raises(ValueError, match="NaN"):
        pk.pranker(np.where(np.arange(400) == 7, np.nan, s), y)


# ---------------------------------------------------------------------------
# messages: each names its function and says what was wrong
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("f, where", ALL)
def test_missing_labels_are_reported_as_labels(f, where):
    s, y = _args(f)
    y_nan = y.astype(float)
    y_nan.flat[4] = np.nan
    with pytest.raises(ValueError) as info:
        f(s, y_nan)
    msg = str(info.value)
    assert msg.startswith(
        f"{where}: y contains 1 NaN value(s); the first is at (flattened) index 4"
    )
    assert "inf" not in msg and "label" in msg  # nothing about how scores are ranked
    y_none = y.astype(object)
    y_none.flat[4] = None
    with pytest.raises(ValueError, match=rf"^{where}: y contains 1 None value\(s\)"):
        f(s, y_none)


@pytest.mark.parametrize("f, where", ALL)
def test_none_among_the_scores_is_not_called_nan(f, where):
    s, y = _args(f)
    s_none = s.astype(object)
    s_none.flat[[2, 5]] = None
    with pytest.raises(TypeError) as info:  # scikit-learn's TypeError for None among scores
        f(s_none, y)
    msg = str(info.value)
    assert msg.startswith(f"{where}: scores contains 2 None value(s); the first is at")
    assert "NaN" not in msg


@pytest.mark.parametrize("f, where", ALL)
def test_string_labels_are_a_value_error_as_in_sklearn(f, where):
    s, y = _args(f)
    words = np.where(y == 1, "spam", "ham")
    with pytest.raises(ValueError, match=f"^{where}: y holds non-numeric labels") as info:
        f(s, words)
    assert isinstance(info.value, TypeError)  # what it was before: both still catch it
    assert isinstance(info.value, InputError)  # the public name catches it too
    assert type(info.value).__module__ + "." + type(info.value).__name__ == "pranker.InputError"


@pytest.mark.parametrize("f, where", ALL)
def test_conversion_errors_name_the_function(f, where):
    s, y = _args(f)
    with pytest.raises(ValueError, match=f"^{where}: scores must be real-valued"):
        f(s * 1j, y)
    with pytest.raises(TypeError, match=f"^{where}: scores must be numeric"):
        f(np.full(np.shape(s), "x"), y)
    with pytest.raises(ValueError, match=f"^{where}: scores could not be converted.*rectangular"):
        f([[0.1], [0.2, 0.3]], y)


WEIGHTED = [
    (auprc_ap, "auprc_ap", {"ties": "threshold"}),
    (pr_curve, "pr_curve", {}),
    (roc_curve, "roc_curve", {}),
    (roc_auc, "roc_auc", {}),
    (average_precision_many, "average_precision_many", {"ties": "threshold"}),
]


@pytest.mark.parametrize("f, where, kw", WEIGHTED)
def test_weight_errors_name_the_function(f, where, kw):
    s, y = _args(f)
    n = np.shape(s)[-1]
    with pytest.raises(ValueError, match=f"^{where}: sample_weight must"):
        f(s, y, sample_weight=np.ones(n + 1), **kw)
    bad = np.ones(n)
    bad[3] = -1.0
    with pytest.raises(ValueError, match=f"^{where}: sample_weight must be finite and >= 0"):
        f(s, y, sample_weight=bad, **kw)
    with pytest.raises(ValueError, match=f"^{where}: sample_weight must be numeric"):
        f(s, y, sample_weight=["a"] * n, **kw)


@pytest.mark.parametrize("f, where", [(auprc_ap, "auprc_ap"), ROWS[0]])
@pytest.mark.parametrize("ties", ["average", "optimistic", "pessimistic"])
def test_weighted_ties_without_meaning_say_which_to_use(f, where, ties):
    s, y = _args(f)
    with pytest.raises(ValueError) as info:
        f(s, y, sample_weight=np.ones(np.shape(s)[-1]), ties=ties)
    msg = str(info.value)
    assert msg.startswith(f"{where}: ties={ties!r} has no weighted meaning")
    assert "ties='threshold'" in msg and "average_precision_score" in msg


def test_row_errors_name_the_function():
    with pytest.raises(ValueError, match="^average_precision_many: scores must be 2-D"):
        average_precision_many(S, Y)
    with pytest.raises(ValueError, match=r"^roc_auc_many: y must have shape \(10,\)"):
        roc_auc_many(S.reshape(4, 10), Y[:7])
    with pytest.raises(ValueError, match=r"^average_precision_many: row 1 of y has no positive"):
        average_precision_many([[1, 2], [3, 4]], [[0, 1], [0, 0]])
    with pytest.raises(ValueError, match=r"^roc_auc_many: row 0 of y has only one class"):
        roc_auc_many([[1, 2], [3, 4]], [[1, 1], [0, 1]])
    with pytest.raises(ValueError, match=r"^auprc_ap: ties must be one of"):
        auprc_ap(S, Y, ties="random")


def test_pranker_refuses_weights():
    # its null distribution is that of an unweighted random ranking
    with pytest.raises(TypeError, match="sample_weight"):
        pranker(S, Y, sample_weight=np.ones(40))


@pytest.mark.parametrize("bad", [0, 0.0, 1, 1.5, -0.02, float("nan"), True, "0.02"])
def test_rtol_out_of_range_is_refused_at_every_entry_point(bad):
    """A target relative standard error outside (0, 1) (or not a number) is one clear error,
    naming the entry point, wherever it is passed; nothing is estimated first."""
    from pranker import map_significance, pranker_many
    from pranker.null.choice import auto_method
    from pranker.null.distributions import TiltNull
    from pranker.null.mean_ap import MeanAPNull

    calls = {
        "pranker": lambda: pranker(S, Y, rtol=bad),
        "pranker_many": lambda: pranker_many(S.reshape(4, 10), Y.reshape(4, 10), rtol=bad),
        "map_significance": lambda: map_significance([S[:20], S[20:]], [Y[:20], Y[20:]], rtol=bad),
        "TiltNull": lambda: TiltNull(100, 10, rtol=bad),
        "MeanAPNull": lambda: MeanAPNull([100, 200], [10, 20], rtol=bad),
        "auto_method": lambda: auto_method(100, 10, rtol=bad),
    }
    for where, call in calls.items():
        with pytest.raises(ValueError, match=r"rtol must be in \(0, 1\)") as info:
            call()
        assert str(info.value).startswith(where + ": "), (where, str(info.value))
        assert repr(bad) in str(info.value)


def test_rtol_inside_the_range_is_taken():
    """The check takes what it should: 0.05 and numpy floats give the same p-value."""
    a = pranker(S, Y, rtol=0.05, method="tilt")
    b = pranker(S, Y, rtol=np.float32(0.05), method="tilt")
    assert a.pvalue == pytest.approx(b.pvalue, rel=1e-6)
