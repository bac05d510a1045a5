/* leimkuhler-reich-residuals: [Leimkuhler & Reich] Sec. 3.5-3.6 and Fig. 3.3, the stability of
 * the constraint residuals. The paper linearises the dynamics of the residuals (rho, sigma) =
 * ((q^T q - 1)/2, q^T p) of the Cartesian pendulum at rho = sigma = 0: Dirac's H_T gives
 * rho' = -sigma, sigma' = 4 p^T p rho, a centre (Fig. 3.3a); the simplified Hamiltonian with
 * eta = 0 gives rho' = sigma, sigma' = 4 p^T p rho, a saddle (Fig. 3.3b); for linear constraints
 * (3.7)-(3.8) gives r' = s' = 0 and the standard underlying ODE r' = s, s' = 0. The paper's
 * Fig. 3.3 is a sketch; here the 2 x 2 matrix A of the linearised residual dynamics is computed
 * from chs's own right-hand sides (central differences along two normal directions of the
 * manifold at the initial state of pendulum:gscale=1, whose g = q^T q - 1 and chs's psi =
 * G p = 2 q^T p are 2 rho and 2 sigma), and the figure draws the phase portraits of
 * (g, psi)' = A (g, psi). */
#include <math.h>
#include <string.h>
#include <nvector/nvector_serial.h>
#include "../reproduce.h"

#define NFORM 4
static const char *const forms[NFORM] = {"extended", "total", "dirac", "standard"};
static const char *const labels[NFORM] = {"Dirac H_T (extended)", "simplified eta=0 (total)",
                                          "weakly Hamiltonian (dirac)", "standard"};

/* A at the state y0 (on the manifold), with chs's residuals g = q^T q - 1, psi = 2 q^T p. */
static int linearisation(CHSFormulation f, N_Vector y0, double A[4]) {
  N_Vector y = N_VClone(y0), fy = N_VClone(y0);
  double z[4];
  int rc = y && fy ? 0 : CHS_ERR_MEM;
  if (rc == 0) {
    memcpy(z, N_VGetArrayPointer(y0), sizeof z);
    rc = rep_pendulum_residual_matrix(f, y, fy, z, 1, A);
  }
  N_VDestroy(y);
  N_VDestroy(fy);
  return rc;
}

/* The phase portrait of x' = A x, RK4 with n - 1 steps of length T / (n - 1), from 8 points
 * (cos a, w sin a) r, w = sqrt(|A21 / A12|) the ratio of the axes of the linear flow's orbits:
 * at radii r = 1/8 .. 1 on one ray each (nested = 1: the centre's nested orbits), or all on
 * r = 1 at eight angles (nested = 0: the saddle's hyperbolas). Trajectory k into xs[2k][0 .. n),
 * xs[2k + 1][0 .. n). */
static void portrait(const double A[4], double T, long n, int nested, double *const *xs) {
  const double pi = acos(-1.0), w = A[1] != 0 ? sqrt(fabs(A[2] / A[1])) : 1;
  for (int k = 0; k < 8; k++) {
    double a = pi * (k + 0.5) / 4, rad = nested ? (k + 1) / 8.0 : 1;
    double x[2] = {rad * cos(a), rad * w * sin(a)}, h = T / (double)(n - 1);
    for (long i = 0; i < n; i++) {
      xs[2 * k][i] = x[0];
      xs[2 * k + 1][i] = x[1];
      double k1[2], k2[2], k3[2], k4[2], z[2];
#define LR_AX(out, v)                                                                              \
  (out)[0] = A[0] * (v)[0] + A[1] * (v)[1];                                                        \
  (out)[1] = A[2] * (v)[0] + A[3] * (v)[1]
      LR_AX(k1, x);
      z[0] = x[0] + h / 2 * k1[0], z[1] = x[1] + h / 2 * k1[1];
      LR_AX(k2, z);
      z[0] = x[0] + h / 2 * k2[0], z[1] = x[1] + h / 2 * k2[1];
      LR_AX(k3, z);
      z[0] = x[0] + h * k3[0], z[1] = x[1] + h * k3[1];
      LR_AX(k4, z);
#undef LR_AX
      x[0] += h / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0]);
      x[1] += h / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1]);
    }
  }
}

