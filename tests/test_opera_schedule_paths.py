"""Listed paths of an Opera slice (greendcn.sim.topology.opera_paths): the k shortest simple paths per rack pair,
as the public Opera simulator's topology files list them, checked against brute-force enumeration on 12 racks."""

import pytest

from greendcn.sim.topology.opera import OperaParams, build_opera
from greendcn.sim.topology.opera_paths import listed_path_stats, listed_paths


@pytest.fixture(scope="module")
def small():
    return build_opera(OperaParams(racks=12, switches=4, seed=3, search_moves=50))


def all_simple_paths(sched, t, src, dst, max_len):
    up = sched.low_latency_matchings(t)
    nbrs = {a: {int(sched.partners[m, a]) for m in up} - {a} for a in range(sched.params.racks)}
    out = []

    def walk(path):
        if path[-1] == dst:
            out.append(path)
            return
        if len(path) - 1 == max_len:
            return
        for y in sorted(nbrs[path[-1]]):
            if y not in path:
                walk(path + [y])

    walk([src])
    return out


def test_listed_paths_are_the_k_shortest_simple_paths(small):
    for t in (0, 5):
        d = small.hops(t)
        for src, dst in ((0, 7), (3, 11), (9, 2)):
            short = int(d[src, dst])
            every = all_simple_paths(small, t, src, dst, short + 4)
            lengths = sorted(len(p) - 1 for p in every)
            listed = listed_paths(small, t, src, dst, k=5)
            assert len(listed) == min(5, len(every))
            # shortest first, and the same lengths as the k shortest of all simple paths
            assert [len(p) - 1 for p in listed] == lengths[: len(listed)]
            assert len(listed[0]) - 1 == short
            for p in listed:
                assert p in every and len(set(p)) == len(p)  # simple, and each step a circuit up in slice t
            assert len({tuple(p) for p in listed}) == len(listed)


def test_one_listed_path_is_one_shortest_path_and_no_path_to_itself(small):
    d = small.hops(2)
    assert len(listed_paths(small, 2, 4, 4)) == 0
    one = listed_paths(small, 2, 1, 6, k=1)
    assert len(one) == 1 and len(one[0]) - 1 == d[1, 6]


def test_five_listed_paths_are_longer_on_average_and_leave_by_more_first_hops(small):
    one = listed_path_stats(small, [0, 1], k=1)
    five = listed_path_stats(small, [0, 1], k=5)
    assert one["mean_listed_hops"] == one["mean_shortest_hops"] == five["mean_shortest_hops"]
    assert one["first_hops_per_pair"] == 1.0 and one["one_first_hop_share"] == 1.0
    assert five["mean_listed_hops"] > one["mean_listed_hops"]
    assert five["first_hops_per_pair"] > 1.0
