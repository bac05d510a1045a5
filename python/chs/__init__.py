"""chs from Python: run a constrained Hamiltonian system and get numpy arrays back.

    import chs
    r = chs.run(problem="andrews", formulation="dirac", method="cvode:bdf", tf=0.03,
                rtol=1e-10, atol=1e-10)
    r.t, r.q, r.p, r.v, r.energy_err, r.summary["steps"], r.names["q"]

    pend = chs.Problem.from_sympy("examples/symbolic/pendulum.py")
    r = chs.run(problem=pend, formulation="dirac", method="erk:dp5", tf=10, rtol=1e-10,
                atol=1e-10)

A thin layer over libchs (ctypes; docs/python.md): the problem, formulation and method specs,
the checks and the messages are chs' own, and a failure raises chs.Error with chs' message.
"""
import ctypes
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

from . import _config
from ._lib import CHSError, Error, _dblp, check, lib, library_path, text

__all__ = ["run", "Problem", "Result", "Error", "fields", "library_path"]

_PROJECT = {None: 0, "none": 0, "momentum": 1, "position": 2, "both": 3}
# chs/run.h: CHS_SUBNORMALS_FLUSH / _KEEP, CHS_RUN_CHECK_AUTO / _OFF / _ON
_SUBNORMALS = {"flush": 0, "keep": 1}
_CHECK = {"auto": 0, "off": 1, "on": 2}


def fields():
    """The names of the quantities a run can collect (chs.run's ``output``)."""
    out, i = [], 0
    while True:
        name = lib().CHSCollector_FieldName(i)
        if name is None:
            return out
        out.append(name.decode())
        i += 1


class Problem:
    """A chs problem: a built-in spec ("pendulum", "pendulum-chain:N=20") or a plugin's path
    ("./libmy.so:param=1"). Created when a run needs it; the spec is checked by chs then."""

    def __init__(self, spec):
        if not isinstance(spec, str) or not spec:
            raise Error("bad problem %r: a spec string such as 'pendulum' or a plugin path"
                        % (spec,))
        self.spec = spec

    def __repr__(self):
        return "chs.Problem(%r)" % self.spec

    def with_params(self, params):
        """The same problem with parameters, e.g. ``with_params("length=2,mass=3")``."""
        return Problem(self.spec + ":" + params)

    @classmethod
    def from_sympy(cls, path_or_description, outdir=None, chs_prefix=None, params=None,
                   chs_gen=None):
        """Generate a plugin with chs-gen from a SymPy description (a file's path, or the
        description's Python text), build it (cmake and a C compiler) and return its Problem.

        outdir: where the generated sources and plugin go (default: a new temporary
        directory, kept for the plugin's lifetime); chs_prefix: where chs is installed, for a
        chs-gen that is not the installed one (chs-gen --chs-prefix); chs_gen: the chs-gen
        program (default: $CHS_GEN, else the one installed with this package)."""
        gen = chs_gen or os.environ.get("CHS_GEN") or _config.CHS_GEN
        if not gen or not os.path.exists(gen):
            raise Error("chs-gen not found (%r): install chs, or set CHS_GEN to "
                        "tools/chs-gen/chs-gen" % (gen,), code=-2, name="CHS_ERR_NOTFOUND")
        if outdir is None:
            outdir = tempfile.mkdtemp(prefix="chs-gen-")
        desc = path_or_description
        if not os.path.isfile(desc):
            if "\n" not in desc and desc.endswith(".py"):
                raise Error("description '%s' not found" % desc, code=-2,
                            name="CHS_ERR_NOTFOUND")
            path = os.path.join(outdir, "description.py")
            os.makedirs(outdir, exist_ok=True)
            with open(path, "w") as f:
                f.write(desc)
            desc = path
        cmd = [sys.executable, gen, desc, "-o", outdir, "--build"]
        if chs_prefix:
            cmd += ["--chs-prefix", chs_prefix]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines = p.stdout.strip().splitlines()
        if p.returncode != 0 or not lines or not os.path.isfile(lines[-1]):
            msg = (p.stderr.strip() or p.stdout.strip()).splitlines()
            hint = ""
            if "cmake failed" in p.stderr and not chs_prefix:
                hint = (" (chs-gen builds against an installed chs: install it, or give "
                        "chs_prefix=, the prefix chs is installed in)")
            raise Error("chs-gen %s failed (exit %d): %s%s" % (desc, p.returncode,
                                                              msg[-1] if msg else "no output",
                                                              hint),
                        code=-4, name="CHS_ERR_PLUGIN")
        prob = cls(lines[-1] + (":" + params if params else ""))
        prob.plugin = lines[-1]
        return prob


