#!/usr/bin/env python3
"""A Risk bot for any seat (player1 .. player6) that answers every kind of decision, using
nothing but the line protocol.

Run it with arena:
    arena play risk --opt players=2 --opt max_rounds=20 \
        --bot player1=cmd:"python3 bots/risk_random.py" --bot player2=random

Protocol (docs/protocol.md): once, `players N`, `you K`, `options ...`, the territories, the
continents and the borders; then for every decision nine lines (round, owners, armies, cards,
hand, trades, reserve, last battle, `ask ...`). Answer one line: `claim T`, `place T N`,
`trade C1 C2 C3`, `attack F T D`, `defend D`, `move N`, `fortify F T N` or `end`.

Strategy, simple and always legal: claim and place at random (setup armies on a border
territory when it has one); trade a set whenever it holds one; put all reinforcements on a
random border territory; attack from a territory with at least 3 armies and more armies than
its target, with as many dice as it may; defend and occupy with the most it may; fortify from
an interior territory to a neighbouring border one. Random choices come from ARENA_SEED.
"""
import os
import random
import sys

rng = random.Random(int(os.environ.get("ARENA_SEED", "0")))


def read_words():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)  # end of input: the match is over
    return line.split()


def expect(words, keyword):
    if not words or words[0] != keyword:
        sys.exit(f"protocol: expected `{keyword} ...`, read {' '.join(words)!r}")
    return words[1:]


# ---- init ----
players = int(expect(read_words(), "players")[0])
me = int(expect(read_words(), "you")[0])
expect(read_words(), "options")  # fortifying to a neighbour is legal under either rule
neutral = players + 1  # the neutral's number in `owners` (two players only)
territories = int(expect(read_words(), "territories")[0])
for _ in range(territories):
    read_words()  # id continent name: this strategy ignores continents
for _ in range(int(expect(read_words(), "continents")[0])):
    read_words()
adj = [set() for _ in range(territories)]
for _ in range(int(expect(read_words(), "borders")[0])):
    a, b = map(int, read_words())
    adj[a].add(b)
    adj[b].add(a)


def find_set(hand):
    """Three card ids forming a set (three alike, one of each, or two and a wild), or None."""
    for i in range(len(hand)):
        for j in range(i + 1, len(hand)):
            for k in range(j + 1, len(hand)):
                trio = [hand[i], hand[j], hand[k]]
                symbols = [s for _, s in trio]
                alike = len(set(symbols)) == 1
                distinct = len(set(symbols)) == 3
                if "W" in symbols or alike or distinct:
                    return [c for c, _ in trio]
    return None


def decide(state):
    owners, armies, hand, ask = state["owners"], state["armies"], state["hand"], state["ask"]
    mine = [t for t in range(territories) if owners[t] == me]
    border = [t for t in mine if any(owners[n] != me for n in adj[t])]
    kind, args = ask[0], [int(a) for a in ask[1:] if a.lstrip("-").isdigit()]

    if kind == "claim":
        return f"claim {rng.choice([t for t in range(territories) if owners[t] == 0])}"
    if kind == "place":  # setup: one of our own armies
        return f"place {rng.choice(border or mine)} 1"
    if kind == "place-neutral":
        return f"place {rng.choice([t for t in range(territories) if owners[t] == neutral])} 1"
    if kind in ("trade", "trade-forced"):
        cards = find_set(hand)
        # `ask trade-forced` (6 or more cards) always has a set; so does `ask trade`, which is
        # only asked when the hand holds one.
        return "trade " + " ".join(map(str, cards)) if cards else "end"
    if kind == "reinforce":
        return f"place {rng.choice(border or mine)} {args[0]}"
    if kind == "attack":
        attacks = [
            (f, t)
            for f in mine
            if armies[f] >= 3
            for t in sorted(adj[f])
            if owners[t] != me and armies[f] > armies[t]
        ]
        if not attacks:
            return "end"
        f, t = rng.choice(attacks)
        return f"attack {f} {t} {min(3, armies[f] - 1)}"
    if kind == "defend":  # defend F T D MAX
        return f"defend {args[3]}"
    if kind == "occupy":  # occupy F T MIN MAX
        return f"move {args[3]}"
    if kind == "fortify":
        moves = [
            (f, t)
            for f in mine
            if armies[f] > 1 and f not in border
            for t in sorted(adj[f])
            if t in border
        ]
        if not moves:
            return "end"
        f, t = rng.choice(moves)
        return f"fortify {f} {t} {armies[f] - 1}"
    sys.exit(f"protocol: unknown question {' '.join(ask)!r}")


# ---- one decision per nine lines ----
while True:
    state = {}
    expect(read_words(), "round")
    state["owners"] = [int(w) for w in expect(read_words(), "owners")]
    state["armies"] = [int(w) for w in expect(read_words(), "armies")]
    expect(read_words(), "cards")
    held = expect(read_words(), "hand")
    state["hand"] = [(int(c), s) for c, s in (w.split(":") for w in held[1:])]
    expect(read_words(), "trades")
    expect(read_words(), "reserve")
    expect(read_words(), "last")
    state["ask"] = expect(read_words(), "ask")
    print(decide(state), flush=True)
