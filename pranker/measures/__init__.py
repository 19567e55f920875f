"""Measures of a ranking: AP in every tie mode, PR and ROC curves, retrieval curves, uncertainty.

- :mod:`~pranker.measures.ap`: average precision (five exact tie modes);
- :mod:`~pranker.measures.curves`: PR and ROC curves and their summaries;
- :mod:`~pranker.measures.uncertainty`: AUPRC with a standard error, Boyd et al. intervals;
- :mod:`~pranker.measures.retrieval`: precision and recall by Hamming radius;
- :mod:`~pranker.measures.compat`: VLFeat's ``vl_pr``/``vl_roc`` and MATLAB ``recall_precision``.
"""
