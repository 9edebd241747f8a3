"""User-Agent strings as real browsers and the LMS app send them, built from a browser id (MDN
browser-compat-data), its version key, the OS version and the device's UA token.

The forms follow the browsers' published formats (Chrome's reduced UA, Safari's frozen iOS version since
Safari 26, Android WebView's `wv`); tests check that ua-parser reads each back as the intended browser,
version, OS and device. Build numbers are made up but stable per version."""

from __future__ import annotations

from .params import APP_NAME, APP_VERSION

__all__ = ["browser_ua", "app_ua", "dotted", "WEB_BROWSERS", "FROZEN_IOS"]

# Browsers the generator uses, per platform; all are MDN ids.
WEB_BROWSERS = {
    "android": ("chrome_android", "samsunginternet_android", "webview_android", "firefox_android"),
    "ios": ("safari_ios",),
    "ipados": ("safari_ios",),
    "windows": ("chrome", "edge", "firefox"),
    "macos": ("safari", "chrome", "firefox"),
}
FROZEN_IOS = "18_6"  # what Safari 26 and later report as the iOS version


def _build(major: int) -> str:
    """A Chrome-like build and patch number for a major version (monotone in the major)."""
    return f"{3538 + 51 * (major - 70)}.{(major * 37) % 190 + 10}"


def dotted(version: str, parts: int = 2) -> str:
    """An MDN version key ("17") as a browser writes it ("17.0")."""
    bits = version.split(".")
    return ".".join((bits + ["0"] * parts)[: max(parts, len(bits))])


def _android_build_id(os_major: int) -> str:
    letters = "OPQRSTUVWXYZ"[max(0, min(11, os_major - 8))]
    return f"{letters}P1A.{2 + os_major % 7}{os_major % 10}0{os_major % 9 + 1}15.0{os_major + 10}"


def browser_ua(
    browser: str,
    version: str,
    *,
    os_version: str,
    token: str = "",
    tablet: bool = False,
    reduced: bool = False,
    frozen_ios: bool = False,
    chrome_major: int | None = None,
) -> str:
    """The UA of `browser` at `version` on a device.

    os_version: Android major ("13"), iOS/iPadOS version key ("17.2"), or for desktops "windows"/"macos".
    token: the device's UA model token (Android). reduced: Chrome's reduced Android UA (`Android 10; K`).
    frozen_ios: Safari 26's frozen `iPhone OS 18_6`. chrome_major: the Chromium inside Samsung Internet."""
    mobile = "" if tablet else "Mobile "
    webkit = "AppleWebKit/537.36 (KHTML, like Gecko)"
    if browser in ("chrome_android", "webview_android", "samsunginternet_android"):
        major = int(version.split(".")[0])
        device = "Android 10; K" if reduced else f"Android {os_version}; {token}"
        if browser == "chrome_android":
            full = f"{major}.0.0.0" if reduced else f"{major}.0.{_build(major)}"
            return f"Mozilla/5.0 (Linux; {device}) {webkit} Chrome/{full} {mobile}Safari/537.36"
        if browser == "webview_android":
            bid = _android_build_id(int(os_version.split(".")[0]))
            return (
                f"Mozilla/5.0 (Linux; Android {os_version}; {token} Build/{bid}; wv) {webkit} "
                f"Version/4.0 Chrome/{major}.0.{_build(major)} {mobile}Safari/537.36"
            )
        cm = chrome_major or 100
        return (
            f"Mozilla/5.0 (Linux; {device}) {webkit} SamsungBrowser/{dotted(version)} "
            f"Chrome/{cm}.0.0.0 {mobile}Safari/537.36"
        )
    if browser == "firefox_android":
        major = int(version.split(".")[0])
        kind = "Tablet" if tablet else "Mobile"
        return f"Mozilla/5.0 (Android {os_version}; {kind}; rv:{major}.0) Gecko/{major}.0 Firefox/{major}.0"
    if browser == "safari_ios":
        os_us = FROZEN_IOS if frozen_ios else dotted(os_version).replace(".", "_")
        head = "iPad; CPU OS" if tablet else "iPhone; CPU iPhone OS"
        return (
            f"Mozilla/5.0 ({head} {os_us} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
            f"Version/{dotted(version)} Mobile/15E148 Safari/604.1"
        )
    win = "Windows NT 10.0; Win64; x64"
    mac = "Macintosh; Intel Mac OS X 10_15_7"
    host = win if os_version == "windows" else mac
    if browser == "chrome":
        return f"Mozilla/5.0 ({host}) {webkit} Chrome/{int(version)}.0.0.0 Safari/537.36"
    if browser == "edge":
        major = int(version)
        return (
            f"Mozilla/5.0 ({host}) {webkit} Chrome/{major}.0.0.0 Safari/537.36 Edg/{major}.0.{_build(major)}"
        )
    if browser == "firefox":
        major = int(version.split(".")[0])
        fx_host = (
            "Windows NT 10.0; Win64; x64" if os_version == "windows" else "Macintosh; Intel Mac OS X 10.15"
        )
        return f"Mozilla/5.0 ({fx_host}; rv:{major}.0) Gecko/20100101 Firefox/{major}.0"
    if browser == "safari":
        return (
            f"Mozilla/5.0 ({mac}) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/{dotted(version)} "
            "Safari/605.1.15"
        )
    raise ValueError(f"no UA form for browser {browser!r}")


def app_ua(
    device_id: str,
    token: str,
    os_name: str,
    os_version: str,
    name: str = APP_NAME,
    version: str = APP_VERSION,
) -> str:
    """The LMS app's key-value UA (docs/lifetime.md, "UA classification -> analyses")."""
    return f"{name}/{version} (device_id={device_id}; model={token}; os={os_name}; os_version={os_version})"
