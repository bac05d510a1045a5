/* Subnormal numbers during a run (CHSRunOptions.subnormals; docs/sundials.md, "Subnormal numbers
 * in large systems").
 *
 * Some solutions hold values that decay geometrically through a large system: the tensions of
 * pendulum-chain:N=1e5 fall by about 10^-22 per thousand links, so beyond some 14 000 links they
 * are below DBL_MIN (2.2e-308) and 86 % of them are subnormal. An operation with a subnormal
 * operand or result takes a microcode assist (tens to hundreds of cycles on x86-64), and IDA + KLU
 * on that chain ran 3.4 times slower than with the same values at zero. Values below DBL_MIN are
 * below every tolerance chs accepts times any state's size, so flushing them to zero changes no
 * digit a run reports. The hardware does it when told, per thread: SSE's MXCSR (FTZ: results; DAZ:
 * operands) on x86-64, FPCR.FZ (both) on AArch64. chs_fp_begin sets those mode bits (FLUSH) and
 * returns the caller's state; chs_fp_end puts the caller's mode bits back, and the exception
 * flags the run raised stay raised, as they would without the flush. Elsewhere (or in x87 long
 * double arithmetic) nothing changes. */
#include "impl.h"

#if defined(__x86_64__) && defined(__SSE2__)
#include <xmmintrin.h>
#define CHS_FP_FLUSH_BITS 0x8040u /* MXCSR: FTZ (bit 15) | DAZ (bit 6) */
unsigned long chs_fp_begin(int subnormals) {
  unsigned int old = _mm_getcsr();
  if (subnormals == CHS_SUBNORMALS_FLUSH) {
    _mm_setcsr(old | CHS_FP_FLUSH_BITS);
  }
  return old;
}
void chs_fp_end(unsigned long saved) { /* the two modes back; the status flags raised stay */
  _mm_setcsr((_mm_getcsr() & ~CHS_FP_FLUSH_BITS) | ((unsigned int)saved & CHS_FP_FLUSH_BITS));
}
#elif defined(__aarch64__) && defined(__GNUC__)
#define CHS_FP_FLUSH_BITS (1ul << 24) /* FPCR.FZ */
unsigned long chs_fp_begin(int subnormals) {
  unsigned long old;
  __asm__ volatile("mrs %0, fpcr" : "=r"(old));
  if (subnormals == CHS_SUBNORMALS_FLUSH) {
    __asm__ volatile("msr fpcr, %0" : : "r"(old | CHS_FP_FLUSH_BITS));
  }
  return old;
}
void chs_fp_end(unsigned long saved) {
  unsigned long now;
  __asm__ volatile("mrs %0, fpcr" : "=r"(now));
  now = (now & ~CHS_FP_FLUSH_BITS) | (saved & CHS_FP_FLUSH_BITS);
  __asm__ volatile("msr fpcr, %0" : : "r"(now));
}
#else
unsigned long chs_fp_begin(int subnormals) {
  (void)subnormals;
  return 0;
}
void chs_fp_end(unsigned long saved) {
  (void)saved;
}
#endif
