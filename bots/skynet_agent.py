#!/usr/bin/env python3
"""A Skynet Revolution agent, using nothing but the line protocol: it keeps the links left by
removing each cut it is told about, and walks towards the nearest gateway.

Run it with arena:
    arena play skynet --bot virus=greedy --bot agent=cmd:"python3 bots/skynet_agent.py"

Protocol (docs/protocol.md): once, `N L E`, L lines `N1 N2` (the links) and E lines (the
gateways); each turn `SI C1 C2`: the agent's node and the link the virus has just cut. Answer:
the node to step to, a neighbour over a link not cut.

Strategy: a gateway next door: step onto it. Otherwise the neighbour on a shortest path to a
gateway (the virus wins at once when none is reachable, so one always is while the agent is
asked); ties broken at random from ARENA_SEED.
"""
import os
import random
import sys
from collections import deque

rng = random.Random(int(os.environ.get("ARENA_SEED", "0")))


def read_ints():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)  # end of input: the match is over
    return [int(w) for w in line.split()]


n, l, e = read_ints()
links = [set() for _ in range(n)]
for _ in range(l):
    a, b = read_ints()
    links[a].add(b)
    links[b].add(a)
gateways = {read_ints()[0] for _ in range(e)}


def gateway_distances():
    """Distances to the nearest gateway; a path ends at the first gateway it meets."""
    dist = [None] * n
    queue = deque()
    for g in gateways:
        dist[g] = 0
        queue.append(g)
    while queue:
        v = queue.popleft()
        for w in links[v]:
            if dist[w] is None and w not in gateways:
                dist[w] = dist[v] + 1
                queue.append(w)
    return dist


while True:
    si, c1, c2 = read_ints()
    if c1 >= 0:
        links[c1].discard(c2)
        links[c2].discard(c1)
    dist = gateway_distances()
    options = sorted(w for w in links[si] if dist[w] is not None)
    best = min(dist[w] for w in options) if options else None
    choice = rng.choice([w for w in options if dist[w] == best] or sorted(links[si]))
    print(choice, flush=True)
