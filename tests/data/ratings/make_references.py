#!/usr/bin/env python3
"""Fixed results folders and their reference ratings, for arena's rating fit
(src/tournament/stats/ratings.rs).

Each case is a folder with a `meta.json` and a `matches.csv` in arena's results format (made here
from a seeded simulation), and a `reference.json` with every bot's Elo and 95% interval computed
by an independent method:

- two-seat cases: a Bradley-Terry logistic GLM (statsmodels, binomial family, frequency weights):
  one row per game with +1 for the first bot and -1 for the second, a draw as half a win each way,
  and the prior as one virtual draw of each bot against an anchor of strength 0 (a row with +1
  for the bot alone). The covariance is the GLM's (the inverse Fisher information).
- more seats: a Plackett-Luce likelihood written out here and maximised with scipy.optimize
  (BFGS from scipy, then Newton polishing on a finite-difference Hessian of the analytic
  gradient); tied positions are averaged over their orders, with the same prior; the covariance
  is the inverse of that finite-difference Hessian.

Elo is 400 / ln 10 times the strength minus the mean strength of the bot's component (the bots
connected by games); a bot without games has none. The 95% margin is 1.959964 x 400 / ln 10 x
sqrt(c' C c) with c = e_i - 1/n over the component.

    pip install numpy scipy statsmodels
    python3 tests/data/ratings/make_references.py      # rewrites the case folders
"""
import csv
import itertools
import json
import math
import os
import random

import numpy as np
import statsmodels.api as sm
from scipy.optimize import minimize

HERE = os.path.dirname(os.path.abspath(__file__))
ELO_PER_NAT = 400 / math.log(10)
Z95 = 1.959963984540054
PRIOR = 1.0


