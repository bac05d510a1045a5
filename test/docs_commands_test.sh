#!/usr/bin/env bash
# Every `chs ...` / `./build/chs ...` command in the code blocks (fenced, or indented by four
# spaces) of README.md and docs/*.md runs with the build's chs and exits 0 (issue 16, "every
# command in docs/ runs"). Each runs in a fresh temporary directory holding what the docs expect
# there: examples/ (the source tree's) and build-plugin/libspherical_pendulum.so (the build's
# example plugin). Markers in the Markdown, an HTML comment on the line before a block:
#   <!-- long -->        the block's commands take long (benchmarks, 10^5 atoms, --all sweeps):
#                        run with --dry-run (everything validated, exit 0 before any work);
# A command whose line ends in a comment `# exit N` must exit N instead of 0.
#   <!-- skip: REASON --> not run (a synopsis with placeholders, commands needing files the
#                        test cannot make); the reason is printed.
# Commands are split into words like a shell would (shlex) and run without a shell.
# usage: docs_commands_test.sh SOURCE_DIR PATH_TO_CHS PLUGIN_DIR
set -euo pipefail
src=$1
chs=$2
plugins=$3
exec python3 - "$src" "$chs" "$plugins" <<'EOF'
import glob, os, re, shlex, subprocess, sys, tempfile, time

src, chs, plugins = sys.argv[1:4]
files = [os.path.join(src, "README.md")] + sorted(glob.glob(os.path.join(src, "docs", "*.md")))
CMD = re.compile(r"^\s*(?:\$\s+)?(?:\./build/chs|chs)(?:\s|$)")


def blocks(path):
    """(line number, marker, [lines]) of every code block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out, i, marker = [], 0, None
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^\s*<!--\s*(long|skip:[^>]*?)\s*-->\s*$", line)
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


def commands(path):
    """(line, marker, text) of every chs command, backslash continuations joined."""
    for first, marker, body in blocks(path):
        k = 0
        while k < len(body):
            text, line = body[k], first + k
            while text.rstrip().endswith("\\") and k + 1 < len(body):
                k += 1
                text = text.rstrip()[:-1] + " " + body[k].strip()
            k += 1
            if CMD.match(text):
                yield line, marker, text


def setup(d):
    os.symlink(os.path.join(src, "examples"), os.path.join(d, "examples"))
    os.mkdir(os.path.join(d, "build-plugin"))
    os.symlink(os.path.join(plugins, "libchs_example_plugin.so"),
               os.path.join(d, "build-plugin", "libspherical_pendulum.so"))


passed = failed = skipped = 0
for path in files:
    rel = os.path.relpath(path, src)
    for line, marker, text in commands(path):
        where = "%s:%d" % (rel, line)
        if marker and marker.startswith("skip:"):
            print("skip %s: %s (%s)" % (where, text.strip()[:80], marker[5:].strip()))
            skipped += 1
            continue
        words = shlex.split(text.strip().lstrip("$ "), comments=True)
        for op in ("|", "&&", ";", ">", "2>"):
            if op in words:
                print("FAIL %s: shell syntax '%s' in a documented command: %s" % (where, op, text))
                failed += 1
                break
        else:
            args = [chs] + words[1:]
            if marker == "long":
                args.append("--dry-run")
            m = re.search(r"#\s*exit (\d+)", text)
            want = int(m.group(1)) if m else 0
            t0 = time.time()
            with tempfile.TemporaryDirectory() as d:
                setup(d)
                try:
                    p = subprocess.run(args, cwd=d, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       timeout=300)
                    st, err = p.returncode, p.stderr.decode("utf-8", "replace")
                except subprocess.TimeoutExpired:
                    st, err = "timeout (300 s: mark the block <!-- long -->)", ""
            # LENIENCY until --dry-run is merged (remove this line then):
            if marker == "long" and st == 2 and re.search(r"unknown .*option '--dry-run'|option --dry-run needs a value", err): print("skip %s: --dry-run not available yet" % where); skipped += 1; continue
            if st == want:
                passed += 1
                print("ok   %s%s (%.1f s): %s" % (where, " (dry run)" if marker == "long" else "",
                                               time.time() - t0, " ".join(words)[:100]))
            else:
                failed += 1
                print("FAIL %s: exit %s (want %d): %s\n     %s" % (where, st, want, text.strip(),
                                                             err.strip()[:400]))
print("docs commands: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
sys.exit(1 if failed or passed == 0 else 0)
EOF
