#!/usr/bin/env python3
"""Randomized test of chs-gen's escaping of user strings into generated C.

Each iteration builds a small problem whose summary, parameter docs, require messages, event
names and source name are random strings (the hostile pieces ??/ ??= /* */ \\ " newlines, control
bytes, UTF-8, invalid UTF-8 as bytes and as surrogate-escaped str), generates the plugin, compiles
it with -std=c99 and -std=c11 -Wall -Wextra -Werror -pedantic, loads it and checks that the
strings read back byte-identical from the loaded ops table (name, summary, params_doc); event
names and require messages compile in the same file. Strings with a NUL byte must be refused
(GenError).

usage: gen_escape_fuzz.py SOURCE_DIR SECONDS [--seed N] [--iterations N]
The plugins load against stubs of the chs and SUNDIALS functions they call (never called here:
only the ops table is read), so no chs library is needed (the fuzz build's is instrumented).
Prints 'no findings' and exits 0, or prints each finding and 'FAILED' and exits 1; 77 when
SymPy or a C compiler is missing."""
import argparse
import ctypes
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

PIECES = [b"??/", b"??=", b"??(", b"??)", b"??'", b"??<", b"??!", b"??>", b"??-", b"?", b"/*",
          b"*/", b"//", b"\\", b"\\\\", b'"', b"'", b"\n", b"\r", b"\t", b"\\\n", b"%s", b"%n",
          b"\x01", b"\x1b", b"\x7f", "é".encode(), "∂".encode(), "😀".encode(), b"\xff", b"\xc3",
          b"\xed\xa0\x80", b"0", b"7", b"\\0", b"#define", b"\"\\"]


def rand_bytes(rng, maxlen=40):
    out = b""
    while len(out) < rng.randint(0, maxlen):
        if rng.random() < 0.5:
            out += rng.choice(PIECES)
        else:
            out += bytes([rng.randint(1, 255)])
    return out


def as_user(rng, b):
    """The same bytes as chs-gen accepts them: bytes, or str (surrogate-escaped when invalid)."""
    return b if rng.random() < 0.5 else b.decode("utf-8", "surrogateescape")


# what a generated plugin calls outside libc and libm
STUBS = ["CHSParams_GetReal", "CHSParams_GetRealMin", "SUNDlsMat_densePOTRF",
         "SUNDlsMat_densePOTRS", "SUNDlsMat_denseGETRF", "SUNDlsMat_denseGETRS"]


class Ops(ctypes.Structure):
    _fields_ = [("abi_version", ctypes.c_int), ("name", ctypes.c_char_p),
                ("summary", ctypes.c_char_p), ("params_doc", ctypes.c_char_p)]


