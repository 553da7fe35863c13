"""tools/calibrate_shm's arithmetic on measurements made up from known values: the platform it writes
must state those values. Nothing is measured: the script's mpirun calls are replaced by times
computed here from o = 87 ns, a get's 120 ns at 8 B and 300 ns at 8000 B, F = 1100 ns, c0 = 30 ns, a
copy rate of 29 GB/s, 11 GB/s for puts of more than 4 MB (touching more than 8 MB), a yield of 600
ns per flush, and a ping-pong of 130 ns one way. Round 1 runs everything twice as slow: the fit must
take round 2's. The 2.8 MB put runs at the uncached rate in both rounds (a slow minute): the cache's
step must stay at 4 MB.
usage: python3 calibrate_shm_fit_test.py SOURCE_DIR"""

import importlib.util
import os
import sys
import tempfile

O, OG, OG8000, F, C0, RATE, UNCACHED, Y, ONE_WAY = 87e-9, 120e-9, 300e-9, 1100e-9, 30e-9, 29e9, 11e9, 600e-9, 130e-9


def main():
    source = sys.argv[1]
    spec = importlib.util.spec_from_file_location("calibrate_shm", os.path.join(source, "tools/calibrate_shm.py"))
    cal = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cal)
    calls = {"rounds": 0}

    def row(binary, args, runs, registered=True, launcher=None):
        text = " ".join(args) + " "
        if "--local 1:1 " in text:
            t = 2 * O + F
            calls["rounds"] += 1
        elif "1:40000:2" in text:  # 20000 copies of 8 B packed into one put of 160000 B
            t = 20000 * C0 + 160000 / RATE + 2 * O + 160000 / RATE + F
            return {"time_s": repr(t * (2 if calls["rounds"] == 1 else 1)), "copies": "20000", "transfers": "1",
                    "bytes": "160000", "case": "2", "data": "ok"}, "copies"
        elif "--get" in args and "2000,200" in text:  # 200 gets of 8000 B
            t = 200 * (OG8000 + 8000 / RATE) + F
        elif "--get" in args:  # 10000 gets of 8 B, no flush
            t = 10000 * OG + F
        elif "1:10000" in text:  # 10000 blocking puts of 8 B: a put and a flush each
            t = 20000 * O + F + (10001 * Y if launcher and "mpi_yield_when_idle 1" in launcher else 0)
        else:
            n = int(args[args.index("--local-shape") + 1]) * 8
            t = 2 * O + F + n / (RATE if n <= 4000000 and n != 2800000 else UNCACHED)
        return {"time_s": repr(t * (2 if calls["rounds"] == 1 else 1)), "data": "ok"}, "put"

    platform = []

    def run(cmd):
        if "pingpong" in cmd:
            with open(cmd[cmd.index("-o") + 1], "w") as f:
                f.write(f"min_rtt_s\n{2 * ONE_WAY!r}\n")
        else:
            platform.extend(cmd)
        return ""

    cal.coarray_row, cal.run = row, run
    with tempfile.TemporaryDirectory() as d:
        sys.argv = ["calibrate_shm", "-o", os.path.join(d, "p.xml"), "--rounds", "2"]
        cal.main()
        fit = open(os.path.join(d, "p.xml.fit.txt")).read()
    text = " ".join(platform)
    # The values, worked out by hand from the constants above (rounded as the script states them).
    want = ["--loopback-bandwidth 29.00GBps", "--memcpy 29.00GBps", "--copy-overhead 30ns",
            "--shared-cache 8800000", "--uncached-copy-bandwidth 11.00GBps", "shm/send_overhead:87ns",
            "shm/get_overhead:0:1.2e-07:2.25e-11;8000:3e-07:0", "shm/recv_overhead:43ns", "shm/sync_overhead:1100ns", "shm/yield_overhead:600ns"]
    missing = [w for w in want if w not in text]
    if calls["rounds"] != 2 or missing or "shared cache = 4 MB + 4.8 MB touched = 8800000 B" not in fit:
        print(f"calibrate_shm_fit_test: rounds {calls['rounds']}, missing {missing} in: {text}\n{fit}")
        sys.exit(1)
    print("calibrate_shm_fit_test: ok")


if __name__ == "__main__":
    main()
