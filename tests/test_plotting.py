"""Plot functions: figures are produced, PNGs have the expected size, geometry is right."""

from __future__ import annotations

import struct
import sys

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from pranker import null_ap_samples, plotting, pranker  # noqa: E402
from pranker.plotting import _interpolated, _step_xy  # noqa: E402


def png_size(path):
    with open(path, "rb") as fh:
        head = fh.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


@pytest.fixture(scope="module")
def curve():
    """A ranking and its PR/ROC points computed by a plain loop (independent oracle)."""
    rng = np.random.default_rng(3)
    n = 400
    y = rng.random(n) < 0.1
    s = rng.normal(size=n) + 1.5 * y
    order = np.argsort(-s)
    tp = fp = 0
    rec, prec, fpr = [0.0], [1.0], [0.0]
    P, Nneg = int(y.sum()), int((~y).sum())
    for i in order:
        tp += int(y[i])
        fp += int(not y[i])
        rec.append(tp / P)
        prec.append(tp / (tp + fp))
        fpr.append(fp / Nneg)
    return s, y, np.array(rec), np.array(prec), np.array(fpr)


def test_interpolated_precision_is_max_to_the_right():
    rng = np.random.default_rng(0)
    p = rng.random(50)
    expected = [max(p[i:]) for i in range(p.size)]
    assert np.array_equal(_interpolated(p), expected)


def test_step_vertices():
    r = np.array([0.0, 0.5, 1.0])
    pi = np.array([1.0, 0.8, 0.6])
    rr, pp = _step_xy(r, pi)
    # p_interp[i] holds on (r[i-1], r[i]]
    assert rr.tolist() == [0.0, 0.0, 0.5, 0.5, 1.0]
    assert pp.tolist() == [1.0, 0.8, 0.8, 0.6, 0.6]


def test_pr_plot(tmp_path, curve):
    s, y, rec, prec, _ = curve
    path = tmp_path / "pr.png"
    fig = plotting.plot_pr(
        rec, prec, prevalence=y.mean(), null_curve=([0, 0.5, 1], [1, 0.2, 0.1]), path=path
    )
    w, h = png_size(path)
    assert w == 840 and h >= 150 * 5.3  # 150 dpi
    ax = fig.axes[0]
    assert ax.get_xlim() == (0.0, 1.0) and ax.get_ylim()[0] == 0.0
    assert ax.get_xlabel() == "recall" and ax.get_ylabel() == "precision"
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert any("P/N" in t for t in labels) and any("expected" in t for t in labels)
    # the F isolines: every dotted line's points have the same F1 = 2PR/(P+R)
    dotted = [ln for ln in ax.get_lines() if ln.get_gid() == "f-isoline"]
    assert len(dotted) == 4
    for ln, level in zip(dotted, (0.2, 0.4, 0.6, 0.8), strict=True):
        r, p = ln.get_xdata(), ln.get_ydata()
        assert np.allclose(2 * p * r / (p + r), level)
    # best-F marker is at the loop-computed maximum of F1
    f1 = np.where(prec + rec > 0, 2 * prec * rec / np.maximum(prec + rec, 1e-300), 0)
    assert any(f"best F = {f1.max():.3f}" in t for t in labels)


def test_pr_curves_several_and_into_axes(tmp_path, curve):
    from matplotlib.figure import Figure

    _, y, rec, prec, _ = curve
    fig = Figure()
    ax = fig.subplots()
    out = plotting.plot_pr_curves({"a": (rec, prec), "b": (rec, prec * 0.5)}, ax=ax, f_isolines=())
    assert out is fig
    assert ax.get_legend() is not None


def test_roc_pr_shares_recall_axis(tmp_path, curve):
    _, y, rec, prec, fpr = curve
    path = tmp_path / "rocpr.png"
    fig = plotting.plot_roc_pr(
        fpr, rec, rec, prec, prevalence=y.mean(), auprc=0.5, roc_auc=0.8, path=path
    )
    assert png_size(path) == (1500, 810)
    roc, pr = fig.axes
    assert roc.get_shared_y_axes().joined(roc, pr)
    assert roc.get_xlabel().startswith("false-positive") and pr.get_xlabel() == "precision"
    assert "recall" in roc.get_ylabel()
    for ax in (roc, pr):
        assert ax.get_xlim() == (0.0, 1.0)