class Result:
    """What chs.run returns.

    t (records,), q, p, v (records, n), energy, energy_err, pos_res, mom_res (records,),
    int_err (records,) for problems with a reference solution, invariants (records, k) for
    problems that declare some, lambda_ (records, m: the multipliers; also getattr(r, "lambda"))
    and reaction (records, n: the constraint forces -G^T lambda): numpy arrays, one row per
    record (None when not collected).
    names: the column names of each array ("q": the problem's coordinate names, else q1..qn).
    summary: steps, rhs_evals, jac_evals, err_test_fails, proj_position, proj_momentum,
    records, t_final, wall_s, completed. warnings: chs' warnings about the run (a list of str).
    """

    def __init__(self):
        self.names = {}
        self.summary = {}
        self.warnings = []
        for f in fields():
            setattr(self, f, None)
        self.lambda_ = None  # `lambda` is a Python keyword: r.lambda_ is getattr(r, "lambda")

    def __repr__(self):
        return "<chs.Result: %d records, t_final=%g, %d steps>" % (
            self.summary.get("records", 0), self.summary.get("t_final", 0),
            self.summary.get("steps", 0))


def _number(name, x, kind=float):
    try:
        return kind(x)
    except (TypeError, ValueError):
        raise Error("bad value for %s: %r (a number)" % (name, x)) from None


def _set(fn, opt, *args):
    err = CHSError()
    check(fn(opt, *args, ctypes.byref(err)), err)