def write_case(name, roles, bots, matches, note):
    """matches: list of (bots by seat, ranks by seat)."""
    folder = os.path.join(HERE, name)
    os.makedirs(folder, exist_ok=True)
    meta = {"arena_results": 1, "arena": name, "fingerprint": "0000000000000000",
            "planned": len(matches), "roles": roles, "bots": bots}
    with open(os.path.join(folder, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    seats = len(roles)
    header = ["id", "game", "pairing", "map", "seed"]
    for s in range(seats):
        header += [f"seat{s}_role", f"seat{s}_bot", f"seat{s}_score", f"seat{s}_rank"]
    header += ["winner", "winner_role", "termination", "culprit", "culprit_role", "turns",
               "reason", "duration_ms"] + [f"seat{s}_max_turn_ms" for s in range(seats)]
    with open(os.path.join(folder, "matches.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        for i, (who, ranks) in enumerate(matches):
            row = [i, i, " vs ".join(sorted(who, key=bots.index)), "m.txt", 1000 + i]
            for s in range(seats):
                row += [roles[s], who[s], 1 if ranks[s] == 1 else 0, ranks[s]]
            firsts = [s for s in range(seats) if ranks[s] == 1]
            winner = who[firsts[0]] if len(firsts) == 1 else ""
            winner_role = roles[firsts[0]] if len(firsts) == 1 else ""
            row += [winner, winner_role, "normal", "", "", 10, "simulated", "1.000"]
            row += ["0.100"] * seats
            w.writerow(row)
    return folder, note


def components(bots, matches):
    parent = {b: b for b in bots}

    def find(b):
        while parent[b] != b:
            b = parent[b]
        return b

    for who, _ in matches:
        for b in who[1:]:
            parent[find(b)] = find(who[0])
    played = {b for who, _ in matches for b in who}
    groups = {}
    for b in bots:
        if b in played:
            groups.setdefault(find(b), []).append(b)
    return list(groups.values())


def glm_reference(group, matches):
    """Bradley-Terry as a logistic GLM over the bots of one component."""
    index = {b: i for i, b in enumerate(group)}
    rows, ys, weights = [], [], []
    for who, ranks in matches:
        if who[0] not in index:
            continue
        x = np.zeros(len(group))
        x[index[who[0]]] = 1
        x[index[who[1]]] = -1
        if ranks[0] < ranks[1]:
            rows.append(x); ys.append(1.0); weights.append(1.0)
        elif ranks[0] > ranks[1]:
            rows.append(x); ys.append(0.0); weights.append(1.0)
        else:
            rows += [x, x]; ys += [1.0, 0.0]; weights += [0.5, 0.5]
    for b in group:
        x = np.zeros(len(group))
        x[index[b]] = 1
        rows += [x, x]; ys += [1.0, 0.0]; weights += [PRIOR / 2, PRIOR / 2]
    model = sm.GLM(np.array(ys), np.array(rows), family=sm.families.Binomial(),
                   freq_weights=np.array(weights))
    fit = model.fit(tol=1e-14, maxiter=1000)
    return np.asarray(fit.params), np.asarray(fit.cov_params())


def pl_loglik_grad(theta, stages, n):
    value, grad = 0.0, np.zeros(n)
    for members, winner, weight in stages:
        t = theta[members]
        m = t.max()
        e = np.exp(t - m)
        total = e.sum()
        value += weight * (theta[winner] - m - math.log(total))
        grad[winner] += weight
        grad[members] -= weight * e / total
    return value, grad


def pl_reference(group, matches):
    """Plackett-Luce with the anchor prior, maximised with scipy."""
    index = {b: i for i, b in enumerate(group)}
    n = len(group)
    anchor = n
    stages = []
    for who, ranks in matches:
        if who[0] not in index:
            continue
        levels = sorted(set(ranks))
        tiers = [[index[who[s]] for s in range(len(who)) if ranks[s] == r] for r in levels]
        orders = [[]]
        weight = 1.0
        for tier in tiers:
            perms = list(itertools.permutations(tier))
            weight /= len(perms)
            orders = [o + list(p) for o in orders for p in perms]
        for order in orders:
            for k in range(len(order) - 1):
                stages.append((np.array(order[k:]), order[k], weight))
    for i in range(n):
        stages.append((np.array([i, anchor]), i, PRIOR / 2))
        stages.append((np.array([i, anchor]), anchor, PRIOR / 2))

    def negative(x):
        theta = np.append(x, 0.0)
        v, g = pl_loglik_grad(theta, stages, n + 1)
        return -v, -g[:n]

    res = minimize(negative, np.zeros(n), jac=True, method="BFGS",
                   options={"gtol": 1e-12, "maxiter": 10000})
    x = res.x

    def hessian(x, h=1e-5):
        cols = []
        for i in range(n):
            d = np.zeros(n); d[i] = h
            cols.append((negative(x + d)[1] - negative(x - d)[1]) / (2 * h))
        hm = np.array(cols)
        return (hm + hm.T) / 2

    for _ in range(20):  # Newton polishing on the finite-difference Hessian
        step = np.linalg.solve(hessian(x), negative(x)[1])
        x = x - step
        if np.abs(step).max() < 1e-13:
            break
    return x, np.linalg.inv(hessian(x))


def reference(bots, matches, seats):
    out = {}
    groups = components(bots, matches)
    for number, group in enumerate(sorted(groups, key=lambda g: bots.index(g[0])), start=1):
        sub = [m for m in matches if m[0][0] in group]
        theta, cov = (glm_reference if seats == 2 else pl_reference)(group, sub)
        n = len(group)
        for i, b in enumerate(group):
            c = -np.ones(n) / n
            c[i] += 1
            margin = Z95 * ELO_PER_NAT * math.sqrt(c @ cov @ c)
            elo = (theta[i] - theta.mean()) * ELO_PER_NAT
            out[b] = {"component": number, "elo": elo, "elo_low": elo - margin,
                      "elo_high": elo + margin}
    for b in bots:
        out.setdefault(b, None)
    return out


def duel(rng, a, b, p_a, p_draw=0.0):
    """A two-seat game of a (seat 0) and b: ranks by seat."""
    u = rng.random()
    if u < p_draw:
        return [1, 1]
    return [1, 2] if u < p_draw + (1 - p_draw) * p_a else [2, 1]


def main():
    rng = random.Random(16)
    cases = []
    roles2 = ["first", "second"]

    # Three bots with draws, both seat orders.
    bots = ["ant", "bee", "cat"]
    strength = {"ant": 0.0, "bee": 0.7, "cat": 1.5}
    matches = []
    for _ in range(120):
        for a, b in itertools.permutations(bots, 2):
            p = 1 / (1 + math.exp(strength[b] - strength[a]))
            matches.append(([a, b], duel(rng, a, b, p, 0.15)))
    cases.append((write_case("three-bots-draws", roles2, bots, matches,
                             "Bradley-Terry, 720 games with draws"), bots, matches, 2))

    # A bot that wins all 3,000 of its games against each of two others.
    bots = ["ace", "mid", "low"]
    matches = []
    for k in range(3000):
        matches.append((["ace", "mid"] if k % 2 else ["mid", "ace"], None))
        matches.append((["ace", "low"] if k % 2 else ["low", "ace"], None))
        matches.append((["mid", "low"] if k % 2 else ["low", "mid"], "mid-low"))
    done = []
    for who, tag in matches:
        if tag is None:
            done.append((who, [1, 2] if who[0] == "ace" else [2, 1]))
        else:
            r = duel(rng, who[0], who[1], 0.6 if who[0] == "mid" else 0.4)
            done.append((who, r))
    cases.append((write_case("all-wins-3000", roles2, bots, done,
                             "ace wins all 6,000 of its games (3,000 per pairing)"),
                  bots, done, 2))

    # A gauntlet whose second virus never plays: a bot without games.
    bots = ["agent", "virus-a", "virus-b", "idle"]
    matches = []
    for _ in range(200):
        matches.append((["virus-a", "agent"], duel(rng, "virus-a", "agent", 0.7)))
        matches.append((["virus-b", "agent"], duel(rng, "virus-b", "agent", 0.45)))
    cases.append((write_case("zero-game-bot", ["virus", "agent"], bots, matches,
                             "idle is listed but never plays"), bots, matches, 2))

    # Two groups that never meet.
    bots = ["a1", "a2", "b1", "b2", "b3"]
    matches = []
    for _ in range(150):
        matches.append((["a1", "a2"], duel(rng, "a1", "a2", 0.8)))
        matches.append((["a2", "a1"], duel(rng, "a2", "a1", 0.2)))
        matches.append((["b1", "b2"], duel(rng, "b1", "b2", 0.5, 0.2)))
        matches.append((["b2", "b3"], duel(rng, "b2", "b3", 0.65)))
        matches.append((["b3", "b1"], duel(rng, "b3", "b1", 0.3)))
    cases.append((write_case("two-components", roles2, bots, matches,
                             "{a1, a2} and {b1, b2, b3} never meet"), bots, matches, 2))

    # Plackett-Luce: four seats, five bots, some tied places.
    bots = ["p", "q", "r", "s", "t"]
    gamma = {"p": 1.0, "q": 1.6, "r": 2.5, "s": 0.6, "t": 4.0}
    roles4 = ["n", "e", "s", "w"]
    matches = []
    for _ in range(90):
        for group in itertools.combinations(bots, 4):
            for rot in range(4):
                who = [group[(i + rot) % 4] for i in range(4)]
                left = list(who)
                order = []
                while left:
                    total = sum(gamma[b] for b in left)
                    u = rng.random() * total
                    for b in left:
                        u -= gamma[b]
                        if u <= 0:
                            break
                    order.append(b)
                    left.remove(b)
                ranks = [order.index(b) + 1 for b in who]
                if rng.random() < 0.1:  # the last two tie
                    ranks = [3 if r == 4 else r for r in ranks]
                matches.append((who, ranks))
    cases.append((write_case("plackett-luce-four-seats", roles4, bots, matches,
                             "Plackett-Luce, 4 seats, 5 bots, some ties"), bots, matches, 4))

    for (folder, note), bots, matches, seats in cases:
        method = ("statsmodels GLM (Binomial, logit) Bradley-Terry with covariance"
                  if seats == 2 else
                  "scipy.optimize BFGS + Newton polish, Plackett-Luce, finite-difference Hessian")
        ref = {"case": os.path.basename(folder), "note": note, "method": method,
               "prior_virtual_draws": PRIOR, "script": "tests/data/ratings/make_references.py",
               "bots": reference(bots, matches, seats)}
        with open(os.path.join(folder, "reference.json"), "w") as f:
            json.dump(ref, f, indent=2)
            f.write("\n")
        print(os.path.basename(folder), json.dumps(ref["bots"]))


if __name__ == "__main__":
    main()
