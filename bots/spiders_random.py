#!/usr/bin/env python3
"""A Greedy Spiders bot for both roles (defender and spiders), using nothing but the line
protocol; the role comes from ARENA_ROLE.

Run it with arena:
    arena play spiders --bot defender=cmd:"python3 bots/spiders_random.py" --bot spiders=greedy
    arena play spiders --bot defender=emergency --bot spiders=cmd:"python3 bots/spiders_random.py"

Protocol (docs/protocol.md): once, `N E S F`, E lines `U V` (the edges), one line of fly
vertices and the options line; each turn the last edge removed (`-1 -1` for none) and the vertex
of every spider. The defender answers `U V` (or `PASS` where allowed); the spiders `WAIT` or
`I:V ...`.

Strategy, simple but legal under the game's options:
- defender: remove an edge between a spider and a fly if there is one, else an edge on the way
  from a spider to its nearest fly, else any edge left (it never passes);
- spiders: every spider that can reach a fly steps along a shortest path to one; a spider that
  cannot stays where it is, unless `all_must_move=true` makes it step (to a random neighbour).
"""
import os
import random
import sys
from collections import deque

rng = random.Random(int(os.environ.get("ARENA_SEED", "0")))
role = os.environ.get("ARENA_ROLE", "spiders")


def read_ints():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)  # end of input: the match is over
    return [int(w) for w in line.split()]


n, e, _s, _f = read_ints()
adj = [set() for _ in range(n)]
for _ in range(e):
    a, b = read_ints()
    adj[a].add(b)
    adj[b].add(a)
flies = set(read_ints())
options = dict(w.split("=", 1) for w in sys.stdin.readline().split()[1:])  # `options k=v ...`
all_must_move = options.get("all_must_move") == "true"


def fly_distances():
    """Breadth-first distances from the flies over the edges left (None: no fly reachable)."""
    dist = [None] * n
    queue = deque()
    for f in flies:
        dist[f] = 0
        queue.append(f)
    while queue:
        v = queue.popleft()
        for w in adj[v]:
            if dist[w] is None:
                dist[w] = dist[v] + 1
                queue.append(w)
    return dist


def defend(spiders):
    dist = fly_distances()
    threats = sorted((dist[s], s) for s in spiders if dist[s] is not None)
    for _, s in threats:
        closer = sorted(w for w in adj[s] if dist[w] is not None and dist[w] < dist[s])
        if closer:
            return s, rng.choice(closer)
    edges = sorted((a, b) for a in range(n) for b in adj[a] if a < b)
    a, b = rng.choice(edges)  # no spider reaches a fly: the game is already over in practice
    return a, b


def move(spiders):
    dist = fly_distances()
    steps = []
    for i, s in enumerate(spiders):
        if not adj[s]:
            continue
        closer = sorted(w for w in adj[s] if dist[w] is not None and dist[w] < (dist[s] or 0))
        if closer or all_must_move:
            steps.append((i, rng.choice(closer or sorted(adj[s]))))
    return " ".join(f"{i}:{v}" for i, v in steps) or "WAIT"


while True:
    cut = read_ints()
    spiders = read_ints()
    if cut != [-1, -1]:
        a, b = cut
        adj[a].discard(b)
        adj[b].discard(a)
    if role == "defender":
        a, b = defend(spiders)
        adj[a].discard(b)
        adj[b].discard(a)
        print(a, b, flush=True)
    else:
        print(move(spiders), flush=True)
