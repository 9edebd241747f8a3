"""UA classification: real UA strings of each kind, client hints, the app UA, and every censoring rule."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest

from greendcn.core.errors import InputError
from greendcn.lifetime import tables
from greendcn.lifetime.appua import parse_app_ua
from greendcn.lifetime.lookup import token_key
from greendcn.lifetime.uaclass import CENSOR_REASONS, OUTPUT_COLUMNS, classify, classify_one
from greendcn.lifetime.uaparse import make_resolver, parse

CHROME_ANDROID = (
    "Mozilla/5.0 (Linux; Android 11; SM-G991B) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/96.0.4664.45 Mobile Safari/537.36"
)
CHROME_REDUCED = (
    "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/124.0.0.0 Mobile Safari/537.36"
)
SAMSUNG = (
    "Mozilla/5.0 (Linux; Android 13; SAMSUNG SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) "
    "SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36"
)
WEBVIEW = (
    "Mozilla/5.0 (Linux; Android 12; Pixel 6 Build/SD1A.210817.036; wv) AppleWebKit/537.36 "
    "(KHTML, like Gecko) Version/4.0 Chrome/94.0.4606.71 Mobile Safari/537.36"
)
WEBVIEW_KITKAT = (
    "Mozilla/5.0 (Linux; Android 4.4.2; SM-G900F Build/KOT49H) AppleWebKit/537.36 (KHTML, like "
    "Gecko) Version/4.0 Chrome/30.0.0.0 Mobile Safari/537.36"
)
FIREFOX_ANDROID = "Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0"
MOTO = (
    "Mozilla/5.0 (Linux; Android 12; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/110.0.0.0 Mobile Safari/537.36"
)
IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.4.1 Mobile/15E148 Safari/604.1"
)
IPHONE_FROZEN = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like "
    "Gecko) Version/26.0 Mobile/15E148 Safari/604.1"
)
IPHONE_CRIOS_FROZEN = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, "
    "like Gecko) CriOS/140.0.7339.122 Mobile/15E148 Safari/604.1"
)
IPHONE_REAL_18_6 = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like "
    "Gecko) Version/18.6 Mobile/15E148 Safari/604.1"
)
IPAD = (
    "Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 "
    "Mobile/15E148 Safari/604.1"
)
# iPadOS Safari asks for the desktop site by default and then sends a Mac UA: nothing tells it from a Mac.
IPAD_DESKTOP = (
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.4 Safari/605.1.15"
)
MAC_FIREFOX = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:125.0) Gecko/20100101 Firefox/125.0"
MAC_OLD = (
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_13_6) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/13.1.2 Safari/605.1.15"
)
WIN_EDGE = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/124.0.0.0 Safari/537.36 Edg/124.0.0.0"
)
WIN7 = "Mozilla/5.0 (Windows NT 6.1; Win64; x64; rv:60.0) Gecko/20100101 Firefox/60.0"
APP_IOS = "LMSApp/5.2.1 (device_id=AB12-CD; model=iPhone12,1; os=iOS; os_version=17.4)"
APP_ANDROID = "LMSApp/5.2.1 (device_id=X9; model=SM-G991U; os=Android; os_version=13)"


def one(ua: str, **kw) -> pd.Series:
    frame = pd.DataFrame([{"ua": ua, "app_device_id": "", "ch_model": "", "ch_platform_version": "", **kw}])
    return classify(frame).iloc[0]


def browser_date(browser: str, version: str):
    b = tables.browser_releases()
    return b[(b["browser"] == browser) & (b["version"] == version)]["release_date"].iloc[0]


def os_date(os: str, version: str):
    o = tables.os_releases()
    return o[(o["os"] == os) & (o["version"] == version)]["release_date"].iloc[0]


def device_row(token: str) -> pd.Series:
    d = tables.devices()
    return d[d["ua_token"] == token].iloc[0]


def test_rust_resolver_is_used_and_agrees_with_pure_re():
    rs = make_resolver("auto")
    assert type(rs[0]).__module__ == "ua_parser.regex"
    basic = make_resolver("re")
    for ua in (CHROME_ANDROID, CHROME_REDUCED, SAMSUNG, IPHONE_FROZEN, WIN_EDGE, WEBVIEW, FIREFOX_ANDROID):
        assert parse(ua, basic) == parse(ua, rs)


def test_without_ua_parser_rs_the_pure_re_resolver_is_used_with_a_warning(monkeypatch):
    monkeypatch.setitem(sys.modules, "ua_parser.regex", None)  # makes the import fail
    with pytest.warns(RuntimeWarning, match="pure-re"):
        res = make_resolver("auto")
    assert type(res[0]).__module__ == "ua_parser.basic"
    assert parse(IPHONE_FROZEN, res).os_version == (18, 6)
    with pytest.raises(ImportError):
        make_resolver("rs")


def test_chrome_android_full_ua_names_the_model_and_dates_everything():
    r = one(CHROME_ANDROID)
    row = device_row("SM-G991")
    assert (r["platform"], r["device_class"], r["browser"], r["browser_version"]) == (
        "android",
        "smartphone",
        "chrome_android",
        "96",
    )
    assert r["browser_release"] == browser_date("chrome_android", "96")
    assert (r["os"], r["os_version"], r["os_release_lo"]) == ("android", "11", os_date("android", "11"))
    assert r["device_key"] == "Samsung SM-G991" and r["device_name"] == row["name"]
    assert r["device_release_lo"] == r["device_release_hi"] == row["release_date"]
    assert r["censor_reason"] == "" and not r["is_app"]


@pytest.mark.parametrize("variant", ["SM-G991U", "SM-G991W", "SM-G991U1"])
def test_samsung_regional_suffixes_are_one_model(variant):
    assert one(CHROME_ANDROID.replace("SM-G991B", variant))["device_key"] == "Samsung SM-G991"
    assert token_key(variant) == "SM-G991"


def test_samsung_internet_and_its_version_key():
    r = one(SAMSUNG)
    assert (r["browser"], r["browser_version"]) == ("samsunginternet_android", "23.0")
    assert r["browser_release"] == browser_date("samsunginternet_android", "23.0")
    assert r["device_name"] == device_row("SM-S918")["name"]


def test_webview_by_its_own_entry_and_through_the_gap():
    r = one(WEBVIEW)
    assert (r["browser"], r["browser_version"]) == ("webview_android", "94")
    assert r["browser_release"] == browser_date("webview_android", "94")
    assert r["device_key"] == "Google Pixel 6"
    k = one(WEBVIEW_KITKAT)  # Chromium 30 inside Android 4.4: MDN's WebView has no "30"
    assert (k["browser"], k["browser_version"]) == ("webview_android", "30")
    b = tables.browser_releases()
    gap = b[(b["browser"] == "webview_android") & (b["version"] == "30")].iloc[0]
    assert "webview gap" in gap["source"]
    assert k["browser_release"] == browser_date("chrome_android", "30")
    assert k["os_version"] == "4.4.2" and k["os_release_lo"] == os_date("android", "4.4")


def test_firefox_android_has_no_model_and_is_not_guessed():
    r = one(FIREFOX_ANDROID)
    assert (r["browser"], r["browser_version"]) == ("firefox_android", "125")
    assert r["device_key"] == "" and pd.isna(r["device_release_lo"]) and r["censor_reason"] == ""


def test_motorola_model_by_marketing_name():
    r = one(MOTO)
    assert r["device_name"] == "Moto G Power (2022)"
    assert r["device_release_lo"] == device_row("moto g power (2022)")["release_date"]


def test_reduced_android_is_censored_with_open_bounds():
    r = one(CHROME_REDUCED)
    first_android = tables.os_releases().query("os == 'android'")["release_date"].min()
    assert r["censor_reason"] == "reduced_android"
    assert r["browser_version"] == "124" and r["browser_release"] == browser_date("chrome_android", "124")
    assert r["device_key"] == "" and r["os_version"] == ""
    assert r["device_release_lo"] == first_android and pd.isna(r["device_release_hi"])
    assert r["os_release_lo"] == first_android and pd.isna(r["os_release_hi"])


def test_client_hints_undo_the_reduction():
    r = one(CHROME_REDUCED, ch_model='"SM-G991B"', ch_platform_version='"13.0.0"')
    assert r["censor_reason"] == "" and r["device_key"] == "Samsung SM-G991"
    assert r["device_release_lo"] == r["device_release_hi"] == device_row("SM-G991")["release_date"]
    assert r["os_release_lo"] == r["os_release_hi"] == os_date("android", "13")
    half = one(CHROME_REDUCED, ch_model="Pixel 7")  # model but no platform version: OS stays censored
    assert half["device_key"] == "Google Pixel 7" and half["censor_reason"] == "reduced_android"
    assert pd.isna(half["os_release_hi"])


def _iphones():
    d = tables.devices()
    return d[(d["platform"] == "ios")]


def test_model_less_iphone_bounds_follow_the_stated_rule():
    r = one(IPHONE)
    ph = _iphones()
    last = pd.to_numeric(ph["last_os_major"], errors="coerce")
    launch = pd.to_numeric(ph["launch_os_version"].str.split(".").str[0], errors="coerce")
    assert r["censor_reason"] == "iphone_no_model" and r["device_key"] == ""
    assert r["device_release_lo"] == ph[last.isna() | (last >= 17)]["release_date"].min()
    assert r["device_release_hi"] == ph[launch <= 17]["release_date"].max()
    # the rule is not vacuous: older iPhones than the bound exist, and so do newer ones
    assert (
        ph["release_date"].min() < r["device_release_lo"] < r["device_release_hi"] < ph["release_date"].max()
    )
    assert (r["browser_version"], r["os_version"]) == ("17.4", "17.4.1")
    assert r["os_release_lo"] == r["os_release_hi"] == os_date("ios", "17.4")


def test_frozen_safari_26_takes_the_os_from_safari():
    r = one(IPHONE_FROZEN)
    p = parse(IPHONE_FROZEN)
    assert p.os_version == (18, 6)  # what ua-parser 1.0.2 reports: the frozen value
    assert r["censor_reason"] == "frozen_ios"
    assert (r["os_version"], r["browser_version"]) == ("26.0", "26")
    assert r["os_release_lo"] == r["os_release_hi"] == os_date("ios", "26")
    ph = _iphones()
    last = pd.to_numeric(ph["last_os_major"], errors="coerce")
    assert r["device_release_lo"] == ph[last.isna() | (last >= 26)]["release_date"].min()


def test_frozen_ios_under_another_browser_is_a_lower_bound():
    r = one(IPHONE_CRIOS_FROZEN)
    assert r["censor_reason"] == "frozen_ios" and r["browser"] == "chrome_ios"
    assert r["browser_release"] == browser_date("chrome", "140")  # exact: Chrome's own version
    assert r["os_release_lo"] == os_date("ios", "18.6") and pd.isna(r["os_release_hi"])
    ph = _iphones()
    last = pd.to_numeric(ph["last_os_major"], errors="coerce")
    assert r["device_release_lo"] == ph[last.isna() | (last >= 18)]["release_date"].min()
    assert pd.isna(r["device_release_hi"])


def test_a_real_ios_18_6_safari_is_not_frozen():
    r = one(IPHONE_REAL_18_6)
    assert r["censor_reason"] == "iphone_no_model" and r["os_version"] == "18.6"
    assert r["device_release_hi"] > r["device_release_lo"]


def test_ipad_mobile_and_desktop_mode():
    r = one(IPAD)
    assert (r["platform"], r["device_class"], r["censor_reason"]) == ("ipados", "tablet", "ipad_no_model")
    pads = tables.devices().query("platform == 'ipados'")
    assert pads["release_date"].min() <= r["device_release_lo"] < r["device_release_hi"]
    d = one(IPAD_DESKTOP)  # indistinguishable from a Mac: classified as one, with the OS censored
    assert (d["platform"], d["device_class"], d["browser"]) == ("macos", "computer", "safari")
    assert d["censor_reason"] == "frozen_macos" and d["device_key"] == ""
    assert d["os_release_lo"] == os_date("macos", "10.15") and pd.isna(d["os_release_hi"])


def test_macos_frozen_and_not():
    f = one(MAC_FIREFOX)
    assert f["censor_reason"] == "frozen_macos" and f["browser"] == "firefox"
    old = one(MAC_OLD)
    assert old["censor_reason"] == "" and old["os_release_lo"] == old["os_release_hi"] == os_date(
        "macos", "10.13"
    )
    assert (old["browser_version"], old["browser_release"]) == ("13.1", browser_date("safari", "13.1"))
    hinted = one(MAC_OLD.replace("10_13_6", "10_15_7"), ch_platform_version='"14.4.1"')
    assert hinted["censor_reason"] == "" and hinted["os_release_hi"] == os_date("macos", "14")


def test_windows_frozen_and_client_hints():
    r = one(WIN_EDGE)
    assert (r["browser"], r["censor_reason"], r["os_version"]) == ("edge", "frozen_windows", "10")
    assert r["os_release_lo"] == os_date("windows", "10") and pd.isna(r["os_release_hi"])
    w11 = one(WIN_EDGE, ch_platform_version='"15.0.0"')
    assert (w11["censor_reason"], w11["os_version"]) == ("", "11")
    assert w11["os_release_lo"] == w11["os_release_hi"] == os_date("windows", "11")
    w10 = one(WIN_EDGE, ch_platform_version="10.0.0")
    assert w10["os_version"] == "10" and w10["os_release_hi"] == os_date("windows", "10")
    w7 = one(WIN7)
    assert (w7["censor_reason"], w7["os_version"], w7["browser_version"]) == ("", "7", "60")


def test_app_ua_fields_and_merge_with_web():
    a = parse_app_ua(APP_IOS)
    assert (a.device_id, a.model, a.os, a.os_version) == ("AB12-CD", "iPhone12,1", "iOS", "17.4")
    assert parse_app_ua(APP_IOS, name=r"OtherApp") is None
    assert parse_app_ua("LMSApp/1.0 (model=x; junk; os_version=9; =y)").fields == {
        "model": "x",
        "os_version": "9",
    }
    r = one(APP_IOS)
    row = device_row("iPhone12,1")
    assert r["is_app"] and r["browser"] == "" and r["app_device_id"] == "AB12-CD"
    assert (r["platform"], r["device_key"], r["device_name"]) == ("ios", "Apple iPhone12,1", row["name"])
    assert (
        r["device_release_lo"] == r["device_release_hi"] == row["release_date"] and r["censor_reason"] == ""
    )
    droid = one(APP_ANDROID, app_device_id="from-column")
    assert droid["device_key"] == one(CHROME_ANDROID)["device_key"]  # app and web sightings of one phone
    assert droid["app_device_id"] == "from-column"  # the scanner's column wins over the UA's field


def test_classify_keeps_index_and_parses_each_distinct_ua_once():
    uas = [CHROME_ANDROID, IPHONE, CHROME_ANDROID, APP_IOS, IPHONE, WIN_EDGE]
    frame = pd.DataFrame({"ua": uas, "user": list("abcdef")}, index=[10, 3, 7, 1, 99, 5])
    calls: list[str] = []
    rs = make_resolver("rs")

    def counting(ua, domains):
        calls.append(ua)
        return rs[0](ua, domains)

    out = classify(frame, resolver=(counting, rs[1]))
    assert list(out.index) == [10, 3, 7, 1, 99, 5] and list(out.columns) == OUTPUT_COLUMNS
    assert sorted(calls) == sorted({CHROME_ANDROID, IPHONE, WIN_EDGE})  # the app UA needs no parse
    assert out.loc[7].equals(out.loc[10])
    assert set(out["censor_reason"]) <= set(CENSOR_REASONS)
    for c in ("browser_release", "os_release_lo", "device_release_hi"):
        assert out[c].dtype == "datetime64[s]"
    assert out["is_app"].dtype == bool


def test_classify_without_ua_column_is_an_input_error():
    with pytest.raises(InputError, match="'ua'"):
        classify(pd.DataFrame({"x": [1]}))


def test_device_table_override_reaches_the_classifier(tmp_path):
    cols = tables.TABLE_COLUMNS["devices"]
    path = tmp_path / "d.csv"
    path.write_text(
        ",".join(cols) + "\nandroid,Xiaomi,2201116SG,2201116SG,Redmi Note 11 Pro 5G,smartphone,"
        "2022-03-01,11,,our check\n"
    )
    ua = CHROME_ANDROID.replace("SM-G991B", "2201116SG")
    assert one(ua)["device_name"] == ""
    frame = pd.DataFrame({"ua": [ua]})
    r = classify(frame, devices=tables.devices(override=path)).iloc[0]
    assert r["device_name"] == "Redmi Note 11 Pro 5G"
    assert r["device_release_lo"] == np.datetime64("2022-03-01", "s")


def test_lower_bounds_never_exceed_upper_bounds():
    frame = pd.DataFrame(
        {
            "ua": [
                CHROME_ANDROID,
                CHROME_REDUCED,
                SAMSUNG,
                WEBVIEW,
                IPHONE,
                IPHONE_FROZEN,
                IPHONE_CRIOS_FROZEN,
                IPAD,
                IPAD_DESKTOP,
                WIN_EDGE,
                APP_IOS,
                APP_ANDROID,
            ]
        }
    )
    out = classify(frame)
    for lo, hi in (("os_release_lo", "os_release_hi"), ("device_release_lo", "device_release_hi")):
        both = out[lo].notna() & out[hi].notna()
        assert (out.loc[both, lo] <= out.loc[both, hi]).all()
        assert not (out[lo].isna() & out[hi].notna()).any()  # an upper bound never stands alone


def test_classify_one_matches_classify():
    rec = classify_one(SAMSUNG)
    row = one(SAMSUNG)
    assert rec["device_key"] == row["device_key"] and rec["browser_version"] == row["browser_version"]
