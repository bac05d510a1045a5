#!/usr/bin/env bash
# Every `chs ...` / `./build/chs ...` command in the code blocks (fenced, or indented by four
# spaces) of README.md and docs/*.md runs with the build's chs and exits 0. The commands of a
# block run in order in a fresh temporary directory holding what the docs expect there:
# examples/ (the source tree's) and build-plugin/libspherical_pendulum.so (the build's example
# plugin). A command whose line ends in
# a comment `# exit N` must exit N instead. Markers in the Markdown, an HTML comment on the line
# before a block:
#   <!-- long -->          the block's commands take long (benchmarks, 10^5 atoms, --all sweeps):
#                          run with --dry-run (everything validated, exit 0 before any work);
#   <!-- needs: chs-gen --> the block's `chs-gen ...` lines run first (the source tree's
#                          tools/chs-gen/chs-gen against the build installed in a temporary
#                          prefix); skipped without python3 + SymPy, cmake or a C compiler;
#   <!-- skip: REASON -->  not run (a synopsis with placeholders); the reason is printed.
# Commands are split into words like a shell would (shlex) and run without a shell.
# This test checks exit status only; the numbers quoted from the commands' output are checked by
# tools/docs-numbers (ctest docs_numbers; its markers are HTML comments this test ignores).
# usage: docs_commands_test.sh SOURCE_DIR PATH_TO_CHS PLUGIN_DIR BUILD_DIR
set -euo pipefail
src=$1
chs=$2
plugins=$3
build=$4
exec python3 - "$src" "$chs" "$plugins" "$build" <<'PYTHON'
import glob, os, re, shlex, shutil, subprocess, sys, tempfile, time

src, chs, plugins, build = sys.argv[1:5]
files = [os.path.join(src, "README.md")] + sorted(glob.glob(os.path.join(src, "docs", "*.md")))
CMD = re.compile(r"^\s*(?:\$\s+)?(?:\./build/chs|chs)(?:\s|$)")
GEN = re.compile(r"^\s*(?:\$\s+)?chs-gen(?:\s|$)")
MARK = re.compile(r"^\s*<!--\s*(long|needs:\s*chs-gen|skip:[^>]*?)\s*-->\s*$")


def blocks(path):
    """(line number, marker, [lines]) of every code block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out, i, marker = [], 0, None
    while i < len(lines):
        line = lines[i]
        m = MARK.match(line)
        if m:
            marker = m.group(1)
            i += 1
            continue
        if re.match(r"^\s*```", line):
            start, body = i + 1, []
            i += 1
            while i < len(lines) and not re.match(r"^\s*```", lines[i]):
                body.append(lines[i])
                i += 1
            out.append((start + 1, marker, body))
            marker = None
            i += 1
            continue
        if line.startswith("    ") and line.strip() and (i == 0 or not lines[i - 1].strip()):
            start, body = i, []
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                body.append(lines[i][4:])
                i += 1
            out.append((start + 1, marker, body))
            marker = None
            continue
        if line.strip():
            marker = None  # a marker applies to the block right after it
        i += 1
    return out


def commands(body, first):
    """(line, kind, text): kind 'chs' or 'gen', backslash continuations joined."""
    k = 0
    while k < len(body):
        text, line = body[k], first + k
        while text.rstrip().endswith("\\") and k + 1 < len(body):
            k += 1
            text = text.rstrip()[:-1] + " " + body[k].strip()
        k += 1
        if CMD.match(text):
            yield line, "chs", text
        elif GEN.match(text):
            yield line, "gen", text


def setup(d):
    os.symlink(os.path.join(src, "examples"), os.path.join(d, "examples"))
    os.mkdir(os.path.join(d, "build-plugin"))
    os.symlink(os.path.join(plugins, "libchs_example_plugin.so"),
               os.path.join(d, "build-plugin", "libspherical_pendulum.so"))


prefix = None  # the build installed for chs-gen (once; "" when chs-gen cannot run)


def gen_prefix(top):
    global prefix
    if prefix is None:
        prefix = ""
        ok = shutil.which("cmake") and shutil.which(os.environ.get("CC", "cc"))
        ok = ok and subprocess.run([sys.executable, "-c", "import sympy"],
                                   stderr=subprocess.DEVNULL).returncode == 0
        if ok:
            p = os.path.join(top, "prefix")
            r = subprocess.run(["cmake", "--install", build, "--prefix", p],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if r.returncode == 0:
                prefix = p
            else:
                print("FAIL: cmake --install for chs-gen: %s" % r.stderr.decode()[:300])
    return prefix


def run(args, d, timeout):
    try:
        p = subprocess.run(args, cwd=d, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout)
        return p.returncode, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return "timeout (%d s: mark the block <!-- long -->)" % timeout, ""


passed = failed = skipped = 0
top = tempfile.mkdtemp()
for path in files:
    rel = os.path.relpath(path, src)
    for first, marker, body in blocks(path):
        gen = marker is not None and marker.startswith("needs:")
        cmds = [c for c in commands(body, first) if c[1] == "chs" or gen]
        if not any(kind == "chs" for _, kind, _ in cmds):
            continue
        why = None
        if marker and marker.startswith("skip:"):
            why = marker[5:].strip()
        elif gen and not gen_prefix(top):
            why = "chs-gen needs python3 with SymPy, cmake and a C compiler"
        if why:
            for line, kind, text in cmds:
                print("skip %s:%d: %s (%s)" % (rel, line, text.strip()[:80], why))
                skipped += 1
            continue
        d = tempfile.mkdtemp(dir=top)
        setup(d)
        for line, kind, text in cmds:
            where = "%s:%d" % (rel, line)
            words = shlex.split(text.strip().lstrip("$ "), comments=True)
            bad = [op for op in ("|", "&&", ";", ">", "2>") if op in words]
            if bad:
                print("FAIL %s: shell syntax '%s' in a documented command: %s" % (where, bad[0], text))
                failed += 1
                continue
            if kind == "gen":
                args = [os.path.join(src, "tools", "chs-gen", "chs-gen")] + words[1:]
                args += ["--chs-prefix", prefix]
            else:
                args = [chs] + words[1:]
            if marker == "long":
                args.append("--dry-run")
            m = re.search(r"#\s*exit (\d+)", text)
            want = int(m.group(1)) if m else 0
            t0 = time.time()
            st, err = run(args, d, 600 if kind == "gen" else 300)
            if st == want:
                passed += 1
                print("ok   %s%s (%.1f s): %s" % (where, " (dry run)" if marker == "long" else "",
                                               time.time() - t0, " ".join(words)[:100]))
            else:
                failed += 1
                print("FAIL %s: exit %s (want %d): %s\n     %s" % (where, st, want, text.strip(),
                                                             err.strip()[:400]))
shutil.rmtree(top, ignore_errors=True)
print("docs commands: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
sys.exit(1 if failed or passed == 0 else 0)
PYTHON
