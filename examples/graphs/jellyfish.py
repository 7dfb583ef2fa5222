#!/usr/bin/env python3
"""Writes a Jellyfish network (Singla et al., NSDI 2012) as an mgensim graph file.

N routers, each with R links to other routers picked at random (a random R-regular graph,
or one link short where N x R is odd) and P nodes. The same arguments always give the same file: the draws come from a SplitMix64
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
    """A random r-regular graph on n routers, built as the Jellyfish paper builds it: link two
    routers with free ports picked at random while such a pair is not linked yet; when none is
    left, free two ports of a router by breaking a random link (x, y) and linking the router to
    x and to y instead. Drawn again if it comes out in pieces."""
    def pick(seq):
        return seq[next(draws) % len(seq)]

    for _ in range(100):
        free = [r] * n
        links = set()
        stuck = 0
        while sum(free) > 1 and stuck < 10 * n * r:
            open_ = [v for v in range(n) if free[v] > 0]
            pairs = [(a, b) for i, a in enumerate(open_) for b in open_[i + 1:]
                     if (a, b) not in links] if len(open_) < 64 else None
            if pairs is None:
                a, b = pick(open_), pick(open_)
                if a == b or (min(a, b), max(a, b)) in links:
                    stuck += 1
                    continue
                pair = (min(a, b), max(a, b))
            elif pairs:
                pair = pick(pairs)
            else:
                # no pair left to link: a router with two free ports takes over a link
                p = next((v for v in open_ if free[v] >= 2), None)
                if p is None or not links:
                    break
                x, y = pick(sorted(links))
                if p in (x, y) or (min(p, x), max(p, x)) in links or (min(p, y), max(p, y)) in links:
                    stuck += 1
                    continue
                links.remove((x, y))
                links.add((min(p, x), max(p, x)))
                links.add((min(p, y), max(p, y)))
                free[p] -= 2
                continue
            links.add(pair)
            free[pair[0]] -= 1
            free[pair[1]] -= 1
        if connected(n, links):
            return sorted(links)
    sys.exit(f"no connected random graph of degree {r} on {n} routers found")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--routers", type=int, default=16)
    p.add_argument("--links", type=int, default=4, help="links per router (R)")
    p.add_argument("--nodes", type=int, default=2, help="nodes per router (P)")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    if a.routers < 2 or not 1 <= a.links < a.routers:
        sys.exit("need at least 2 routers and 1 to routers - 1 links each")
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