def run(problem, formulation="auto", method="auto", tf=None, rtol=None, atol=None,
        h=None, t0=0.0, every=1, project=None, project_tol=0.0, max_steps=0, stop_at=None,
        output=None, estimate_error=False, project_every=0, project_newton_tol=0.0,
        subnormals="flush", derivative_check="auto", strict=False, fix=None):
    """Integrate ``problem`` (a spec string or a chs.Problem) from t0 to tf with ``formulation``
    and ``method`` (`chs list formulations`, `chs list methods`; "auto", the default, lets chs
    choose them as `chs run` does, docs/auto.md), adaptively with rtol and atol
    or with a fixed step h, recording every ``every`` steps; project: None, "momentum",
    "position" or "both" (with project_tol); stop_at: event names; output: the list of fields
    to collect (default: all the problem has; chs.fields() names them); estimate_error: estimate
    the final global error from a companion run at tol/100 (summary["error_estimate"]);
    project_every, project_newton_tol and subnormals ("flush" or "keep") as the `chs run` options
    of those names; derivative_check ("auto": problems from plugins, "off" or "on") the derivative
    probe before the run, strict: a failed probe raises; fix: the components held while the
    initial state is made consistent ("q:x1=0.8,v:y2", `chs run --fix`). Returns a chs.Result.
    Bad input and failed runs raise chs.Error with chs' message."""
    l = lib()
    spec = problem.spec if isinstance(problem, Problem) else problem
    if not isinstance(spec, str) or not spec:
        raise Error("bad problem %r: a spec string such as 'pendulum' or a chs.Problem"
                    % (problem,))
    if tf is None:
        raise Error("missing tf (the final time)")
    if subnormals not in _SUBNORMALS:
        raise Error("bad value for subnormals: %r ('flush' or 'keep')" % (subnormals,))
    if derivative_check not in _CHECK:
        raise Error("bad value for derivative_check: %r ('auto', 'off' or 'on')"
                    % (derivative_check,))
    if project not in _PROJECT:
        raise Error("bad value for project: %r (None, 'momentum', 'position' or 'both')"
                    % (project,))
    if output is not None:
        if isinstance(output, str):
            output = [output]
        output = ",".join(output)
    err = CHSError()
    handles = {"prob": ctypes.c_void_p(), "opt": ctypes.c_void_p(), "sum": ctypes.c_void_p(),
               "col": ctypes.c_void_p()}
    try:
        check(l.CHSProblem_Create(text(spec), ctypes.byref(handles["prob"]), ctypes.byref(err)),
              err)
        prob = handles["prob"]
        if fix is not None:
            check(l.CHSProblem_Fix(prob, text(fix), ctypes.byref(err)), err)
        handles["opt"] = ctypes.c_void_p(l.CHSRunOptions_Create())
        handles["sum"] = ctypes.c_void_p(l.CHSRunSummary_Create())
        opt = handles["opt"]
        if not opt or not handles["sum"]:
            raise Error("out of memory", code=-20, name="CHS_ERR_MEM", input_error=False)
        _set(l.CHSRunOptions_SetMethod, opt, text(method))
        _set(l.CHSRunOptions_SetTimes, opt, _number("t0", t0), _number("tf", tf))
        if h is None and (rtol is None or atol is None):
            raise Error("need h, or both rtol and atol")
        if rtol is not None or atol is not None:  # with h: the implicit methods' Newton tolerances
            if rtol is None or atol is None:
                raise Error("need both rtol and atol")
            _set(l.CHSRunOptions_SetTolerances, opt, _number("rtol", rtol),
                 _number("atol", atol))
        if h is not None:
            _set(l.CHSRunOptions_SetFixedStep, opt, _number("h", h))
        _set(l.CHSRunOptions_SetEvery, opt, _number("every", every, int))
        _set(l.CHSRunOptions_SetProjection, opt, _PROJECT[project],
             _number("project_tol", project_tol))
        _set(l.CHSRunOptions_SetMaxSteps, opt, _number("max_steps", max_steps, int))
        _set(l.CHSRunOptions_SetEstimateError, opt, 1 if estimate_error else 0)
        _set(l.CHSRunOptions_SetProjectionEvery, opt, _number("project_every", project_every, int))
        _set(l.CHSRunOptions_SetProjectionNewtonTol, opt,
             _number("project_newton_tol", project_newton_tol))
        _set(l.CHSRunOptions_SetSubnormals, opt, _SUBNORMALS[subnormals])
        _set(l.CHSRunOptions_SetCheck, opt, _CHECK[derivative_check])
        _set(l.CHSRunOptions_SetStrict, opt, 1 if strict else 0)
        if stop_at is not None:
            if not isinstance(stop_at, str):
                stop_at = ",".join(stop_at)
            _set(l.CHSRunOptions_SetStopAt, opt, text(stop_at))
        # the multipliers and reaction forces are computed at the records that collect them
        # (all of them by default, unless the problem's kinetic energy is scaled: then none)
        if output is None:
            output = "all"
        wants = any(k in output.split(",") for k in ("lambda", "reaction")) or (
            output == "all" and not l.CHSProblem_HasKineticScale(prob))
        _set(l.CHSRunOptions_SetMultipliers, opt, 1 if wants else 0)
        check(l.CHSCollector_Create(prob, text(output),
                                    ctypes.byref(handles["col"]), ctypes.byref(err)), err)
        col = handles["col"]
        monitor = ctypes.cast(l.CHSCollector_Monitor, ctypes.c_void_p)
        check(l.CHSRunProblem(prob, text(formulation), opt, monitor, col, handles["sum"],
                              ctypes.byref(err)), err)
        return _result(l, col, handles["sum"])
    finally:
        l.CHSCollector_Destroy(ctypes.byref(handles["col"]))
        l.CHSRunSummary_Destroy(ctypes.byref(handles["sum"]))
        l.CHSRunOptions_Destroy(ctypes.byref(handles["opt"]))
        l.CHSProblem_Destroy(ctypes.byref(handles["prob"]))


