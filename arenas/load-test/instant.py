#!/usr/bin/env python3
"""An instant Skynet bot for the tournament load test (arenas/load-test.toml): it plays either role,
telling them apart by the turn line (the virus reads `SI`, the agent `SI C1 C2`), and answers at
once with a legal action. Written for the load test only: it is fast, not strong."""
import sys


def main():
    first = sys.stdin.readline().split()
    if not first:
        return
    n, l, e = map(int, first)
    links = set()
    adj = {v: set() for v in range(n)}
    for _ in range(l):
        a, b = map(int, sys.stdin.readline().split())
        links.add((min(a, b), max(a, b)))
        adj[a].add(b)
        adj[b].add(a)
    gateways = [int(sys.stdin.readline()) for _ in range(e)]
    gateway_set = set(gateways)

    def cut(a, b):
        links.discard((min(a, b), max(a, b)))
        adj[a].discard(b)
        adj[b].discard(a)

    for line in sys.stdin:
        words = list(map(int, line.split()))
        if not words:
            continue
        agent = words[0]
        if len(words) == 3:  # the agent: forget the cut link, step to a gateway if one is next
            if words[1] >= 0:
                cut(words[1], words[2])
            options = sorted(adj[agent])
            step = next((v for v in options if v in gateway_set), options[0] if options else agent)
            print(step, flush=True)
        else:  # the virus: cut a gateway link at the agent, else the first gateway link left
            target = next((g for g in sorted(adj[agent]) if g in gateway_set), None)
            if target is None:
                target_link = next(
                    ((g, v) for g in gateways for v in sorted(adj[g])), None
                )
            else:
                target_link = (agent, target)
            if target_link is None:
                target_link = next(iter(sorted(links)))
            cut(*target_link)
            print(*target_link, flush=True)


if __name__ == "__main__":
    main()
