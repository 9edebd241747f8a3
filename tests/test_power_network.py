"""Network power against node count (seed 001 Sec. 2.1.3): fat-tree counts, the 1,417.7 kW check, the optical
counting rules, the shipped switch table and its user extensions."""

import math

import pytest

from greendcn.core.errors import InputError
from greendcn.power import (
    FatTree,
    OpticalDesign,
    compare,
    fat_tree_counts,
    fat_tree_max_hosts,
    get_switch,
    load_switch_table,
    network_power,
    node_counts,
    shipped_switches,
)


def test_shipped_table_is_seed_001_table_2_1_with_sources():
    t = shipped_switches()
    # seed 001 Table 2.1 (measured) and the 10 W projection beside it (line 472)
    expected = {
        "selector_v1": 2.7,
        "selector_v2": 27.6,
        "wedge100bf65x": 276.9,
        "sn2700": 90.5,
        "selector_v2_optimized": 10.0,
    }
    assert {k: v.power_w for k, v in t.items()} == expected
    assert t["wedge100bf65x"].ports == 64 and t["sn2700"].ports == 32
    assert not t["selector_v2_optimized"].measured and t["selector_v1"].measured
    assert all("001_71719f5fde705892" in s.source for s in t.values())


@pytest.mark.parametrize("k", [4, 8, 16, 32, 64])
def test_full_three_tier_fat_tree_counts(k):
    # A k-port 3-tier 1:1 fat-tree holds k^3/4 hosts with 5k^2/4 switches (k^2/2 edge, k^2/2 agg, k^2/4 core).
    n = k**3 // 4
    assert fat_tree_max_hosts(k, 1, 3) == n
    c = fat_tree_counts(n, k, 1)
    assert (c["tor"], c["aggregation"], c["core"], c["tiers"]) == (k * k // 2, k * k // 2, k * k // 4, 3)
    assert c["tor"] + c["aggregation"] + c["core"] == 5 * k * k // 4


def test_65536_servers_from_64_port_switches_is_1417_7_kw():
    rec = network_power(FatTree("ft", "wedge100bf65x", 1), 65536)
    assert sum(rec["switches"].values()) == 5120
    # our arithmetic: 5,120 x 276.9 W = 1,417,728 W
    assert rec["power_w"] == pytest.approx(1_417_728.0)
    assert round(rec["power_w"] / 1e3, 1) == 1417.7


def test_three_to_one_tree_limit_matches_the_thesis_24576_nodes():
    # seed 001 line 476 stops the 3:1 tree at 24,576 nodes; our construction (edge switches 3k/4 down,
    # k/4 up) gives exactly that for the 32-port switch.
    assert fat_tree_max_hosts(32, 3, 3) == 24576
    assert fat_tree_counts(24576, 32, 3) == {"tor": 1024, "aggregation": 512, "core": 256, "tiers": 3}
    assert fat_tree_counts(24577, 32, 3) is None
    rec = network_power(FatTree("ft31", "sn2700", 3), 32768)
    assert rec["power_w"] is None and "omitted" in rec["note"] and "24576" in rec["note"]


def test_partial_trees_round_each_layer_up_and_add_tiers():
    c = fat_tree_counts(1000, 64, 1)  # 2 tiers suffice (<= 2048): ceil(1000/32) edges, ceil(32*32/64) top
    assert c == {"tor": 32, "aggregation": 0, "core": 16, "tiers": 2}
    assert fat_tree_counts(65, 64, 1)["tiers"] == 2 and fat_tree_counts(64, 64, 1)["tiers"] == 1
    assert fat_tree_counts(65537, 64, 1, max_tiers=4)["tiers"] == 4
    assert fat_tree_counts(65537, 64, 1, max_tiers=3) is None


def test_optical_counting_rules_are_parameters():
    d = OpticalDesign(
        "x", "wedge100bf65x", "selector_v1", hosts_per_tor=32, uplinks_per_tor=32, optical_ports=256
    )
    rec = network_power(d, 32768)
    assert rec["switches"] == {"tor:wedge100bf65x": 1024, "optical:selector_v1": 128}
    assert rec["power_w"] == pytest.approx(1024 * 276.9 + 128 * 2.7)
    # the thesis' SelectorNet design point (Sec. 2.4): 8 ToRs of 16 servers per 128-server super rack, each
    # with 8 uplinks to 256-port selectors -> 32,768 servers need 2,048 ToRs and 64 selectors
    thesis = OpticalDesign(
        "sn", "wedge100bf65x", "selector_v1", hosts_per_tor=16, uplinks_per_tor=8, optical_ports=256
    )
    assert network_power(thesis, 32768)["switches"]["optical:selector_v1"] == 64
    with pytest.raises(InputError, match="exceed"):
        network_power(OpticalDesign("bad", "sn2700", "selector_v1", 32, 32), 100)


def test_default_comparison_shows_the_shape_the_thesis_describes():
    # Thesis (line 481): fat-trees roughly as efficient as optical designs at thousands of nodes, where ToRs
    # dominate, and far costlier at tens of thousands. With our counting rules the 1:1 tree of 64-port
    # switches costs 1.5x the optical designs at 2,048 nodes (two tiers) and 2.5x at 32,768 (three tiers).
    recs = {(r["architecture"], r["nodes"]): r for r in compare([2048, 32768])}
    ft = "fat-tree 1:1 (Wedge 100BF-65X)"
    opera = "Opera (selector v2)"
    small = recs[(ft, 2048)]["power_w"] / recs[(opera, 2048)]["power_w"]
    large = recs[(ft, 32768)]["power_w"] / recs[(opera, 32768)]["power_w"]
    assert small < 1.6 and large > 2.3
    o = recs[(opera, 32768)]
    tor_share = o["switches"]["tor:wedge100bf65x"] * 276.9 / o["power_w"]
    assert tor_share > 0.9  # optical designs scale with their ToRs


def test_user_tables_extend_and_override(tmp_path):
    csv_path = tmp_path / "mine.csv"
    csv_path.write_text(
        "id,model,kind,ports,port_rate_gbps,power_w,measured,source\n"
        "tiny,Tiny switch,packet,8,10,12.5,true,my meter 2024\n"
        "sn2700,Mellanox SN2700 (my unit),packet,32,100,80,true,my meter\n"
    )
    t = load_switch_table(csv_path)
    assert t["tiny"].power_w == 12.5 and t["sn2700"].power_w == 80 and t["wedge100bf65x"].power_w == 276.9
    rec = network_power(FatTree("ft", "tiny", 1), 128, t)
    assert rec["power_w"] == pytest.approx(sum(rec["switches"].values()) * 12.5)
    toml_path = tmp_path / "mine.toml"
    toml_path.write_text(
        '[switch.ocs]\nmodel = "o"\nkind = "optical"\nports = 128\nport_rate_gbps = 400\n'
        'power_w = 5\nmeasured = false\nsource = "datasheet"\n'
    )
    assert load_switch_table(toml_path)["ocs"].ports == 128
    toml_path.write_text('[switch.ocs]\nmodel = "o"\nkind = "optical"\n')
    with pytest.raises(InputError, match="lacks"):
        load_switch_table(toml_path)


def test_bad_input_is_named():
    with pytest.raises(InputError, match="unknown switch 'nope'") as e:
        get_switch("nope")
    assert "sn2700" in e.value.hint
    with pytest.raises(InputError, match="positive"):
        node_counts("0:1024")
    with pytest.raises(InputError, match="positive"):
        network_power(FatTree("ft", "sn2700"), 0)
    with pytest.raises(InputError, match="LO:HI"):
        node_counts("abc")
    assert node_counts("1024:8192") == [1024, 2048, 4096, 8192]
    assert node_counts("1000,3000") == [1000, 3000]
    assert math.isclose(len(compare([1024])), 8)