@pytest.mark.slow
def test_null_distribution(tmp_path, curve):
    s, y, *_ = curve
    res = pranker(s, y)
    samples = null_ap_samples(res.n, res.n_pos, 2000, seed=1)
    path = tmp_path / "null.png"
    fig = plotting.plot_null_from_result(res, samples=samples, path=path, tail_points=2)
    assert png_size(path) == (1650, 750)
    dens, tail = fig.axes
    # density zoomed on the null's bulk (0.001-0.999 quantiles), not [0, 1]
    lo, hi = dens.get_xlim()
    q = res.null.ppf([0.001, 0.999])
    assert lo <= q[0] < q[1] <= hi and hi - lo < 0.5
    # the observed value is off that scale: an arrow says where it is
    assert res.auprc > hi
    assert any(t.get_gid() == "observed-arrow" for t in dens.texts)
    # the legend states the p-value as the result has it: method and error
    texts = [t.get_text() for t in dens.get_legend().get_texts()]
    pv = [t for t in texts if t.startswith("p = ")]
    assert pv and res.method in pv[0] and "±" in pv[0] and "beta" not in pv[0]
    # tail panel: log10 survival function from the bulk to the observed value
    assert tail.get_xlim()[0] < res.null_mean < res.auprc <= tail.get_xlim()[1]
    (obs,) = [c for c in tail.containers if c.lines[0].get_gid() == "observed"]
    x, yv = obs.lines[0].get_data()
    assert x[0] == res.auprc and yv[0] == pytest.approx(res.log10_pvalue)
    # its error bar spans the p-value's interval (log10)
    seg = obs.lines[2][0].get_segments()[0]
    lo_iv, hi_iv = (np.log10(v) for v in res.pvalue_interval)
    assert sorted(seg[:, 1]) == pytest.approx([lo_iv, hi_iv], abs=1e-6)
    assert tail.get_ylim()[0] < res.log10_pvalue


def test_null_distribution_observed_inside_and_exact():
    fig = plotting.plot_null_distribution(20, 5, 0.45)  # C(20, 5) small: exact
    dens, tail = fig.axes
    assert any(
        ln.get_gid() == "observed" and np.allclose(ln.get_xdata(), 0.45) for ln in dens.get_lines()
    )
    texts = [t.get_text() for t in dens.get_legend().get_texts()]
    assert any(t.startswith("p = ") and t.endswith("exact") for t in texts)
    from pranker import null_distribution

    p = null_distribution(20, 5, "exact").pvalue(0.45)
    (obs,) = [c for c in tail.containers if c.lines[0].get_gid() == "observed"]
    assert obs.lines[0].get_ydata()[0] == pytest.approx(p.log10_pvalue)


def test_null_distribution_beta_says_beta():
    fig = plotting.plot_null_distribution(100, 10, 0.3, params=None, method="beta", tail=False)
    (ax,) = fig.axes
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(t.startswith("p = ") and t.endswith(", beta") for t in texts)


def test_null_distribution_into_axes():
    from matplotlib.figure import Figure

    fig = Figure()
    axes = fig.subplots(1, 2)
    out = plotting.plot_null_distribution(50, 10, 0.35, ax=axes, tail_points=1)
    assert out is fig and len(fig.axes) == 2
    with pytest.raises(TypeError, match="two panels"):
        plotting.plot_null_distribution(50, 10, 0.35, ax=axes[0])


def test_null_distribution_shades_the_tail():
    fig = plotting.plot_null_distribution(50, 10, 0.35, tail=False)
    ax = fig.axes[0]
    (poly,) = ax.collections
    xs = poly.get_paths()[0].vertices[:, 0]
    lo, hi = ax.get_xlim()
    # shading starts at the observed value (to a grid step of the density)
    assert 0.35 <= xs.min() <= 0.35 + (hi - lo) / 70


def test_svg_and_pdf_by_extension(tmp_path):
    fig = plotting.plot_pr([0, 0.5, 1], [1, 1, 0.5])
    plotting.save_figure(fig, tmp_path / "f.svg")
    plotting.save_figure(fig, tmp_path / "f.pdf")
    assert (tmp_path / "f.svg").read_text().lstrip().startswith("<?xml")
    assert (tmp_path / "f.pdf").read_bytes()[:5] == b"%PDF-"


def test_f_labels_avoid_curves_and_frame(curve):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    _, y, rec, prec, _ = curve
    fig = plotting.plot_pr(rec, prec, prevalence=y.mean())
    FigureCanvasAgg(fig).draw()
    ax = fig.axes[0]
    labels = [t for t in ax.texts if t.get_gid() == "f-label"]
    assert len(labels) == 4
    frame = ax.get_window_extent()
    curves = [ln for ln in ax.get_lines() if ln.get_gid() in ("pr-step", "pr-envelope")]
    for t in labels:
        box = t.get_window_extent()
        assert frame.x0 < box.x0 and box.x1 < frame.x1 and frame.y0 < box.y0 and box.y1 < frame.y1
        for ln in curves:
            pts = ln.get_transform().transform(np.column_stack(ln.get_xydata().T))
            inside = (
                (pts[:, 0] > box.x0)
                & (pts[:, 0] < box.x1)
                & (pts[:, 1] > box.y0)
                & (pts[:, 1] < box.y1)
            )
            assert not inside.any(), t.get_text()