/* ranges: "" (the whole trajectories) or gnuplot's set xrange / yrange commands */
static int draw(const char *dir, const char *name, const char *title, const double A[4], double T,
                const char *ranges) {
  enum { NP = 400 };
  double *buf = malloc(16 * NP * sizeof *buf);
  if (!buf) {
    return -1;
  }
  double *xs[16];
  const double *cols[16];
  for (int k = 0; k < 16; k++) {
    cols[k] = xs[k] = buf + k * NP;
  }
  portrait(A, T, NP, ranges[0] == '\0', xs);
  char script[2048];
  int len = snprintf(script, sizeof script,
                     "set title '%s'\nset xlabel 'g = q1^2 + q2^2 - 1'\nset ylabel 'psi = 2 (q1 "
                     "p1 + q2 p2)'\nset offsets graph 0.05, graph 0.05, graph 0.05, graph 0.05\n%s"
                     "set key below\nplot ",
                     title, ranges);
  for (int k = 0; k < 8 && len < (int)sizeof script; k++) {
    len += snprintf(script + len, sizeof script - (size_t)len, "%sDATA u %d:%d w l lt 1 %s",
                    k ? ", " : "", 2 * k + 1, 2 * k + 2,
                    k ? "notitle" : "t 'trajectories of the linearised residual dynamics'");
  }
  if (len < (int)sizeof script) {
    len += snprintf(script + len, sizeof script - (size_t)len,
                    ", DATA u 1:2 every ::0::0 w p lt 2 pt 7 t 'starting points', DATA u 3:4 "
                    "every ::0::0 w p lt 2 pt 7 notitle, DATA u 5:6 every ::0::0 w p lt 2 pt 7 "
                    "notitle, DATA u 7:8 every ::0::0 w p lt 2 pt 7 notitle, DATA u 9:10 every "
                    "::0::0 w p lt 2 pt 7 notitle, DATA u 11:12 every ::0::0 w p lt 2 pt 7 "
                    "notitle, DATA u 13:14 every ::0::0 w p lt 2 pt 7 notitle, DATA u 15:16 "
                    "every ::0::0 w p lt 2 pt 7 notitle");
  }
  int rc = len < (int)sizeof script
               ? rep_plot(dir, name, "g_k psi_k for the 8 trajectories k", cols, 16, NP, script)
               : -1;
  free(buf);
  return rc;
}

