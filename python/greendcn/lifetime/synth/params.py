"""Parameters of the synthetic access-log generator. Every value is our choice, not a measurement: the
generator exists to give the analyses a known truth, and its defaults only aim at plausible logs."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace

from ...core.errors import InputError

__all__ = ["SynthParams", "DEFAULT_PARAMS", "APP_NAME", "APP_VERSION"]

APP_NAME = "LMSApp"  # the app name classify() expects by default
APP_VERSION = "7.4.1"


# Our bound: a user writes about 2 kB of log a month at the default rates, so a million users over nine years
# already make a log of about 200 GB; larger runs are surely a typo.
MAX_USERS = 1_000_000


@dataclass(frozen=True)
class SynthParams:
    """What the generated users do. Shares are probabilities in [0, 1]; times in days unless named."""

    users: int = 500
    start: str = "2018-01"  # first month of the log (UTC)
    end: str = "2026-10"  # last month, inclusive
    # Population: each user is present for a window of these many years (uniform), placed anywhere that
    # overlaps the log; a campus's students come and go.
    stay_years_min: float = 2.0
    stay_years_max: float = 6.0
    ios_share: float = 0.45  # of phone owners, the rest Android
    switch_platform_share: float = 0.08  # a new phone on the other platform
    computer_share: float = 0.7
    tablet_share: float = 0.15
    app_share: float = 0.55  # users who install the LMS app on their phones and tablets
    app_session_share: float = 0.6  # of an app user's phone sessions, those through the app
    # Purchases: a user buys new phones (released within the past year) or second-hand ones.
    second_hand_share: float = 0.3  # users who buy second-hand
    second_hand_age_years: tuple[float, float] = (1.5, 3.5)
    # Discard age of a phone, years since its release: lognormal with this median and sigma (log space).
    discard_age_median_years: float = 3.0
    discard_age_sigma: float = 0.28
    min_keep_years: float = 0.6  # nobody replaces a phone sooner than this after buying it
    eager_share: float = 0.04  # users who buy each new phone at launch and keep it about a year
    eager_discard_years: float = 1.0
    # Switching phones: the old phone stays in use this long after the new one's first use (exponential
    # mean), or (broken phones) the new one comes after a gap; a few gaps are long enough to break rule 3.
    overlap_mean_days: float = 8.0
    gap_share: float = 0.12
    gap_max_days: float = 60.0
    long_gap_share: float = 0.03
    # Activity: sessions per month on each device while in use (Poisson means); summer is quieter.
    phone_sessions: float = 2.5
    computer_sessions: float = 1.5
    tablet_sessions: float = 0.6
    summer_factor: float = 0.4
    borrow_per_year: float = 0.03  # one session on somebody else's phone
    # Software updates: a user's lag behind each release (lognormal median days, sigma), and the share of
    # devices whose browser is never updated.
    browser_lag_median_days: float = 12.0
    browser_lag_sigma: float = 1.2
    os_lag_median_days: float = 25.0
    os_lag_sigma: float = 1.0
    frozen_browser_share: float = 0.02
    # UA reduction and freezing (docs/lifetime.md): Chrome's reduced Android UA from this major on, in this
    # share of its lines; Safari's frozen iOS version from iOS 26 on, in this share.
    reduced_from_chrome: int = 110
    reduced_share: float = 1.0
    frozen_ios_share: float = 1.0
    client_hints_share: float = 0.25  # reduced lines that also log Sec-CH-UA-Model (CSV and JSONL only)
    # Noise lines: failed logins (filtered by event/status) and malformed lines, as shares of valid lines.
    failed_share: float = 0.03
    malformed_share: float = 0.003

    def __post_init__(self) -> None:
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name.endswith("_share") and not (isinstance(v, (int, float)) and 0.0 <= v <= 1.0):
                raise InputError(f"{f.name}: must be a share in [0, 1], got {v!r}", hint="give e.g. 0.25")
        if self.users < 1:
            raise InputError(f"users: must be at least 1, got {self.users}", hint="e.g. --users 500")
        if self.users > MAX_USERS:
            raise InputError(
                f"users: {self.users:,} is more than the {MAX_USERS:,} the generator writes (about "
                f"{self.users * 2_000 / 1e9:.3g} GB of log at our rates)",
                hint="e.g. --users 5000",
            )
        for name in ("start", "end"):
            v = getattr(self, name)
            if (
                len(v) != 7
                or v[4] != "-"
                or not (v[:4].isdigit() and v[5:].isdigit())
                or not 1 <= int(v[5:]) <= 12
            ):
                raise InputError(f"{name}: expected YYYY-MM, got {v!r}", hint="e.g. --start 2018-01")
        if self.start > self.end:
            raise InputError(f"start {self.start} is after end {self.end}", hint="swap --start and --end")
        import datetime as _dt

        this_month = _dt.datetime.now(_dt.UTC).strftime("%Y-%m")
        if self.end > this_month or self.start < "1995-01":
            raise InputError(
                f"months {self.start}..{self.end}: a log covers months from 1995-01 to this month "
                f"({this_month})",
                hint="release tables know nothing later; e.g. --end 2026-10",
            )

    def with_(self, **changes) -> SynthParams:
        return replace(self, **changes)

    def as_dict(self) -> dict:
        return asdict(self)


DEFAULT_PARAMS = SynthParams()
