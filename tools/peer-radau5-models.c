/* Compiled right-hand sides for deSolve::radau (Hairer's RADAU5), used by tools/peer-radau5:
 * the IVP test set's andrews (index-3 form, 27 components) and car axis (index-3 form, 10
 * components), each written as M y' = f(t, y) with a constant diagonal mass matrix M, as
 * RADAU5 takes them. Written from the test set's problem descriptions (Mazzia, Magherini,
 * "Test Set for Initial Value Problem Solvers"), data as there. Compiled (R CMD SHLIB) so
 * that RADAU5's wall time measures the solver and the model, not R's interpreter.
 *
 * deSolve's calling convention: derivs(&neq, &t, y, ydot, yout, ip); no parameters are passed
 * (initfunc below takes none), the data are constants. */
#include <math.h>

/* ---- andrews: y = (q[7], v[7], w[7], lambda[6]); q' = v, v' = w, 0 = ff(q, v) - M(q) w -
 * G(q)^T lambda, 0 = g(q). */
static const double m1 = .04325, m2 = .00365, m3 = .02373, m4 = .00706, m5 = .07050, m6 = .00706,
                    m7 = .05498;
static const double xa = -.06934, ya = -.00227, xb = -0.03635, yb = .03273, xc = .014, yc = .072,
                    c0 = 4530;
static const double i1 = 2.194e-6, i2 = 4.410e-7, i3 = 5.255e-6, i4 = 5.667e-7, i5 = 1.169e-5,
                    i6 = 5.667e-7, i7 = 1.912e-5;
static const double d = 28e-3, da = 115e-4, e = 2e-2, ea = 1421e-5, rr = 7e-3, ra = 92e-5,
                    l0 = 7785e-5;
static const double ss = 35e-3, sa = 1874e-5, sb = 1043e-5, sc = 18e-3, sd = 2e-2, ta = 2308e-5,
                    tb = 916e-5, u = 4e-2, ua = 1228e-5, ub = 449e-5;
static const double zf = 2e-2, zt = 4e-2, fa = 1421e-5, mom = 33e-3;

/* every call of a right-hand side, Jacobian difference quotients included (RADAU5's own count
 * leaves those out), read and reset through peer_calls */
static double ncalls;

void peer_noparms(void (*odeparms)(int *, double *)) {
  (void)odeparms;
}

void peer_calls(double *n, int *reset) {
  *n = ncalls;
  if (*reset) {
    ncalls = 0;
  }
}

/* mass matrix M(q) (7x7, row-major), forces ff(q, v) and constraint Jacobian G(q) (6x7) */
static void andrews_parts(const double *q, const double *v, double M[49], double ff[7],
                          double G[42], double g[6]) {
  double sibe = sin(q[0]), cobe = cos(q[0]), sith = sin(q[1]), coth = cos(q[1]);
  double siga = sin(q[2]), coga = cos(q[2]), siph = sin(q[3]), coph = cos(q[3]);
  double side = sin(q[4]), code = cos(q[4]), siom = sin(q[5]), coom = cos(q[5]);
  double siep = sin(q[6]), coep = cos(q[6]);
  double sibt = sin(q[0] + q[1]), cobt = cos(q[0] + q[1]);
  double sipd = sin(q[3] + q[4]), copd = cos(q[3] + q[4]);
  double sioe = sin(q[5] + q[6]), cooe = cos(q[5] + q[6]);
  double bep = v[0], thp = v[1], php = v[3], dep = v[4], omp = v[5], epp = v[6];
  for (int i = 0; i < 49; i++) {
    M[i] = 0;
  }
  double e4 = e - ea, z6 = zf - fa;
  M[0] = m1 * ra * ra + m2 * (rr * rr - 2 * da * rr * coth + da * da) + i1 + i2;
  M[1] = M[7] = m2 * (da * da - da * rr * coth) + i2;
  M[8] = m2 * da * da + i2;
  M[16] = m3 * (sa * sa + sb * sb) + i3;
  M[24] = m4 * e4 * e4 + i4;
  M[25] = M[31] = m4 * (e4 * e4 + zt * e4 * siph) + i4;
  M[32] = m4 * (zt * zt + 2 * zt * e4 * siph + e4 * e4) + m5 * (ta * ta + tb * tb) + i4 + i5;
  M[40] = m6 * z6 * z6 + i6;
  M[41] = M[47] = m6 * (z6 * z6 - u * z6 * siom) + i6;
  M[48] = m6 * (z6 * z6 - 2 * u * z6 * siom + u * u) + m7 * (ua * ua + ub * ub) + i6 + i7;
  double xd = sd * coga + sc * siga + xb, yd = sd * siga - sc * coga + yb;
  double lang = sqrt((xd - xc) * (xd - xc) + (yd - yc) * (yd - yc));
  double force = -c0 * (lang - l0) / lang;
  double fx = force * (xd - xc), fy = force * (yd - yc);
  ff[0] = mom - m2 * da * rr * thp * (thp + 2 * bep) * sith;
  ff[1] = m2 * da * rr * bep * bep * sith;
  ff[2] = fx * (sc * coga - sd * siga) + fy * (sd * coga + sc * siga);
  ff[3] = m4 * zt * e4 * dep * dep * coph;
  ff[4] = -m4 * zt * e4 * php * (php + 2 * dep) * coph;
  ff[5] = -m6 * u * z6 * epp * epp * coom;
  ff[6] = m6 * u * z6 * omp * (omp + 2 * epp) * coom;
  for (int i = 0; i < 42; i++) {
    G[i] = 0;
  }
  /* rows 0, 2, 4 share the x-terms of the crank, rows 1, 3, 5 the y-terms */
  for (int r = 0; r < 6; r += 2) {
    G[r * 7 + 0] = -rr * sibe + d * sibt;
    G[r * 7 + 1] = d * sibt;
    G[(r + 1) * 7 + 0] = rr * cobe - d * cobt;
    G[(r + 1) * 7 + 1] = -d * cobt;
  }
  G[0 * 7 + 2] = -ss * coga;
  G[1 * 7 + 2] = -ss * siga;
  G[2 * 7 + 3] = -e * copd;
  G[2 * 7 + 4] = -e * copd + zt * side;
  G[3 * 7 + 3] = -e * sipd;
  G[3 * 7 + 4] = -e * sipd - zt * code;
  G[4 * 7 + 5] = zf * sioe;
  G[4 * 7 + 6] = zf * sioe - u * coep;
  G[5 * 7 + 5] = -zf * cooe;
  G[5 * 7 + 6] = -zf * cooe - u * siep;
  double cx = rr * cobe - d * cobt, cy = rr * sibe - d * sibt;
  g[0] = cx - ss * siga - xb;
  g[1] = cy + ss * coga - yb;
  g[2] = cx - e * sipd - zt * code - xa;
  g[3] = cy + e * copd - zt * side - ya;
  g[4] = cx - zf * cooe - u * siep - xa;
  g[5] = cy - zf * sioe + u * coep - ya;
}

