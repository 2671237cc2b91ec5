"""The report's PNG figures: box plots with significance markers, Bland–Altman plots and σ²
selection curves. Matplotlib is imported on use."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from edr.evaluate.agreement import Agreement
from edr.evaluate.report.comparisons import stars
from edr.evaluate.report.tables import METRICS, ResultsTable, config_order
from edr.signal import RATE_STEP_S, RATE_WINDOW_S

__all__ = ["has_curve", "normalise", "plot_bland_altman", "plot_boxes", "plot_curves",
           "plot_curves_one_record"]


def plot_boxes(table: ResultsTable, ref: str, comps: dict, path: Path) -> None:
    """Box plots of every metric per configuration, starred where a configuration differs from
    ``ref`` (paired Wilcoxon–Bonferroni of ``comps``); saved to ``path``."""
    import matplotlib.pyplot as plt

    n = len(table.configs)
    fig, axes = plt.subplots(len(METRICS), 1,
                             figsize=(max(7.0, 0.62 * n + 2.0), 3.1 * len(METRICS)),
                             sharex=True)
    x = np.arange(n)
    rng = np.random.default_rng(0)
    jr = table.configs.index(ref)
    for ax, m in zip(axes, METRICS, strict=False):
        v = table.values[m.column]
        data = [v[:, j][np.isfinite(v[:, j])] for j in range(n)]
        keep = [j for j in range(n) if data[j].size]
        bp = ax.boxplot([data[j] for j in keep], positions=x[keep], widths=0.6, showfliers=False,
                        patch_artist=True, medianprops={"color": "k", "lw": 1.6})
        for j, box in zip(keep, bp["boxes"], strict=False):
            box.set_facecolor("#f4a582" if j == jr else "#d1e5f0" if "/" in table.configs[j]
                              else "#e0e0e0")
        for j in keep:
            ax.plot(x[j] + rng.uniform(-0.18, 0.18, data[j].size), data[j], ".",
                    color="0.25", ms=3.5,
                    alpha=0.7)
        paired = comps[m.column][0]
        top = max((d.max() for d in data if d.size), default=1.0)
        tested = ({name for p in paired.pairwise for name in (p.a, p.b)}
                  if paired is not None else set())
        if ref in tested:
            for j in keep:
                if j != jr and table.configs[j] in tested:
                    s = stars(paired.pair(ref, table.configs[j]).pvalue_adjusted)
                    ax.text(x[j], top * 1.02, s, ha="center", va="bottom", fontsize=12,
                            color="#b2182b")
        if m.higher_is_better:
            ax.set_ylim(0, 1.1)
        else:  # errors: a few large ones would squash the boxes; linear below 1, logarithmic above
            from matplotlib.ticker import FormatStrFormatter, NullLocator

            ax.set_yscale("symlog", linthresh=1.0, linscale=0.6)
            ymax = top * 1.6 if top > 0 else 1.0
            ax.set_ylim(0, ymax)
            ax.set_yticks([t for t in (0, 0.5, 1, 2, 5, 10, 20, 50, 100) if t <= ymax])
            ax.yaxis.set_minor_locator(NullLocator())
            ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
        ax.set_ylabel(m.label if m.higher_is_better else f"{m.label}\n(log scale above 1)")
        ax.grid(axis="y", alpha=0.3)
        if paired is not None:
            ax.set_title(f"{m.label}: {paired.omnibus.test.capitalize()} p = "
                         f"{paired.omnibus.pvalue:.2g}  (n = {paired.omnibus.n_obs} complete "
                         "records)",
                         fontsize=10, loc="left")
    axes[-1].set_xticks(x)
    axes[-1].set_xticklabels(table.configs, rotation=40, ha="right", fontsize=9)
    fig.suptitle(f"Per-record scores, {len(table.records)} records; orange box = reference {ref}\n"
                 "* / ** / *** : differs from the reference (Wilcoxon signed-rank, Bonferroni p < "
                 ".05 / .01 / .001)",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_bland_altman(windows: dict, agree: dict[str, Agreement], configs: list[str],
                      path: Path) -> None:
    """One Bland–Altman panel per configuration: difference against mean of the two rates."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(configs), figsize=(4.6 * len(configs), 4.0), squeeze=False,
                             sharex=True, sharey=True)
    for ax, c in zip(axes[0], configs, strict=False):
        e, r, n_rec = windows[c]
        ok = np.isfinite(e) & np.isfinite(r)
        a = agree[c]
        ax.plot((e[ok] + r[ok]) / 2, e[ok] - r[ok], ".", color="#2166ac", ms=3, alpha=0.35)
        for y, ls, txt in ((a.bias, "-", "bias"), (a.loa_low, "--", "−1.96 SD"),
                           (a.loa_high, "--", "+1.96 SD")):
            if np.isfinite(y):
                ax.axhline(y, color="#b2182b", ls=ls, lw=1.2)
                ax.annotate(f"{txt} {y:+.1f}", xy=(1, y),
                            xycoords=("axes fraction", "data"), ha="right",
                            va="bottom", fontsize=8, color="#b2182b")
        ax.axhline(0, color="0.5", lw=0.6)
        ax.set_title(f"{c}\n{a.n_paired} windows, {n_rec} records, coverage {100 * a.coverage:.0f} "
                     "%",
                     fontsize=9)
        ax.set_xlabel("mean of EDR and reference rate (breaths/min)")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("EDR − reference rate (breaths/min)")
    fig.suptitle(f"Bland–Altman: {RATE_WINDOW_S:g} s windows ({RATE_STEP_S:g} s step) pooled over "
                 "records", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def normalise(curve: np.ndarray) -> np.ndarray:
    """``curve`` scaled to [0, 1] (zeros when it is constant)."""
    c = np.asarray(curve, float)
    lo, hi = np.nanmin(c), np.nanmax(c)
    return (c - lo) / (hi - lo) if hi > lo else np.zeros_like(c)


def has_curve(c: dict) -> bool:
    """Whether a selection-curve entry holds a searched curve (at least 3 grid points)."""
    return len(c["grid"]) >= 3


def plot_curves(curves: list[dict], path: Path) -> bool:
    """One panel per (method, criterion, lead) with a searched curve; False when there is none."""
    import matplotlib.pyplot as plt

    keys = sorted({(c["method"], c["criterion"], c["lead"]) for c in curves if has_curve(c)},
                  key=lambda k: config_order(k))
    if not keys:
        return False
    ncol = min(2, len(keys))
    nrow = math.ceil(len(keys) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(5.2 * ncol, 3.2 * nrow + 0.4), squeeze=False)
    for ax, key in zip(axes.flat, keys, strict=False):
        sel = [c for c in curves if (c["method"], c["criterion"],
                                     c["lead"]) == key and has_curve(c)]
        for c in sel:
            g = np.asarray(c["grid"], float)
            y = normalise(c["curve"])
            ax.plot(g, y, "-", color="#2166ac", lw=0.8, alpha=0.45)
            k = int(np.argmin(np.abs(g - c["sigma2"])))
            ax.plot(c["sigma2"], y[k], "o", color="#b2182b", ms=3.5)
        ax.set_xscale("log")
        lead = "" if key[2] == "default" else f" @{key[2]}"
        ax.set_title(f"{key[0]}/{key[1]}{lead}: {len(sel)} records", fontsize=10)
        ax.set_xlabel("σ²")
        ax.set_ylabel("criterion (scaled to [0, 1])")
        ax.grid(alpha=0.3)
    for ax in axes.flat[len(keys):]:
        ax.set_visible(False)
    fig.suptitle("σ² selection curves per record (Varon et al. 2015, Fig. 7(d) style); red dot = "
                 "chosen σ²",
                 fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def plot_curves_one_record(curves: list[dict], record: str, path: Path) -> None:
    """Fig. 9 style: every criterion of one record, one panel per (method, lead)."""
    import matplotlib.pyplot as plt

    sel = sorted([c for c in curves if c["record"] == record],
                 key=lambda c: config_order((c["method"], c["criterion"], c["lead"])))
    panels = list(dict.fromkeys((c["method"], c["lead"]) for c in sel))
    fig, axes = plt.subplots(1, len(panels), figsize=(5.0 * len(panels), 3.9), squeeze=False)
    for ax, (method, lead) in zip(axes[0], panels, strict=False):
        for i, c in enumerate(x for x in sel if (x["method"], x["lead"]) == (method, lead)):
            color = f"C{i}"
            label = f"{c['criterion']}: σ² = {c['sigma2']:.3g}"
            if has_curve(c):
                ax.plot(c["grid"], normalise(c["curve"]), "-", color=color, lw=1.5, label=label)
                ax.axvline(c["sigma2"], color=color, ls="--", lw=1)
            else:
                ax.axvline(c["sigma2"], color=color, ls="--", lw=1, label=label + " (closed form)")
        ax.set_xscale("log")
        ax.set_xlabel("σ²")
        ax.set_ylabel("criterion (scaled to [0, 1])")
        ax.set_title(method + ("" if lead == "default" else f" @{lead}"), fontsize=10)
        ax.legend(fontsize=8, loc="lower left")
        ax.grid(alpha=0.3)
    fig.suptitle(f"Model-selection criteria on {record} (Varon et al. 2015, Fig. 9 style); dashed: "
                 "chosen σ²",
                 fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    fig.savefig(path, dpi=110)
    plt.close(fig)