static int leimkuhler_reich_residuals(rep_report *r, CHSError *err) {
  CHSProblem prob = NULL;
  if (CHSProblem_Create("pendulum:gscale=1", &prob, err) != 0) {
    return err->code;
  }
  double A[NFORM][4], p2 = NAN;
  int rc = 0;
  for (int k = 0; k < NFORM && rc == 0; k++) {
    rep_stepper s; /* the formulation at the initial state, no integrator */
    rc = rep_stepper_open(&s, prob, forms[k], NULL, (CHSStepControl){0}, NULL, NULL, NULL, 0, err);
    if (rc == 0 && N_VGetLength(s.y) != 4) {
      rc = cli_error(err, CHS_ERR_UNSUPPORTED, "%s: state of length %ld, expected (q, p)", forms[k],
                     (long)N_VGetLength(s.y));
    }
    if (rc == 0) {
      const double *a = N_VGetArrayPointer(s.y);
      p2 = a[2] * a[2] + a[3] * a[3];
      rc = linearisation(s.f, s.y, A[k]);
      if (rc != 0) {
        cli_error(err, rc, "%s: the right-hand side failed near the initial state", forms[k]);
      }
    }
    rep_stepper_close(&s);
  }
  CHSProblem_Destroy(&prob);
  if (rc != 0) {
    return rc;
  }
  const char *entry[4] = {"dg/dt per g", "dg/dt per psi", "dpsi/dt per g", "dpsi/dt per psi"};
  for (int k = 0; k < NFORM; k++) {
    for (int i = 0; i < 4; i++) {
      rep_row_add(r, NAN, A[k][i], "A[%s], %s", entry[i], labels[k]);
    }
  }
  rep_row_add(r, NAN, p2, "p^T p at the initial state (1, 0, 0, -2)");
  /* eigenvalues of each A: trace, determinant, discriminant */
  double tr[NFORM], det[NFORM], disc[NFORM], scale[NFORM];
  for (int k = 0; k < NFORM; k++) {
    tr[k] = A[k][0] + A[k][3];
    det[k] = A[k][0] * A[k][3] - A[k][1] * A[k][2];
    disc[k] = tr[k] * tr[k] - 4 * det[k];
    scale[k] = fmax(fmax(fabs(A[k][0]), fabs(A[k][1])), fmax(fabs(A[k][2]), fabs(A[k][3])));
  }
  double omega = disc[0] < 0 ? sqrt(-disc[0]) / 2 : NAN;
  double lam = disc[1] > 0 ? (tr[1] + sqrt(disc[1])) / 2 : NAN;
  rep_row_add(r, NAN, omega, "frequency of the centre (eigenvalues +-i omega), %s", labels[0]);
  rep_row_add(r, NAN, lam, "unstable eigenvalue of the saddle, %s", labels[1]);
  /* the paper's linearisation in chs's residuals (g, psi) = (2 rho, 2 sigma): the same matrix,
   * [[0, -1], [4 p^T p, 0]] and [[0, 1], [4 p^T p, 0]], plus what the potential adds */
  rep_claim_add(r, disc[0] < 0 && fabs(tr[0]) <= 1e-6 * scale[0],
                "Dirac's H_T: the origin of the linearised residual dynamics is a stable centre "
                "(Fig. 3.3a)",
                "A = [[%.4g, %.4g], [%.4g, %.4g]]: trace %.2g, determinant %.4g > 0, eigenvalues "
                "+-%.4g i",
                A[0][0], A[0][1], A[0][2], A[0][3], tr[0], det[0], omega);
  rep_claim_add(r, det[1] < 0,
                "the simplified Hamiltonian (eta = 0): the origin is a saddle point (Fig. 3.3b)",
                "A = [[%.4g, %.4g], [%.4g, %.4g]]: determinant %.4g < 0, eigenvalues %.4g, %.4g",
                A[1][0], A[1][1], A[1][2], A[1][3], det[1], lam, tr[1] - lam);
  rep_claim_add(
      r, A[0][1] < 0 && A[1][1] > 0 && fabs(A[0][1] + A[1][1]) <= 1e-6 * scale[0],
      "the only difference between the two linearisations is the sign with psi in the "
      "first equation ((3.17)-(3.18) against (3.19)-(3.20))",
      "dg/dt per psi: %.6g (H_T), %.6g (eta = 0); the other entries differ by at most "
      "%.2g",
      A[0][1], A[1][1],
      fmax(fmax(fabs(A[0][0] - A[1][0]), fabs(A[0][2] - A[1][2])), fabs(A[0][3] - A[1][3])));
  rep_claim_add(
      r, fabs(A[0][2] - 4 * p2) <= 1e-6 * 4 * p2 && fabs(A[1][2] - 4 * p2) <= 1e-6 * 4 * p2,
      "the coefficient of the pendulum's linearisation is 4 p^T p (sigma' = 4 p^T p rho, "
      "in (g, psi) = (2 rho, 2 sigma) the same)",
      "dpsi/dt per g: %.8g (H_T), %.8g (eta = 0); 4 p^T p = %.8g", A[0][2], A[1][2], 4 * p2);
  rep_claim_add(r, scale[2] <= 1e-6,
                "(ours) the weakly Hamiltonian Dirac formulation: A = 0, g and psi are first "
                "integrals (for linear constraints the paper finds r' = s' = 0)",
                "largest entry of A: %.2g", scale[2]);
  rep_claim_add(r,
                fabs(A[3][0]) <= 1e-6 * scale[3] && fabs(A[3][1] - 1) <= 1e-6 &&
                    fabs(A[3][2]) <= 1e-6 * scale[3] && fabs(A[3][3]) <= 1e-6 * scale[3],
                "the standard underlying ODE: r' = s, s' = 0 (a double zero eigenvalue: the "
                "position residual drifts linearly)",
                "A = [[%.3g, %.6g], [%.3g, %.3g]]", A[3][0], A[3][1], A[3][2], A[3][3]);
  rep_note(r,
           "A is computed at the initial state (1, 0, 0, -2) of pendulum:gscale=1 (g = q1^2 + q2^2 "
           "- 1, V = q2, p^T p = %.3g) from chs's right-hand sides. The paper's example drops the "
           "potential; its gradient enters A through q^T grad V, which vanishes at this state, so "
           "A is the paper's matrix here. "
           "Fig. 3.3 draws x' = A x from eight points: for the centre at radii 1/8 .. 1 over one "
           "period 2 pi / omega, for the saddle on one orbit of the centre's shape until t = "
           "1.5 / lambda.\n",
           p2);
  if (r->plot_dir) {
    if (draw(r->plot_dir, "leimkuhler-reich-fig3-3a",
             "[Leimkuhler and Reich] Fig. 3.3 (a): residuals near g = psi = 0, Dirac H_T (centre)",
             A[0], isfinite(omega) ? 2 * acos(-1.0) / omega : 1, "") != 0 ||
        draw(r->plot_dir, "leimkuhler-reich-fig3-3b",
             "[Leimkuhler and Reich] Fig. 3.3 (b): the simplified eta = 0 system (saddle)", A[1],
             isfinite(lam) && lam > 0 ? 1.5 / lam : 1,
             "set xrange [-3:3]\nset yrange [-12:12]\n") != 0) {
      return cli_error(err, CHS_ERR_IO, "plotting into %.300s failed", r->plot_dir);
    }
  }
  return 0;
}

const rep_experiment chs_experiment_leimkuhler_reich_residuals = {
    .name = "leimkuhler-reich-residuals",
    .source = "[Leimkuhler & Reich] Sec. 3.5-3.6, Fig. 3.3",
    .summary = "the linearised dynamics of the constraint residuals: a centre for Dirac's H_T, a "
               "saddle for the simplified eta = 0 system, computed from the right-hand sides",
    .run = leimkuhler_reich_residuals,
};
