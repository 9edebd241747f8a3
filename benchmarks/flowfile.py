"""Writes the flow files of the many-flows benchmarks: N flows of SIZE bytes among the 128 hosts of a k = 8
fat-tree, one every microsecond, source and destination drawn from a seeded generator (never equal).

`python benchmarks/flowfile.py N PATH [SIZE]`"""

from __future__ import annotations

import sys

import numpy as np

HOSTS = 128  # a k = 8 fat-tree


def write_flow_file(n: int, path: str, size: int = 1000, hosts: int = HOSTS, seed: int = 34) -> None:
    rng = np.random.default_rng(seed)
    src = rng.integers(0, hosts, n)
    dst = (src + rng.integers(1, hosts, n)) % hosts
    with open(path, "w") as f:
        f.write("src,dst,size_bytes,start_s\n")
        for i in range(0, n, 100_000):
            j = min(n, i + 100_000)
            f.writelines(
                f"S{s},S{d},{size},{k * 1e-6:.6f}\n" for s, d, k in zip(src[i:j], dst[i:j], range(i, j))
            )


if __name__ == "__main__":
    write_flow_file(int(sys.argv[1]), sys.argv[2], *(int(a) for a in sys.argv[3:4]))