def test_hamming(tmp_path):
    path = tmp_path / "ham.png"
    fig = plotting.plot_hamming_pr(
        np.arange(5), [np.nan, 0.9, 0.6, 0.3, 0.2], [0.0, 0.2, 0.5, 0.8, 1.0], path=path
    )
    assert png_size(path) == (1500, 720)
    assert fig.axes[1].get_xlabel() == "Hamming radius r"


def test_bad_shapes():
    with pytest.raises(ValueError, match="same length"):
        plotting.plot_pr([0, 1], [1])
    with pytest.raises(ValueError, match="empty"):
        plotting.plot_pr([], [])


def test_save_figure_refuses_overwrite(tmp_path):
    fig = plotting.plot_pr([0, 1], [1, 0.5])
    path = tmp_path / "f.png"
    path.write_bytes(b"keep")
    with pytest.raises(FileExistsError):
        plotting.save_figure(fig, path, overwrite=False)
    assert path.read_bytes() == b"keep"
    plotting.save_figure(fig, path)
    assert png_size(path)[0] == 840
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.png"]


def test_missing_matplotlib_message(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match=r"pranker\[plot\]"):
        plotting.plot_pr([0, 1], [1, 0.5])


def test_hamming_from_radius_curves_plots_mean_curves(tmp_path):
    from pranker import hamming_radius_curves, pack_codes

    rng = np.random.default_rng(2)
    bits = 8
    q = rng.random((5, bits)) < 0.5
    d = rng.random((40, bits)) < 0.5
    ql, dl = rng.integers(0, 3, 5), rng.integers(0, 3, 40)
    rc = hamming_radius_curves(
        pack_codes(q), pack_codes(d), query_labels=ql, database_labels=dl, n_bits=bits
    )
    path = tmp_path / "h.png"
    fig = plotting.plot_hamming_from_curves({"8 bits": rc, "again": rc}, path=path)
    assert png_size(path) == (1500, 720)
    # oracle: plain loops over Hamming distances, precision 0 when nothing retrieved
    exp_p, exp_r = [], []
    for radius in range(bits + 1):
        ps, rs = [], []
        for i in range(5):
            dist = [(q[i] != d[j]).sum() for j in range(40)]
            got = [j for j in range(40) if dist[j] <= radius]
            rel = [j for j in range(40) if dl[j] == ql[i]]
            good = [j for j in got if dl[j] == ql[i]]
            ps.append(len(good) / len(got) if got else 0.0)
            if rel:
                rs.append(len(good) / len(rel))
        exp_p.append(np.mean(ps))
        exp_r.append(np.mean(rs))
    ax_r = fig.axes[1]
    prec_line, rec_line = ax_r.get_lines()[:2]
    assert np.allclose(prec_line.get_ydata(), exp_p)
    assert np.allclose(rec_line.get_ydata(), exp_r)


def test_long_curves_are_thinned_keeping_ends():
    n = 100_001
    r = np.linspace(0, 1, n)
    p = 1 - 0.5 * r
    fig = plotting.plot_pr(r, p, f_isolines=(), diagonal=False, mark_best_f=False)
    for ln in fig.axes[0].get_lines():
        x = ln.get_xdata()
        assert len(x) <= 2 * plotting._MAX_POINTS
        assert x[0] == 0.0 and x[-1] == 1.0


def test_wrappers_take_curve_objects(tmp_path, curve):
    from pranker.measures.curves import pr_curve, roc_curve

    s, y, rec, prec, fpr = curve  # loop oracle (continuous scores: no ties)
    pr, roc = pr_curve(s, y), roc_curve(s, y)
    fig = plotting.plot_pr_from_curve(pr, path=tmp_path / "a.png")
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert any(f"P/N = {y.mean():.3g}" in t for t in labels)  # prevalence from the counts
    (step,) = [ln for ln in fig.axes[0].get_lines() if ln.get_gid() == "pr-step"]
    (env,) = [ln for ln in fig.axes[0].get_lines() if ln.get_gid() == "pr-envelope"]
    # the legend's AUPRC is the area under the step curve = the loop's average precision
    ap = sum(p for p, r0, r1 in zip(prec[1:], rec[:-1], rec[1:], strict=True) if r1 > r0) / y.sum()
    assert f"AUPRC = {ap:.3f} (step curve)" in step.get_label()
    x, yv = step.get_data()
    assert np.sum(np.diff(x) * yv[1:]) == pytest.approx(ap)
    x, yv = env.get_data()
    assert "interpolated envelope" in env.get_label()
    assert np.sum(np.diff(x) * yv[1:]) >= ap
    fig = plotting.plot_roc_pr_from_curves(roc, pr, path=tmp_path / "b.png")
    assert f"{roc.auc:.3f}" in fig.axes[0].get_title()
    roc_line = [ln for ln in fig.axes[0].get_lines() if ln.get_label() == "ranking"][0]
    assert np.allclose(roc_line.get_xdata(), fpr) and np.allclose(roc_line.get_ydata(), rec)
    assert png_size(tmp_path / "b.png") == (1500, 810)
