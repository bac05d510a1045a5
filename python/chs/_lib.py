"""ctypes bindings of libchs: only functions and opaque handles, never a C struct's layout.

The run goes through the layout-free API of chs/run.h: CHSRunOptions_Create and its Set
functions, CHSRunProblem (a run in a SUNContext of its own), CHSCollector (the records as
arrays) and the CHSRunSummary getters. Errors come back as a CHSError, whose layout is the one
fixed part: an int code and a char message of CHS_ERROR_MSG_LEN.
"""
import ctypes
import os

from . import _config

CHS_ERROR_MSG_LEN = 512


class CHSError(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("msg", ctypes.c_char * CHS_ERROR_MSG_LEN)]


class Error(Exception):
    """A failure reported by chs: ``code`` is chs' CHS_ERR_* code (negative), ``name`` its name
    (e.g. ``CHS_ERR_NOTFOUND``), ``input_error`` whether it is bad input (the ``chs`` command's
    exit status 2) rather than a numerical failure (3), and ``str(e)`` chs' message."""

    def __init__(self, message, code=-1, name="CHS_ERR_ARG", input_error=True):
        super().__init__(message)
        self.message = message
        self.code = code
        self.name = name
        self.input_error = input_error


def library_path():
    """The libchs the package loads: $CHS_LIBRARY when set (a build tree), else the one the
    package was installed with (_config.LIBRARY), else the system's libchs.so.0."""
    env = os.environ.get("CHS_LIBRARY")
    if env:
        return env
    if _config.LIBRARY and os.path.exists(_config.LIBRARY):
        return _config.LIBRARY
    return "libchs.so.0"


_lib = None

_c_int, _c_long, _c_double = ctypes.c_int, ctypes.c_long, ctypes.c_double
_vp, _cp = ctypes.c_void_p, ctypes.c_char_p
_errp = ctypes.POINTER(CHSError)
_dblp = ctypes.POINTER(ctypes.c_double)

# name: (restype, argtypes)
_SIGNATURES = {
    "CHSError_Name": (_cp, [_c_int]),
    "CHSError_IsInput": (_c_int, [_c_int]),
    "CHSProblem_Create": (_c_int, [_cp, ctypes.POINTER(_vp), _errp]),
    "CHSProblem_Destroy": (None, [ctypes.POINTER(_vp)]),
    "CHSProblem_GetName": (_cp, [_vp]),
    "CHSProblem_HasKineticScale": (_c_int, [_vp]),
    "CHSProblem_Reference": (_c_int, [_vp, _c_double, _dblp, _dblp]),
    "CHSProblem_Fix": (_c_int, [_vp, _cp, _errp]),
    "CHSRunOptions_Create": (_vp, []),
    "CHSRunOptions_Destroy": (None, [ctypes.POINTER(_vp)]),
    "CHSRunOptions_SetMethod": (_c_int, [_vp, _cp, _errp]),
    "CHSRunOptions_SetTolerances": (_c_int, [_vp, _c_double, _c_double, _errp]),
    "CHSRunOptions_SetFixedStep": (_c_int, [_vp, _c_double, _errp]),
    "CHSRunOptions_SetTimes": (_c_int, [_vp, _c_double, _c_double, _errp]),
    "CHSRunOptions_SetEvery": (_c_int, [_vp, _c_long, _errp]),
    "CHSRunOptions_SetProjection": (_c_int, [_vp, _c_int, _c_double, _errp]),
    "CHSRunOptions_SetMaxSteps": (_c_int, [_vp, _c_long, _errp]),
    "CHSRunOptions_SetStopAt": (_c_int, [_vp, _cp, _errp]),
    "CHSRunOptions_SetMultipliers": (_c_int, [_vp, _c_int, _errp]),
    "CHSRunOptions_SetProjectionEvery": (_c_int, [_vp, _c_long, _errp]),
    "CHSRunOptions_SetProjectionNewtonTol": (_c_int, [_vp, _c_double, _errp]),
    "CHSRunOptions_SetSubnormals": (_c_int, [_vp, _c_int, _errp]),
    "CHSRunOptions_SetCheck": (_c_int, [_vp, _c_int, _errp]),
    "CHSRunOptions_SetStrict": (_c_int, [_vp, _c_int, _errp]),
    "CHSRunSummary_Create": (_vp, []),
    "CHSRunSummary_Destroy": (None, [ctypes.POINTER(_vp)]),
    "CHSRunSummary_GetNumSteps": (_c_long, [_vp]),
    "CHSRunSummary_GetNumRhsEvals": (_c_long, [_vp]),
    "CHSRunSummary_GetNumJacEvals": (_c_long, [_vp]),
    "CHSRunSummary_GetNumErrTestFails": (_c_long, [_vp]),
    "CHSRunSummary_GetNumPositionProjections": (_c_long, [_vp]),
    "CHSRunSummary_GetNumMomentumProjections": (_c_long, [_vp]),
    "CHSRunSummary_GetNumRecords": (_c_long, [_vp]),
    "CHSRunSummary_GetFinalTime": (_c_double, [_vp]),
    "CHSRunSummary_GetWallTime": (_c_double, [_vp]),
    "CHSRunSummary_GetCompleted": (_c_int, [_vp]),
    "CHSRunSummary_GetNumWarnings": (_c_int, [_vp]),
    "CHSRunSummary_GetWarning": (_cp, [_vp, _c_int]),
    "CHSRunSummary_GetFormulation": (_cp, [_vp]),
    "CHSRunSummary_GetMethod": (_cp, [_vp]),
    "CHSRunSummary_GetChoice": (_cp, [_vp]),
    "CHSRunSummary_GetErrorEstimate": (_c_double, [_vp]),
    "CHSRunOptions_SetEstimateError": (_c_int, [_vp, _c_int, _errp]),
    "CHSRunProblem": (_c_int, [_vp, _cp, _vp, _vp, _vp, _vp, _errp]),
    "CHSCollector_Create": (_c_int, [_vp, _cp, ctypes.POINTER(_vp), _errp]),
    "CHSCollector_Destroy": (None, [ctypes.POINTER(_vp)]),
    "CHSCollector_FieldName": (_cp, [_c_int]),
    "CHSCollector_GetNumRecords": (_c_long, [_vp]),
    "CHSCollector_GetField": (_c_int, [_vp, _cp, ctypes.POINTER(_dblp),
                                       ctypes.POINTER(_c_long), _errp]),
    "CHSCollector_GetColumnName": (_cp, [_vp, _cp, _c_long]),
}


def lib():
    """libchs, loaded once (RTLD_GLOBAL: a problem plugin that calls CHS* functions binds to
    this copy)."""
    global _lib
    if _lib is None:
        path = library_path()
        try:
            handle = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        except OSError as e:
            raise Error("cannot load libchs from '%s': %s (set CHS_LIBRARY to libchs.so.0's "
                        "path)" % (path, e), code=-4, name="CHS_ERR_PLUGIN") from None
        for name, (res, args) in _SIGNATURES.items():
            fn = getattr(handle, name)
            fn.restype = res
            fn.argtypes = args
        _lib = handle
    return _lib


def check(rc, err):
    """Raise Error from a CHSError when rc is nonzero."""
    if rc != 0:
        code = err.code if err.code != 0 else rc
        l = lib()
        msg = err.msg.decode("utf-8", "replace") or "chs call failed (%d)" % rc
        raise Error(msg, code=code, name=l.CHSError_Name(code).decode(),
                    input_error=bool(l.CHSError_IsInput(code)))


def text(s):
    return s.encode("utf-8") if isinstance(s, str) else s