def one(gen, rng, src, stub, tmp, it, findings):
    from chs_gen import Problem, GenError, sp
    nparams = rng.choice([0, 1, 2])
    summary = rand_bytes(rng) or b"s"
    docs = [rand_bytes(rng) for _ in range(nparams)]
    msg = rand_bytes(rng) or b"m"
    events = []
    while len(events) < rng.randint(1, 3):
        e = rand_bytes(rng, 12).decode("utf-8", "replace")
        e = "".join(ch for ch in e if ch.isprintable() and ch not in '"\\,') or "e"
        if e != "all" and e not in events:
            events.append(e)
    source = rand_bytes(rng, 20).decode("utf-8", "surrogateescape")
    nul = rng.random() < 0.05
    try:
        P = Problem("fz", as_user(rng, summary + (b"\0" if nul else b"")))
        x, y = P.coordinates("x y")
        pars = [P.parameter(f"a{i}", 1, as_user(rng, d), positive=True)
                for i, d in enumerate(docs)]
        P.mass_matrix(sp.eye(2))
        P.potential(y * (pars[0] if pars else 1))
        P.constraints([(x**2 + y**2 - 1) / 2])
        P.initial_state(q0=[1, 0], p0=[0, -1])
        P.events({e: x - 0.1 * k for k, e in enumerate(events)})
        if pars:
            P.require(pars[-1] < 5, as_user(rng, msg))
        out = os.path.join(tmp, f"it{it}")
        target, _ = gen.generate(P, out, source)
    except GenError as exc:
        if not nul:
            findings.append(f"iteration {it}: refused without a NUL: {exc}")
        return
    if nul:
        findings.append(f"iteration {it}: a NUL byte in the summary was accepted")
        return
    csrc = os.path.join(out, f"{target}.c")
    so = os.path.join(out, "p.so")
    for std in ("c99", "c11"):
        cc = [os.environ.get("CC", "cc"), f"-std={std}", "-Wall", "-Wextra", "-Werror",
              "-pedantic", "-fPIC", "-shared", "-I", os.path.join(src, "src"), csrc, "-o", so,
              stub, "-lm"]
        res = subprocess.run(cc, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             errors="replace", check=False)
        if res.returncode != 0:
            findings.append(f"iteration {it}: -std={std} compile failed: {res.stdout[:2000]}")
            return
    lib = ctypes.CDLL(so)
    entry = lib.chs_problem_entry
    entry.restype = ctypes.POINTER(Ops)
    entry.argtypes = [ctypes.c_int]
    abi = None
    for line in open(os.path.join(src, "src", "chs", "problem.h")):
        w = line.split()
        if w[:2] == ["#define", "CHS_PROBLEM_ABI_VERSION"]:
            abi = int(w[2])
    ops = entry(abi).contents
    want_doc = b" ".join(f"a{i}=1".encode() + (b" (" + d + b")" if d else b"")
                         for i, d in enumerate(docs))
    for what, got, want in (("name", ops.name, b"fz"), ("summary", ops.summary, summary),
                            ("params_doc", ops.params_doc, want_doc)):
        if got != want:
            findings.append(f"iteration {it}: {what} {got!r} != {want!r}")
    # event names: the literals in the source (compiled above)
    with open(csrc, encoding="utf-8") as f:
        text = f.read()
    for e in events:
        lit = gen._c_string(e)
        if lit not in text:
            findings.append(f"iteration {it}: event {e!r} not emitted as {lit}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("seconds", type=float)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=0, help="stop after N (0: time only)")
    a = ap.parse_args()
    try:
        import sympy  # noqa: F401
    except ImportError:
        print("SKIP: SymPy is not installed")
        return 77
    if not shutil.which(os.environ.get("CC", "cc")):
        print("SKIP: no C compiler")
        return 77
    sys.path.insert(0, os.path.join(a.src, "tools", "chs-gen"))
    import chs_gen as gen
    tmpdir = tempfile.TemporaryDirectory()
    stub = os.path.join(tmpdir.name, "libgenstub.so")
    with open(stub + ".c", "w", encoding="ascii") as f:
        for name in STUBS:
            f.write(f"int {name}(void);\nint {name}(void) {{ return -1; }}\n")
    if subprocess.run([os.environ.get("CC", "cc"), "-shared", "-fPIC", stub + ".c", "-o", stub],
                      check=False).returncode != 0:
        print("gen_escape_fuzz: cannot build the stubs: FAILED")
        return 1
    ctypes.CDLL(stub, mode=ctypes.RTLD_GLOBAL)
    libs = [stub]
    rng = random.Random(a.seed)
    findings = []
    start = time.monotonic()
    it = 0
    with tempfile.TemporaryDirectory() as tmp:
        while time.monotonic() - start < a.seconds and (not a.iterations or it < a.iterations):
            try:
                one(gen, rng, a.src, libs[0], tmp, it, findings)
            except Exception as exc:  # noqa: BLE001 -- any crash of chs-gen is a finding
                findings.append(f"iteration {it}: {type(exc).__name__}: {exc}")
            it += 1
            if findings:
                break
    for f in findings:
        print(f)
    if findings:
        print(f"gen_escape_fuzz: seed {a.seed}, {it} iterations: FAILED")
        return 1
    print(f"gen_escape_fuzz: seed {a.seed}, {it} iterations: no findings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
