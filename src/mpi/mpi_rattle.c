/* SHAKE/RATTLE on the distributed bond chains (docs/mpi.md): src/integrate/rattle.c's algorithm
 * for a constant mass (rattle_step) on the layout of src/mpi/mpi_impl.h, step for step:
 *
 *   p* = p_n + h/2 (F(q_n) - G(q_n)^T lambda),   q_{n+1} = q_n + h M^{-1} p*,   g(q_{n+1}) = 0,
 *   p_{n+1} = p* + h/2 (F(q_{n+1}) - G(q_{n+1})^T mu),   G(q_{n+1}) M^{-1} p_{n+1} = 0.
 *
 * lambda by the serial simplified Newton (SHAKE) iteration: from qb = q_n + h M^{-1} (p_n +
 * h/2 F), dl = Q(q_n)^{-1} g(q1) / c, lambda += dl, q1 -= c M^{-1} G(q_n)^T dl (c = h^2 / 2), with
 * the symmetric Gram matrix Q(q_n) factored once per step by ScaLAPACK (pdpttrf; each iteration
 * one pdpttrs), until max_i |g_i| <= max(tol, 16 u) max(1, max|q_n|)^2 and, at round-off (no
 * --rtol), one more correction; at most 100 iterations. mu by one Gram solve at q_{n+1}. The
 * maxima are reduced over the ranks (exact: the same decisions as the serial run); one force
 * evaluation per step (F(q_{n+1}) is reused). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "integrate/fixed_step.h"
#include "mpi_impl.h"

#define MPI_RATTLE_NEWTON_MAX 100 /* the serial RATTLE_NEWTON_MAX */

typedef struct {
  chs_mpi *M;
  sunrealtype h, tol, t;
  sunrealtype *q, *p;        /* the local state (in the N_Vector) */
  sunrealtype *F, *ph, *q1;  /* 2 na each */
  sunrealtype *X, *u;        /* ghosted atoms: 2 (na + 2) each */
  sunrealtype *gc, *g;       /* nr each */
  sunrealtype *lam, *dl, *z; /* ghosted rows: nr + 2 each */
  long steps, force_evals, newton;
  int have_force;
} mpi_rattle;

/* The force on the local atoms at the local positions q, its status agreed by the ranks: the one
 * place where rattle evaluates forces (chs_mpi_force, as the fields of src/mpi/mpi.c). */
static int mpi_rattle_force(chs_mpi *M, const sunrealtype *q, sunrealtype *F) {
  double bad = chs_mpi_force(M, q, NULL, F) != 0;
  chs_mpi_reduce(M, &bad, 1, MPI_MAX);
  return bad != 0 ? CHS_RECOVERABLE : 0;
}

/* (G^T x)_h of the local atoms with G the bond vectors in M->d, x a row array (ghosts exchanged
 * here), into out (2 na). */
static void mpi_rattle_gt(chs_mpi *M, sunrealtype *x, sunrealtype *out) {
  chs_mpi_halo(M, x, M->nr, 1);
  for (sunindextype h = M->a0; h < M->a1; h++) {
    chs_mpi_tmv(M, M->d, x, h, out + 2 * (h - M->a0));
  }
}