def _result(l, col, sump):
    r = Result()
    rows = l.CHSCollector_GetNumRecords(col)
    err = CHSError()
    for name in fields():
        data, cols = _dblp(), ctypes.c_long()
        if l.CHSCollector_GetField(col, text(name), ctypes.byref(data), ctypes.byref(cols),
                                   ctypes.byref(err)) != 0:
            continue
        c = cols.value
        if rows == 0:
            a = np.empty((0, c))
        else:
            a = np.ctypeslib.as_array(data, shape=(rows, c)).copy()
        r.names[name] = [l.CHSCollector_GetColumnName(col, text(name), j).decode()
                         for j in range(c)]
        # a one-column field names its column by itself (t, energy_err, ...): a 1-d array;
        # per-coordinate, per-constraint and per-invariant fields stay 2-d even with one column
        if r.names[name] == [name]:
            setattr(r, name, a[:, 0])
        else:
            setattr(r, name, a)
        if name == "lambda":
            r.lambda_ = a
    s = r.summary
    s["steps"] = l.CHSRunSummary_GetNumSteps(sump)
    s["rhs_evals"] = l.CHSRunSummary_GetNumRhsEvals(sump)
    s["jac_evals"] = l.CHSRunSummary_GetNumJacEvals(sump)
    s["err_test_fails"] = l.CHSRunSummary_GetNumErrTestFails(sump)
    s["proj_position"] = l.CHSRunSummary_GetNumPositionProjections(sump)
    s["proj_momentum"] = l.CHSRunSummary_GetNumMomentumProjections(sump)
    s["records"] = l.CHSRunSummary_GetNumRecords(sump)
    s["t_final"] = l.CHSRunSummary_GetFinalTime(sump)
    s["wall_s"] = l.CHSRunSummary_GetWallTime(sump)
    s["completed"] = bool(l.CHSRunSummary_GetCompleted(sump))
    s["formulation"] = l.CHSRunSummary_GetFormulation(sump).decode()
    s["method"] = l.CHSRunSummary_GetMethod(sump).decode()
    s["choice"] = l.CHSRunSummary_GetChoice(sump).decode()
    est = l.CHSRunSummary_GetErrorEstimate(sump)
    s["error_estimate"] = None if math.isnan(est) else est
    for i in range(l.CHSRunSummary_GetNumWarnings(sump)):
        w = l.CHSRunSummary_GetWarning(sump, i)
        if w is not None:
            r.warnings.append(w.decode("utf-8", "replace"))
    return r


def reference(problem, t):
    """The problem's reference solution (q, p) at t, as numpy arrays; chs.Error when the
    problem has none."""
    l = lib()
    spec = problem.spec if isinstance(problem, Problem) else problem
    err = CHSError()
    prob = ctypes.c_void_p()
    check(l.CHSProblem_Create(text(spec), ctypes.byref(prob), ctypes.byref(err)), err)
    try:
        n = 0
        col = ctypes.c_void_p()
        check(l.CHSCollector_Create(prob, b"q", ctypes.byref(col), ctypes.byref(err)), err)
        # n from the collector's column count (no struct read)
        while l.CHSCollector_GetColumnName(col, b"q", n) is not None:
            n += 1
        l.CHSCollector_Destroy(ctypes.byref(col))
        q = np.zeros(n)
        p = np.zeros(n)
        rc = l.CHSProblem_Reference(prob, _number("t", t), q.ctypes.data_as(_dblp),
                                    p.ctypes.data_as(_dblp))
        if rc != 0:
            raise Error("problem '%s' has no reference solution at t = %g" % (spec, t),
                        code=-5, name="CHS_ERR_UNSUPPORTED")
        return q, p
    finally:
        l.CHSProblem_Destroy(ctypes.byref(prob))


__all__.append("reference")
