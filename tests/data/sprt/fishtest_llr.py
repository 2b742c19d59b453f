#!/usr/bin/env python3
"""Reference values for arena's SPRT statistics (src/tournament/stats/gsprt.rs).

An independent Python re-implementation of fishtest's exact GSPRT (the generalized LLR of
LLRcalc.py: regularize, MLE_expected, MLE_t_value, LLR_logistic, LLR_normalized), written from
its description, solving the secular equation with scipy.optimize.brentq as fishtest does. It
prints the reference cases as JSON; `llr_reference.json` beside it is its output:

    python3 tests/data/sprt/fishtest_llr.py > tests/data/sprt/llr_reference.json

Needs scipy (pip install scipy). The simulation at the end (seeded) measures how often each
statistic accepts H0 when the truth is +52.5 logistic Elo and H1 is elo1 = 50.
"""
import json
import math
import random

from scipy.optimize import brentq

EPSILON = 1e-3  # what an empty cell counts as


def regularize(counts):
    return [c if c != 0 else EPSILON for c in counts]


def to_pdf(counts):
    cells = regularize(counts)
    n = sum(cells)
    k = len(cells)
    return n, [(i / (k - 1), c / n) for i, c in enumerate(cells)]


def mean_var(pdf):
    mu = sum(a * p for a, p in pdf)
    return mu, sum(p * (a - mu) ** 2 for a, p in pdf)


def secular(pdf):
    """The root of sum p a / (1 + x a) = 0 between the poles."""
    lo = min(a for a, _ in pdf)
    hi = max(a for a, _ in pdf)
    assert lo < 0 < hi
    eps = 1e-9
    return brentq(lambda x: sum(p * a / (1 + x * a) for a, p in pdf), -1 / hi + eps, -1 / lo - eps)


def mle_expected(pdf, s):
    x = secular([(a - s, p) for a, p in pdf])
    return [p / (1 + x * (a - s)) for a, p in pdf]


def mle_t_value(pdf, reference, t):
    probs = [1 / len(pdf)] * len(pdf)
    for _ in range(10):
        mu, var = mean_var([(a, q) for (a, _), q in zip(pdf, probs)])
        sigma = math.sqrt(var)
        shifted = [(a - reference - t * sigma * (1 + ((mu - a) / sigma) ** 2) / 2, p) for a, p in pdf]
        x = secular(shifted)
        new = [p / (1 + x * a) for a, p in shifted]
        moved = max(abs(n - o) for n, o in zip(new, probs))
        probs = new
        if moved < 1e-9:
            break
    return probs


def generalized_llr(counts, p0, p1, pdf, n):
    return n * sum(p * (math.log(q1) - math.log(q0)) for (_, p), q0, q1 in zip(pdf, p0, p1))


def logistic_score(elo):
    return 1 / (1 + 10 ** (-elo / 400))


def llr_logistic(elo0, elo1, counts):
    n, pdf = to_pdf(counts)
    return generalized_llr(counts, mle_expected(pdf, logistic_score(elo0)),
                           mle_expected(pdf, logistic_score(elo1)), pdf, n)


def llr_normalized(nelo0, nelo1, counts):
    n, pdf = to_pdf(counts)
    per_unit = math.sqrt(2) if len(counts) == 5 else 1
    t0 = nelo0 / (800 / math.log(10)) * per_unit
    t1 = nelo1 / (800 / math.log(10)) * per_unit
    return generalized_llr(counts, mle_t_value(pdf, 0.5, t0), mle_t_value(pdf, 0.5, t1), pdf, n)


def llr_alt2(elo0, elo1, counts):
    """The normal approximation fishtest only displays."""
    n, pdf = to_pdf(counts)
    mu, var = mean_var(pdf)
    s0, s1 = logistic_score(elo0), logistic_score(elo1)
    return n * (s1 - s0) * (2 * mu - s0 - s1) / var / 2


