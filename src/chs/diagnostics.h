/** @file
 * Diagnostics at output times: energy error relative to the initial energy (for explicitly
 * time-dependent problems the energy-balance error, see CHSDiagnosticsSummary), Euclidean norms
 * of the position residual g(q, t) and the momentum residual psi = G M^{-1} p + g_t, the
 * Euclidean norm of
 * the (q, p) difference to the problem's reference solution (when it has one), and the absolute
 * drift of each extra invariant the problem declares (e.g. linear and angular momentum). */
#ifndef CHS_DIAGNOSTICS_H
#define CHS_DIAGNOSTICS_H

#include "chs/export.h"

#include <sundials/sundials_nvector.h>
#include "chs/error.h"
#include "chs/formulation.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Diagnostics at one output time (CHSDiagnostics_Record). */
typedef struct CHSRecord {
  sunrealtype t;          /**< time of the record */
  sunrealtype energy;     /**< H(q, p, t) */
  sunrealtype energy_err; /**< |H - H0| / |H0| (absolute when H0 = 0) */
  sunrealtype pos_res;    /**< |g(q)|_2 */
  sunrealtype mom_res;    /**< |G(q) M^{-1} p|_2 */
  int has_reference;      /**< 1 when the problem has a reference solution (int_err is valid) */
  sunrealtype int_err;    /**< |(q,p) - (q,p)_ref|_2, valid when has_reference */
  /** @{ */
  const sunrealtype *q, *p; /**< physical state, valid until the next call */
  /** @} */
  int n_invariants;              /**< the problem's extra invariants (CHSProblem_Invariants) */
  const sunrealtype *invariants; /**< their values at t, valid until the next call */
  /** @{ */
  /** Problems with a non-conservative force or explicit time dependence (summary's
   * balance_tracked): the power P = V_t + Fnc . v + lambda^T g_t at t, the work W = integral of P
   * from the first record (over the integrator's steps: CHSDiagnostics_Step) and the
   * energy-balance error
   * |H - H0 - W| / |H0| (absolute when H0 = 0); docs/mechanics.md "Energy balance". */
  sunrealtype power, work, balance_err;
  /** @} */
  /** @{ */
  /** Scales of the residuals: |G|_F |q|_inf and |G|_F |v|_inf + |g_t|_2 (v = M^{-1} p), the
   * denominators of the run's watch of the relative residuals (chs/run.h "Warnings"). */
  sunrealtype pos_scale, mom_scale;
  /** @} */
  /** @{ */
  /** CHSRun with CHSRunOptions.multipliers = 1: the multipliers lambda (m values), the
   * reaction forces R = -G^T lambda (n values; CHSFormulation_GetMultipliers) and the velocities
   * v = M(q)^{-1} p (n values) at t, valid until the next call; NULL otherwise (and from
   * CHSDiagnostics_Record). */
  const sunrealtype *lambda, *reaction, *v;
  /** @} */
} CHSRecord;

