"""Readable numbers and log axes for collsim's plotting tools (tools/report, tools/plot_compare).

The CSV and JSON files keep full precision (1.9999999999999998e-05); people read "20 us". Times,
sizes and rates get a unit and four significant digits at most. Log axes get labelled ticks at any
range (1-2-5 steps inside a decade or two, whole decades, or every k-th decade over many), and can
show 0, which a log scale has no place for: a zero is drawn at a stand-in position below the
smallest positive value, labelled "0", and set apart from the scale by a dotted line.
"""

import math

MAX_TICKS = 8
# How far below the smallest positive value a 0 is drawn: a decade of time, two octaves of size.
ZERO_TIME_BELOW = 10
ZERO_SIZE_BELOW = 4


def size_label(n):
    """Bytes as collsim writes sizes: 8B, 4KiB, 1MiB (whole units only), else the byte count."""
    n = int(n)
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{unit}"
    return f"{n}B"


def number_label(x):
    """A number in at most four significant digits, no exponent between 1e-3 and 1e6."""
    if x == 0:
        return "0"
    text = f"{x:.4g}"
    if "e" in text and 1e-3 <= abs(x) < 1e6:
        text = f"{x:.6f}".rstrip("0").rstrip(".")
    return text


def time_label(s):
    """Seconds in the unit that reads best: 20 us, 1.5 ms, 3 s; "" for a missing value."""
    if s is None or (isinstance(s, float) and math.isnan(s)):
        return ""
    if s == 0:
        return "0 s"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if abs(s) >= scale * 0.99995:  # what rounds to 1 of a unit is shown in it (1 us, not 1000 ns)
            return f"{number_label(s / scale)} {unit}"
    return f"{number_label(s / 1e-9)} ns"


def rate_label(bytes_per_s):
    """Bytes per second in decimal units, as network rates are given: 1.25 GB/s."""
    for unit, scale in (("GB/s", 1e9), ("MB/s", 1e6), ("kB/s", 1e3)):
        if abs(bytes_per_s) >= scale:
            return f"{number_label(bytes_per_s / scale)} {unit}"
    return f"{number_label(bytes_per_s)} B/s"


def per_byte_label(s_per_byte):
    """A cost per byte (Hockney's beta, LogGP's G), with the rate it amounts to: 0.8 ns/B (1.25 GB/s)."""
    if s_per_byte == 0:
        return "0 s/B"
    return f"{time_label(s_per_byte)}/B ({rate_label(1 / s_per_byte)})"


def log_ticks(lo, hi):
    """Tick values in [lo, hi] (0 < lo < hi) for a log axis, at least two where the range allows
    and at most about MAX_TICKS: decades when the range holds three or more (every k-th when it
    holds too many), else 1-2-5 steps, else 1..9 steps per decade, else round numbers across it."""
    k0, k1 = math.floor(math.log10(lo)), math.ceil(math.log10(hi))

    def inside(mantissas):
        return [m * 10.0 ** k for k in range(k0, k1 + 1) for m in mantissas if lo <= m * 10.0 ** k <= hi]

    decades = inside((1,))
    if len(decades) >= 3:
        return decades[::math.ceil(len(decades) / MAX_TICKS)]
    for mantissas in ((1, 2, 5), (1, 2, 3, 4, 5, 6, 7, 8, 9)):
        ticks = inside(mantissas)
        if len(ticks) >= 2:
            return ticks
    # Less than one step of 1..9 in range: round numbers spread across it.
    from matplotlib.ticker import MaxNLocator
    return [t for t in MaxNLocator(4).tick_values(lo, hi) if lo <= t <= hi]


def zero_stand_in(values, below):
    """Where 0 is drawn on a log axis whose values are `values`: `below` times under the smallest
    positive one (1 when there is none); None when no value is 0."""
    if not any(v == 0 for v in values):
        return None
    positive = [v for v in values if v > 0]
    return min(positive) / below if positive else 1.0


def placed(value, zero):
    """Where `value` is drawn: itself, or the stand-in `zero` when it is 0."""
    return zero if value == 0 else value


def time_axis(ax, times):
    """Puts the y axis of `times` (what the figure draws, 0s at zero_stand_in(times,
    ZERO_TIME_BELOW)) on a log scale with readable ticks, and "0 s" at the stand-in if any is 0."""
    from matplotlib.ticker import NullFormatter
    zero = zero_stand_in(times, ZERO_TIME_BELOW)
    ax.set_yscale("log")
    lo, hi = ax.get_ylim()
    gap = None if zero is None else zero * math.sqrt(ZERO_TIME_BELOW)  # between 0 and the scale
    positive = any(t > 0 for t in times)
    ticks = log_ticks(max(lo, gap or lo), hi) if positive and max(lo, gap or lo) < hi else []
    labels = [time_label(t) for t in ticks]
    if zero is not None:
        ticks, labels = [zero] + ticks, ["0 s"] + labels
        if positive:
            ax.axhline(gap, color="grey", linestyle=":", linewidth=0.8)
    ax.set_yticks(ticks)
    ax.set_yticklabels(labels)
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_ylim(lo, hi)


def size_axis(ax, sizes):
    """Puts the x axis of message `sizes` (0s at zero_stand_in(sizes, ZERO_SIZE_BELOW)) on a log
    scale labelled at the sizes measured (every k-th when there are more than about MAX_TICKS + 4),
    and "0B" at the stand-in if any is 0."""
    from matplotlib.ticker import NullFormatter
    zero = zero_stand_in(sizes, ZERO_SIZE_BELOW)
    ax.set_xscale("log", base=2)
    positive = sorted({s for s in sizes if s > 0})
    step = max(1, math.ceil(len(positive) / (MAX_TICKS + 4)))
    ticks = positive[::step]
    labels = [size_label(s) for s in ticks]
    if zero is not None:
        ticks, labels = [zero] + ticks, ["0B"] + labels
        if positive:
            ax.axvline(zero * math.sqrt(ZERO_SIZE_BELOW), color="grey", linestyle=":", linewidth=0.8)
    ax.set_xticks(ticks)
    ax.set_xticklabels(labels, rotation=30 if len(ticks) > 6 else 0)
    ax.xaxis.set_minor_formatter(NullFormatter())
