/* The parallel N_Vector's element-wise operations, compiled with chs's optimisation: Debian's
 * SUNDIALS builds its parallel vector without (as its serial one, src/base/nvector.c), and in
 * a distributed chain integrated by an explicit method its linear sums and scalings were about
 * 30 % of the run's instructions. The operations are the serial vector's (src/base/nvector_ops.inc)
 * on each rank's local part: none of them communicates, so each rank's result is bitwise what
 * SUNDIALS' parallel vector computes. The reductions (norms, dot products), which communicate, stay
 * SUNDIALS'. */
#include <math.h>
#include <nvector/nvector_parallel.h>
#include "mpi_impl.h"

#define CHS_NV_DATA NV_DATA_P
#define CHS_NV_LEN NV_LOCLENGTH_P
#include "../base/nvector_ops.inc"

void chs_mpi_nvector_fast_ops(N_Vector v) {
  if (v && v->ops && v->ops->nvgetvectorid && N_VGetVectorID(v) == SUNDIALS_NVEC_PARALLEL) {
    chs_nv_install_local(v->ops);
  }
}
