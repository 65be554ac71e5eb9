"""BIB's published results, as data: relative accuracy (%) per sub-evaluation, and AUC where given.

Source of every number: the table "Published results" of the project's BIB spec
(/work/shared/specs/bib.md), which collects them from:

* ``mask``, ``video``: Gandhi et al., "Baby Intuitions Benchmark", arXiv v1, Table 1 (2D, Rel/Abs);
* ``BC-MLP``, ``BC-RNN``, ``Video-RNN``: the final BIB paper (NeurIPS 2021);
* ``VT``: Hein & Diepold 2022;
* ``IRENE``: Bortoletto, Shi & Bulling, AAAI 2024;
* ``HBToM``: Zhi-Xuan et al. 2022 (hierarchical Bayesian inverse planning on the JSON states).
"""

from __future__ import annotations

MODELS: tuple[str, ...] = ("mask", "video", "BC-MLP", "BC-RNN", "Video-RNN", "VT", "IRENE", "HBToM")

SOURCES: dict[str, str] = {
    "mask": "Gandhi et al. 2021, BIB arXiv v1 Table 1 (mask model, 2D)",
    "video": "Gandhi et al. 2021, BIB arXiv v1 Table 1 (video model, 2D)",
    "BC-MLP": "Gandhi et al. 2021, BIB NeurIPS version",
    "BC-RNN": "Gandhi et al. 2021, BIB NeurIPS version",
    "Video-RNN": "Gandhi et al. 2021, BIB NeurIPS version",
    "VT": "Hein & Diepold 2022",
    "IRENE": "Bortoletto, Shi & Bulling, AAAI 2024",
    "HBToM": "Zhi-Xuan et al. 2022 (Bayesian inverse planning)",
}

# task -> model -> relative accuracy in % (bib spec, "Published results")
RELATIVE_ACCURACY: dict[str, dict[str, float]] = {
    "preference": {"mask": 69.0, "video": 47.8, "BC-MLP": 26.3, "BC-RNN": 48.3,
                   "Video-RNN": 47.6, "VT": 80.8, "IRENE": 48.5, "HBToM": 99.7},
    "multi_agent": {"mask": 50.0, "video": 50.3, "BC-MLP": 48.7, "BC-RNN": 48.2,
                    "Video-RNN": 50.3, "VT": 49.2, "IRENE": 74.9, "HBToM": 99.2},
    "inaccessible_goal": {"mask": 50.7, "video": 66.0, "BC-MLP": 76.9, "BC-RNN": 81.6,
                          "Video-RNN": 74.0, "VT": 85.5, "IRENE": 85.8, "HBToM": 99.7},
    "efficiency_path": {"mask": 95.6, "video": 99.8, "BC-MLP": 94.0, "BC-RNN": 92.8,
                        "Video-RNN": 99.2, "VT": 97.5, "IRENE": 98.1, "HBToM": 94.9},
    "efficiency_time": {"mask": 94.8, "video": 99.9, "BC-MLP": 99.1, "BC-RNN": 99.1,
                        "Video-RNN": 99.9, "VT": 99.7, "IRENE": 100.0, "HBToM": 97.2},
    "efficiency_irrational": {"mask": 50.0, "video": 50.0, "BC-MLP": 73.8, "BC-RNN": 56.5,
                              "Video-RNN": 50.1, "VT": 34.1, "IRENE": 85.7, "HBToM": 96.6},
    "instrumental_no_barrier": {"mask": 98.2, "video": 99.7, "BC-MLP": 98.8, "BC-RNN": 98.8,
                                "Video-RNN": 99.7, "VT": 97.9, "IRENE": 78.4, "HBToM": 98.8},
    "instrumental_inconsequential_barrier": {
        "mask": 89.5, "video": 76.7, "BC-MLP": 55.2, "BC-RNN": 78.2, "Video-RNN": 77.0,
        "VT": 91.9, "IRENE": 52.4, "HBToM": 97.0},
    "instrumental_blocking_barrier": {
        "mask": 77.3, "video": 58.2, "BC-MLP": 47.1, "BC-RNN": 56.8, "Video-RNN": 62.9,
        "VT": 64.2, "IRENE": 83.5, "HBToM": 99.7},
}

# task -> model -> ROC AUC in % (BIB arXiv v1 Table 1, "Abs."; only mask and video report it)
AUC: dict[str, dict[str, float]] = {
    "preference": {"mask": 69.0, "video": 47.6},
    "multi_agent": {"mask": 49.8, "video": 50.3},
    "inaccessible_goal": {"mask": 52.4, "video": 61.4},
    "efficiency_path": {"mask": 94.3, "video": 92.0},
    "efficiency_time": {"mask": 91.4, "video": 90.1},
    "efficiency_irrational": {"mask": 50.0, "video": 50.0},
    "instrumental_no_barrier": {"mask": 98.4, "video": 94.0},
    "instrumental_inconsequential_barrier": {"mask": 83.0, "video": 57.8},
    "instrumental_blocking_barrier": {"mask": 56.2, "video": 57.5},
}


def published_relative(task: str, model: str) -> float | None:
    """A published relative accuracy as a fraction (0-1), or None if not published."""
    value = RELATIVE_ACCURACY.get(task, {}).get(model)
    return None if value is None else value / 100.0


# BIB arXiv v1 Table 1, all four model columns: column -> task -> (Rel., Abs. = AUC) in %. The
# 3D column has no instrumental rows (the paper's 3D videos leave those tasks out); the paper's
# "average" rows are not kept (it does not say how they were averaged).
TABLE1_COLUMNS: tuple[str, ...] = ("mask 2D", "video 2D", "video new shapes", "video 3D")
TABLE1: dict[str, dict[str, tuple[float, float]]] = {
    "mask 2D": {task: (RELATIVE_ACCURACY[task]["mask"], AUC[task]["mask"]) for task in AUC},
    "video 2D": {task: (RELATIVE_ACCURACY[task]["video"], AUC[task]["video"]) for task in AUC},
    "video new shapes": {
        "preference": (47.4, 47.8), "multi_agent": (50.0, 51.5),
        "inaccessible_goal": (61.7, 60.9), "efficiency_path": (98.5, 92.1),
        "efficiency_time": (96.9, 90.3), "efficiency_irrational": (47.8, 49.5),
        "instrumental_no_barrier": (93.0, 88.1),
        "instrumental_inconsequential_barrier": (66.0, 56.0),
        "instrumental_blocking_barrier": (59.7, 58.0)},
    "video 3D": {
        "preference": (49.2, 48.3), "multi_agent": (50.0, 51.0),
        "inaccessible_goal": (40.0, 43.2), "efficiency_path": (66.3, 57.9),
        "efficiency_time": (75.4, 61.8), "efficiency_irrational": (50.0, 50.0)},
}
