#!/usr/bin/env python3
"""Writes a Jellyfish network (Singla et al., NSDI 2012) as an mgensim graph file.

N routers, each with R links to other routers picked at random (a random R-regular graph)
and P nodes. The same arguments always give the same file: the draws come from a SplitMix64
generator of the seed, not from Python's own.

    python3 examples/graphs/jellyfish.py --routers 16 --links 4 --nodes 2 --seed 1 \
        > scenarios/jellyfish.graph

Run it with `network.topology = "graph"` and `network.graph = "jellyfish.graph"`
(scenarios/jellyfish.toml).
"""
import argparse
import sys

MASK = (1 << 64) - 1


def splitmix64(seed):
    """An endless stream of 64-bit numbers from `seed`."""
    x = seed & MASK
    while True:
        x = (x + 0x9E3779B97F4A7C15) & MASK
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        yield z ^ (z >> 31)


def connected(n, links):
    adj = [[] for _ in range(n)]
    for a, b in links:
        adj[a].append(b)
        adj[b].append(a)
    seen, todo = {0}, [0]
    while todo:
        for m in adj[todo.pop()]:
            if m not in seen:
                seen.add(m)
                todo.append(m)
    return len(seen) == n


def regular_graph(n, r, draws):
    """A random r-regular graph on n routers without self-loops or parallel links: stubs
    paired at random, the whole pairing drawn again when it fails."""
    for _ in range(10000):
        stubs = [v for v in range(n) for _ in range(r)]
        for i in range(len(stubs) - 1, 0, -1):  # Fisher-Yates
            j = next(draws) % (i + 1)
            stubs[i], stubs[j] = stubs[j], stubs[i]
        links = set()
        ok = True
        for a, b in zip(stubs[0::2], stubs[1::2]):
            pair = (min(a, b), max(a, b))
            if a == b or pair in links:
                ok = False
                break
            links.add(pair)
        if ok and connected(n, links):
            return sorted(links)
    sys.exit(f"no connected {r}-regular graph on {n} routers found")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--routers", type=int, default=16)
    p.add_argument("--links", type=int, default=4, help="links per router (R)")
    p.add_argument("--nodes", type=int, default=2, help="nodes per router (P)")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    if a.routers < 2 or not 1 <= a.links < a.routers or (a.routers * a.links) % 2:
        sys.exit("need at least 2 routers, 1 to routers - 1 links each, and routers x links even")
    links = regular_graph(a.routers, a.links, splitmix64(a.seed))
    print(f"# Jellyfish: {a.routers} routers, {a.links} random links and {a.nodes} nodes each")
    print(f"# python3 examples/graphs/jellyfish.py --routers {a.routers} --links {a.links} "
          f"--nodes {a.nodes} --seed {a.seed}")
    print(f"routers {a.routers}")
    for x, y in links:
        print(f"link {x} {y}")
    for r in range(a.routers):
        for k in range(a.nodes):
            print(f"node {r * a.nodes + k} {r}")


if __name__ == "__main__":
    main()