/** Largest and final values of the diagnostics over all records (CHSDiagnostics_GetSummary). */
typedef struct CHSDiagnosticsSummary {
  long records; /**< number of records */
  /** @{ */
  /** Time of the last record and the energy H0 of the first. */
  sunrealtype t_final, energy0;
  /** @} */
  /** @{ */
  /** Largest and final energy error (as CHSRecord.energy_err). */
  sunrealtype energy_err_max, energy_err_final;
  /** @} */
  /** @{ */
  /** Largest and final |g|_2 (CHSRecord.pos_res). */
  sunrealtype pos_res_max, pos_res_final;
  /** @} */
  /** @{ */
  /** Largest and final |G M^{-1} p|_2 (CHSRecord.mom_res). */
  sunrealtype mom_res_max, mom_res_final;
  /** @} */
  int has_reference; /**< 1 when the problem has a reference solution (int_err_* are valid) */
  /** @{ */
  /** Largest and final distance to the reference solution (CHSRecord.int_err). */
  sunrealtype int_err_max, int_err_final;
  /** @} */
  /** 0 when the problem has a non-conservative force (CHSProblem_IsConservative): H then changes
   * physically (a damper dissipates it) and energy_err measures that change, not an error. */
  int energy_invariant;
  /** The problem's extra invariants (none: n_invariants = 0): names, initial values and the
   * largest and final absolute drift |I(t) - I(t0)| over the records. */
  int n_invariants;
  const char *invariant_names[CHS_MAX_INVARIANTS]; /**< names of the extra invariants */
  sunrealtype invariant0[CHS_MAX_INVARIANTS];      /**< their values at the first record */
  /** @{ */
  /** Largest and final absolute drift of each invariant. */
  sunrealtype invariant_err_max[CHS_MAX_INVARIANTS], invariant_err_final[CHS_MAX_INVARIANTS];
  /** @} */
  /** 1 when the problem has a non-conservative force or explicit time dependence: the energy
   * balance H(t) - H(t0) - W(t), W the integral of V_t + Fnc . v + lambda^T g_t, is tracked in
   * balance_err_*, relative to |H0| like energy_err. W is integrated over the points given to
   * CHSDiagnostics_Step and CHSDiagnostics_Record (CHSRun: every internal step of the
   * integrator, so W does not depend on how often output is written) by piecewise cubic
   * interpolation of the power: a quadrature error O(h^4) in the step size h. */
  int balance_tracked;
  /** @{ */
  /** Largest and final energy-balance error, and the work W at the last record. */
  sunrealtype balance_err_max, balance_err_final, work_final;
  /** @} */
  /** 1 for explicitly time-dependent problems: energy_err_* then IS the energy-balance error
   * (balance_err_*), since H changes physically; 0 otherwise (energy_err_* = |H - H0| / |H0|). */
  int energy_is_balance;
} CHSDiagnosticsSummary;

/** Diagnostics of a run: the record at each output time and the summary over them. */
typedef struct CHSDiagnostics_ *CHSDiagnostics;

/** Create diagnostics for the problem and state of formulation f. */
CHS_EXPORT int CHSDiagnostics_Create(CHSFormulation f, CHSDiagnostics *out, CHSError *err);
/** Evaluate at (t, y); the first call fixes H0. Fails (CHS_ERR_NONFINITE) on NaN/Inf. */
CHS_EXPORT int CHSDiagnostics_Record(CHSDiagnostics d, sunrealtype t, N_Vector y, CHSRecord *rec,
                                     CHSError *err);
/** The power of the energy balance at an internal step (t, y) of the integrator, t later than
 * the last point given (else nothing is done), for the work W (balance_tracked problems only;
 * otherwise nothing is done). Call it after every step for a balance independent of the output
 * times; without it W is integrated over the records alone. CHS_ERR_NONFINITE when the power
 * cannot be evaluated or is not finite. */
CHS_EXPORT int CHSDiagnostics_Step(CHSDiagnostics d, sunrealtype t, N_Vector y, CHSError *err);
/** The summary over the records so far. */
CHS_EXPORT void CHSDiagnostics_GetSummary(CHSDiagnostics d, CHSDiagnosticsSummary *s);
/** Free the diagnostics and set *d to NULL; NULL allowed. */
CHS_EXPORT void CHSDiagnostics_Destroy(CHSDiagnostics *d);

/** Amplitude spectrum of n equally spaced samples x (spacing dt) by FFTW: the mean removed,
 * amp[k] = 2 |X_k| / n (the amplitude of a sinusoid at freq[k] = k / (n dt)), k = 0 .. n/2.
 * freq and amp have n/2 + 1 entries. Uses FFTW's planner, which is not thread-safe. */
CHS_EXPORT int CHSPeriodogram(const sunrealtype *x, long n, sunrealtype dt, sunrealtype *freq,
                              sunrealtype *amp);

/* Building blocks (physical variables): H, |g|_2 and |psi|_2 of a problem at (q, p). */
/** The energy H of prob at the physical state (q, p). */
CHS_EXPORT int CHSProblem_Energy(CHSProblem prob, const sunrealtype *q, const sunrealtype *p,
                                 sunrealtype *H);

#ifdef __cplusplus
}
#endif
#endif
