#!/usr/bin/env python3
"""Writes a two-level fat tree of R-port switches in BookSim's anynet format.

R leaves with R/2 nodes each, R/2 spines, every leaf linked to every spine: the tree that
mgensim builds itself from `topology = "fattree"`, `radix = R`, `levels = 2` (leaves 0 to
R - 1, spines R to 3R/2 - 1, nodes numbered leaf by leaf), so that the two can be compared.

    python3 examples/graphs/fattree_anynet.py --radix 24 > scenarios/fattree24.anynet
"""
import argparse


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--radix", type=int, default=24)
    r = p.parse_args().radix
    if r < 2 or r % 2:
        raise SystemExit("the radix is an even number of ports, 2 or more")
    half = r // 2
    for leaf in range(r):
        nodes = " ".join(f"node {leaf * half + k}" for k in range(half))
        spines = " ".join(f"router {r + s}" for s in range(half))
        print(f"router {leaf} {nodes} {spines}")


if __name__ == "__main__":
    main()
