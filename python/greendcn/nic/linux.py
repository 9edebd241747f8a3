"""Nearest Linux equivalents of a receive setting: interrupt coalescing (`ethtool -C`) and busy-poll sysctls.

Seed 002 measured PF_RING 5.4.6 receive modes (line 73), not Linux coalescing. The mapping below is ours:
a timer period becomes rx-usecs, a packet watermark becomes rx-frames (with the wake-up timeout as rx-usecs),
per-packet interrupts become rx-usecs 0 / rx-frames 1, and the NAPI budget becomes net.core.dev_weight.
"""

from __future__ import annotations

from .params import DEFAULT_HOST, Host, Setting

__all__ = ["CAVEAT", "linux_commands"]

CAVEAT = (
    "These commands translate Nurika 2017's PF_RING receive settings into Linux interrupt coalescing and "
    "busy-poll sysctls; they are the nearest equivalents, not what Nurika 2017 measured."
)

# Many drivers cap rx-usecs (e.g. at 8191 us on Intel's); longer periods cannot be expressed.
_RX_USECS_MAX = 8191


def linux_commands(
    setting: Setting, iface: str = "IFACE", packet_bytes: int = 1500, host: Host = DEFAULT_HOST
) -> list[str]:
    """Shell lines that approximate `setting` on interface `iface`; comments (#) flag approximations."""
    base = f"ethtool -C {iface} adaptive-rx off"
    if setting.mode == "interrupt":
        return [
            f"{base} rx-usecs 0 rx-frames 1",
            (
                "# or spin instead of sleeping (PF_RING's own active wait): "
                "sysctl -w net.core.busy_poll=50 net.core.busy_read=50"
            ),
        ]
    if setting.mode == "timer":
        us = round(setting.value * 1e6)
        lines = [f"{base} rx-usecs {min(us, _RX_USECS_MAX)} rx-frames 0"]
        if us > _RX_USECS_MAX:
            lines.append(f"# {us} us exceeds the usual rx-usecs limit of {_RX_USECS_MAX} us; capped")
        return lines
    if setting.mode == "watermark":
        frames = int(setting.param(packet_bytes))
        us = min(round(host.wake_timeout_s * 1e6), _RX_USECS_MAX)
        lines = [f"{base} rx-frames {frames} rx-usecs {us}"]
        if setting.unit == "B":
            lines.append(f"# watermark of {setting.value:.0f} B = {frames} packets of {packet_bytes} B")
        return lines
    return [
        f"{base} rx-usecs 0 rx-frames 1",
        f"sysctl -w net.core.dev_weight={int(setting.param(packet_bytes))}",
    ]