CASES = [
    # The issue's cases: Painters' Duel perfect vs greedy (every pair a split), 16 pairs.
    ("painters-perfect-vs-greedy", [0, 0, 16, 0, 0], 0, 10),
    # Skynet greedy vs random, the 18 pairs at which the normal approximation accepted H1.
    ("greedy-vs-random-18-pairs", [0, 0, 12, 3, 3], 0, 50),
    # A pool of 50 maps played 8 times by deterministic bots: the same 50 pairs, 8 copies.
    ("pool-of-50-once", [0, 0, 41, 0, 9], 0, 50),
    ("pool-of-50-eight-times", [0, 0, 328, 0, 72], 0, 50),
    # Chess-like counts, where the approximation and the exact statistic agree.
    ("chess-like", [310, 2410, 5120, 2530, 330], 0, 5),
    # A paired test of a game without draws: the odd cells stay empty.
    ("paired-no-draws", [4, 0, 30, 0, 16], 0, 20),
    # Trinomials (a multi-seat paired test: better, equal, worse finishing position).
    ("trinomial-positions", [18, 40, 27], 0, 20),
    ("trinomial-all-wins", [0, 0, 6], -10, 10),
    # A single won pair, and one lost.
    ("one-won-pair", [0, 0, 0, 0, 1], 0, 50),
    ("one-lost-pair", [1, 0, 0, 0, 0], 0, 50),
]


def simulate(runs, seed, truth_elo=52.5, elo0=0.0, elo1=50.0, alpha=0.05, beta=0.05):
    """Pairs drawn from [0, 0, 1 - q, 0, q] (splits and double wins, as deterministic bots
    produce), q giving a mean score of logistic_score(truth_elo). Returns the share of runs
    accepting H0 with the exact logistic LLR (with the overshoot correction, as fishtest) and
    with the normal approximation (no correction, at least 16 pairs, as arena did)."""
    q = 2 * logistic_score(truth_elo) - 1
    lower, upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    rng = random.Random(seed)
    h0 = {"exact": 0, "normal_approximation": 0}
    for _ in range(runs):
        for statistic in h0:
            counts = [0, 0, 0, 0, 0]
            o = {"ref0": 0.0, "m0": 0.0, "sq0": 0.0, "ref1": 0.0, "m1": 0.0, "sq1": 0.0}
            stream = random.Random(rng.random())
            for pairs in range(1, 100000):
                counts[4 if stream.random() < q else 2] += 1
                if statistic == "exact":
                    llr = llr_logistic(elo0, elo1, counts)
                    if llr < o["ref0"]:
                        d = llr - o["ref0"]; o["m0"] += d; o["sq0"] += d * d; o["ref0"] = llr
                    if llr > o["ref1"]:
                        d = llr - o["ref1"]; o["m1"] += d; o["sq1"] += d * d; o["ref1"] = llr
                    o0 = -o["sq0"] / o["m0"] / 2 if o["m0"] != 0 else 0
                    o1 = o["sq1"] / o["m1"] / 2 if o["m1"] != 0 else 0
                    if llr < lower + o0:
                        h0[statistic] += 1
                        break
                    if llr > upper - o1:
                        break
                else:
                    if pairs < 16:
                        continue
                    llr = llr_alt2(elo0, elo1, counts)
                    if llr <= lower:
                        h0[statistic] += 1
                        break
                    if llr >= upper:
                        break
    return {k: v / runs for k, v in h0.items()}


def main():
    cases = []
    for name, counts, elo0, elo1 in CASES:
        cases.append({
            "name": name,
            "counts": counts,
            "elo0": elo0,
            "elo1": elo1,
            "llr_logistic": llr_logistic(elo0, elo1, counts),
            "llr_normalized": llr_normalized(elo0, elo1, counts),
            "llr_normal_approximation": llr_alt2(elo0, elo1, counts),
        })
    out = {
        "method": "fishtest LLRcalc re-implemented in Python, scipy.optimize.brentq for the secular equation",
        "script": "tests/data/sprt/fishtest_llr.py",
        "cases": cases,
        "simulation": {
            "truth_logistic_elo": 52.5, "elo0": 0, "elo1": 50, "alpha": 0.05, "beta": 0.05,
            "pairs": "[0, 0, 1-q, 0, q]", "runs": 1000, "seed": 2026,
            "accepted_h0": simulate(1000, 2026),
        },
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
