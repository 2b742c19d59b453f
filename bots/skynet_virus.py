#!/usr/bin/env python3
"""A Skynet Revolution virus (Episodes 1 and 2), written as for CodinGame: it reads the init
block, then loops forever on the agent's node `SI`, printing one cut `C1 C2` per turn.

Run it with arena:  arena play skynet --bot virus=cmd:"python3 bots/skynet_virus.py" --bot agent=random

Strategy (the classic Episode 2 one): cut a gateway link at the agent if there is one; otherwise
find, by a 0-1 breadth-first search from the agent in which stepping onto a node next to a gateway
costs nothing (the virus must answer that threat at once, so it is "free" for the agent), the
closest node with two or more gateway links, and cut one of them. With none left, cut any gateway
link next to the closest threatened node.
"""
import sys
from collections import deque

# n: the total number of nodes in the level, including the gateways
# l: the number of links
# e: the number of exit gateways
n, l, e = [int(i) for i in input().split()]
links = [set() for _ in range(n)]
for i in range(l):
    # n1: N1 and N2 defines a link between these nodes
    n1, n2 = [int(j) for j in input().split()]
    links[n1].add(n2)
    links[n2].add(n1)
gateways = set()
for i in range(e):
    gateways.add(int(input()))  # the index of a gateway node


def gateway_links(node):
    return sorted(g for g in links[node] if g in gateways)


def choose_cut(agent):
    near = gateway_links(agent)
    if near:
        return agent, near[0]
    dist = {agent: 0}
    queue = deque([agent])
    order = []
    while queue:
        v = queue.popleft()
        order.append(v)
        for w in sorted(links[v]):
            if w in gateways:
                continue
            d = dist[v] + (0 if gateway_links(w) else 1)
            if w not in dist or d < dist[w]:
                dist[w] = d
                if d == dist[v]:
                    queue.appendleft(w)
                else:
                    queue.append(w)
    threatened = [v for v in dist if gateway_links(v)]
    doubles = [v for v in threatened if len(gateway_links(v)) >= 2]
    pool = doubles or threatened
    if pool:
        best = min(pool, key=lambda v: (dist[v], -len(gateway_links(v)), v))
        return best, gateway_links(best)[0]
    for v in range(n):  # nothing reachable is threatened: any gateway link will do
        if gateway_links(v):
            return v, gateway_links(v)[0]
    return agent, next(iter(links[agent]))


# game loop: one turn per line, until arena closes the input at the end of the match (CodinGame
# never does; exiting cleanly then is what `arena check` asks)
while True:
    try:
        si = int(input())  # The index of the node on which the Skynet agent is positioned this turn
    except EOFError:
        break
    c1, c2 = choose_cut(si)
    links[c1].discard(c2)
    links[c2].discard(c1)
    # Example: 3 4 are the indices of the nodes you wish to sever the link between
    print(c1, c2)
    sys.stdout.flush()