void andrews_f(int *neq, double *t, double *y, double *f, double *yout, int *ip) {
  (void)neq, (void)t, (void)yout, (void)ip;
  ncalls++;
  double M[49], ff[7], G[42], g[6];
  const double *q = y, *v = y + 7, *w = y + 14, *lam = y + 21;
  andrews_parts(q, v, M, ff, G, g);
  for (int i = 0; i < 7; i++) {
    f[i] = v[i];
    f[7 + i] = w[i];
    double s = ff[i];
    for (int j = 0; j < 7; j++) {
      s -= M[i * 7 + j] * w[j];
    }
    for (int k = 0; k < 6; k++) {
      s -= G[k * 7 + i] * lam[k];
    }
    f[14 + i] = s;
  }
  for (int k = 0; k < 6; k++) {
    f[21 + k] = g[k];
  }
}

/* R-callable: M, ff, G at (q, v) for the consistency check of the initial values
 * (.C interface: all pointers) */
void andrews_parts_r(double *q, double *v, double *M, double *ff, double *G, double *g) {
  andrews_parts(q, v, M, ff, G, g);
}

/* ---- car axis: y = (xl, yl, xr, yr, ul, vl, ur, vr, lambda1, lambda2); q' = u,
 * k u' = forces + constraint forces, 0 = g(t, q). */
static const double ca_eps = 1e-2, ca_M = 10, ca_L = 1, ca_L0 = 0.5, ca_r = 0.1, ca_w = 10,
                    ca_g = 1;

void caraxis_f(int *neq, double *t, double *y, double *f, double *yout, int *ip) {
  (void)neq, (void)yout, (void)ip;
  ncalls++;
  double k = ca_M * ca_eps * ca_eps / 2;
  double yb_ = ca_r * sin(ca_w * *t), xb_ = sqrt(ca_L * ca_L - yb_ * yb_);
  double xl = y[0], yl = y[1], xr = y[2], yr = y[3], l1 = y[8], l2 = y[9];
  double Ll = sqrt(xl * xl + yl * yl);
  double Lr = sqrt((xr - xb_) * (xr - xb_) + (yr - yb_) * (yr - yb_));
  for (int i = 0; i < 4; i++) {
    f[i] = y[4 + i];
  }
  f[4] = (ca_L0 - Ll) * xl / Ll + l1 * xb_ + 2 * l2 * (xl - xr);
  f[5] = (ca_L0 - Ll) * yl / Ll + l1 * yb_ + 2 * l2 * (yl - yr) - k * ca_g;
  f[6] = (ca_L0 - Lr) * (xr - xb_) / Lr - 2 * l2 * (xl - xr);
  f[7] = (ca_L0 - Lr) * (yr - yb_) / Lr - 2 * l2 * (yl - yr) - k * ca_g;
  f[8] = xb_ * xl + yb_ * yl;
  f[9] = (xl - xr) * (xl - xr) + (yl - yr) * (yl - yr) - ca_L * ca_L;
}