static int mpi_rattle_step(void *mem, sunrealtype h, CHSError *err) {
  mpi_rattle *r = mem;
  chs_mpi *M = r->M;
  sunindextype n2 = 2 * M->na, nr = M->nr;
  const sunrealtype *minv = ATOM(M->minv, M->a0);
  sunrealtype *q = r->q, *p = r->p, *F = r->F, *ph = r->ph, *q1 = r->q1, *u = r->u;
  if (!r->have_force) {
    if (mpi_rattle_force(M, q, F) != 0) {
      return chs_error_set(err, CHS_ERR_SOLVER, "rattle: force failed at t = %g", (double)r->t);
    }
    r->force_evals++;
    r->have_force = 1;
  }
  chs_mpi_ghost_q(M, q, r->X);
  chs_mpi_bonds(M, r->X); /* G(q_n); Q(q_n) is factored at the first solve */
  int factored = 0;
  /* unconstrained half kick and drift, then SHAKE: q1 = qb - c M^{-1} G(q_n)^T lambda */
  double qmax = 1;
  for (sunindextype k = 0; k < n2; k++) {
    ph[k] = p[k] + h / 2 * F[k];
    q1[k] = q[k] + h * (minv[k] * ph[k]);
    qmax = fmax(qmax, fabs(q[k]));
  }
  chs_mpi_reduce(M, &qmax, 1, MPI_MAX);
  memset(r->lam, 0, ((size_t)nr + 2) * sizeof *r->lam);
  int converged = 0, polish = 0;
  const sunrealtype gscale = qmax * qmax, c = h * h / 2;
  for (int it = 0; it < MPI_RATTLE_NEWTON_MAX; it++) {
    chs_mpi_ghost_q(M, q1, r->X);
    chs_mpi_cons(M, r->X, r->gc, r->g);
    double gi[2] = {0, 0}; /* max |g_i| over the ranks; whether one is not finite */
    for (sunindextype i = 0; i < nr; i++) {
      gi[0] = fmax(gi[0], fabs(r->g[i]));
      gi[1] = fmax(gi[1], !isfinite(r->g[i]));
    }
    chs_mpi_reduce(M, gi, 2, MPI_MAX);
    if (gi[1] != 0) {
      break;
    }
    if (gi[0] <= fmax(r->tol, 16 * SUN_UNIT_ROUNDOFF) * gscale) {
      converged = 1;
      /* to round-off: one more correction settles the last bits (not with a user tolerance) */
      if (r->tol > 0 || polish++ > 0) {
        break;
      }
    }
    memcpy(M->B, r->g, (size_t)nr * sizeof *r->g);
    if (chs_mpi_gram_solve(M, 1, !factored) != 0) {
      break;
    }
    factored = 1;
    for (sunindextype i = 0; i < nr; i++) {
      ROW(r->dl, M->r0 + i) = M->B[i] / c;
      ROW(r->lam, M->r0 + i) += ROW(r->dl, M->r0 + i);
    }
    mpi_rattle_gt(M, r->dl, u);
    for (sunindextype k = 0; k < n2; k++) {
      q1[k] -= c * (minv[k] * u[k]);
    }
    r->newton++;
  }
  if (!converged) {
    return chs_error_set(err, CHS_ERR_SOLVER,
                         "rattle: position constraint iteration did not converge at t = %g "
                         "(reduce --h)",
                         (double)r->t);
  }
  /* p* = p_n + h/2 (F - G(q_n)^T lambda); q_{n+1} = q1 */
  mpi_rattle_gt(M, r->lam, u);
  for (sunindextype k = 0; k < n2; k++) {
    ph[k] = p[k] + h / 2 * (F[k] - u[k]);
  }
  memcpy(q, q1, (size_t)n2 * sizeof *q);
  /* second half kick with mu from G(q_{n+1}) M^{-1} p_{n+1} = 0 */
  if (mpi_rattle_force(M, q, F) != 0) {
    return chs_error_set(err, CHS_ERR_SOLVER, "rattle: force failed at t = %g", (double)r->t);
  }
  r->force_evals++;
  for (sunindextype k = 0; k < n2; k++) {
    p[k] = ph[k] + h / 2 * F[k];
  }
  chs_mpi_ghost_q(M, q, r->X);
  chs_mpi_bonds(M, r->X); /* G(q_{n+1}) */
  for (sunindextype k = 0; k < n2; k++) {
    ATOM(u, M->a0)[k] = minv[k] * p[k];
  }
  u[0] = u[1] = ATOM(u, M->a1)[0] = ATOM(u, M->a1)[1] = 0; /* the pivot: at rest */
  chs_mpi_halo(M, u, M->na, 2);
  for (sunindextype i = M->r0; i < M->r1; i++) {
    M->B[i - M->r0] = chs_mpi_mv(M, M->d, u, i);
  }
  if (chs_mpi_gram_solve(M, 1, 1) != 0) {
    return chs_error_set(err, CHS_ERR_SOLVER, "rattle: singular Gram matrix at t = %g",
                         (double)r->t);
  }
  memcpy(&ROW(r->z, M->r0), M->B, (size_t)nr * sizeof *r->z);
  mpi_rattle_gt(M, r->z, u);
  for (sunindextype k = 0; k < n2; k++) {
    p[k] -= u[k];
  }
  r->t += h;
  r->steps++;
  return 0;
}

int chs_mpi_rattle(chs_mpi *M, const CHSRunOptions *opt, sunrealtype *y, CHSMPISummary *sum,
                   CHSError *err) {
  mpi_rattle r;
  memset(&r, 0, sizeof r);
  sunindextype na = M->na, nr = M->nr;
  sunrealtype *buf =
      calloc(3 * 2 * (size_t)na + 2 * 2 * ((size_t)na + 2) + 2 * (size_t)nr + 3 * ((size_t)nr + 2),
             sizeof *buf);
  if (!buf) {
    return chs_error_set(err, CHS_ERR_MEM, "MPI: out of memory");
  }
  r.M = M;
  r.h = opt->ctl.h;
  r.tol = opt->ctl.rtol > 0 ? opt->ctl.rtol : 0;
  r.t = opt->t0;
  r.q = y;
  r.p = y + 2 * na;
  r.F = buf;
  r.ph = r.F + 2 * na;
  r.q1 = r.ph + 2 * na;
  r.X = r.q1 + 2 * na;
  r.u = r.X + 2 * (na + 2);
  r.gc = r.u + 2 * (na + 2);
  r.g = r.gc + nr;
  r.lam = r.g + nr;
  r.dl = r.lam + nr + 2;
  r.z = r.dl + nr + 2;
  int rc = chs_mpi_cons_setup(M, r.gc, err);
  double t0 = MPI_Wtime();
  M->comm_s = 0;
  if (rc == 0) {
    rc = chs_fixed_step_evolve(&r, mpi_rattle_step, &r.t, r.h, opt->tf, 0, err);
  }
  double mine[2] = {MPI_Wtime() - t0, M->comm_s};
  MPI_Allreduce(MPI_IN_PLACE, mine, 2, MPI_DOUBLE, MPI_MAX, M->comm);
  sum->t_final = r.t;
  sum->steps = r.steps;
  sum->rhs_evals = r.force_evals;
  sum->shake_iters = r.newton;
  sum->wall_s = mine[0];
  sum->comm_s = mine[1];
  sum->ranks = M->size;
  chs_mpi_ghost_summary(M, sum);
  free(buf);
  return rc;
}
