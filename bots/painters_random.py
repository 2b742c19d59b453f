#!/usr/bin/env python3
"""A Painters' Duel bot for either role (alma or berthe), using nothing but the line protocol.

Run it with arena:
    arena play painters --bot alma=cmd:"python3 bots/painters_random.py" --bot berthe=greedy

Protocol (docs/protocol.md): once, the role (`alma`/`berthe`) and the board as one Kick Start
case `S RA PA RB PB C` plus C lines `R P`; each turn `RA PA RB PB` and S grid lines (`A`/`B`
painters, `a`/`b` painted, `#` under construction, `.` open). Answer: the room `R P` to move into.

Strategy: the open neighbour with the most open neighbours of its own (a one-step look-ahead that
avoids walking into dead ends), ties broken at random from ARENA_SEED.
"""
import os
import random
import sys

rng = random.Random(int(os.environ.get("ARENA_SEED", "0")))


def neighbours(r, p, size):
    """The rooms sharing a side with room (r, p) in a museum of side `size`."""
    out = []
    if p > 1:
        out.append((r, p - 1))
    if p < 2 * r - 1:
        out.append((r, p + 1))
    if p % 2 == 1:  # the room points up: its door at the bottom
        if r < size:
            out.append((r + 1, p + 1))
    else:  # it points down: its door at the top
        out.append((r - 1, p - 1))
    return out


def main():
    role = sys.stdin.readline().strip()
    me = {"alma": 0, "berthe": 1}[role]
    size, _ra, _pa, _rb, _pb, blocked = map(int, sys.stdin.readline().split())
    for _ in range(blocked):
        sys.stdin.readline()  # the grid of each turn shows these rooms as `#` anyway
    while True:
        line = sys.stdin.readline()
        if not line:
            return  # end of input: the match is over
        ra, pa, rb, pb = map(int, line.split())
        grid = [sys.stdin.readline().rstrip("\n") for _ in range(size)]

        def is_open(room):
            r, p = room
            return grid[r - 1][p - 1] == "."

        here = [(ra, pa), (rb, pb)][me]
        moves = [room for room in neighbours(*here, size) if is_open(room)]
        # The referee only asks a painter who can move, so `moves` is never empty.
        rng.shuffle(moves)
        best = max(moves, key=lambda room: sum(is_open(n) for n in neighbours(*room, size)))
        print(best[0], best[1], flush=True)


main()
