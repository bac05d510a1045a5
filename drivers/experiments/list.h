/* The one list of experiments of `chs reproduce`: CHS_EXPERIMENT(symbol) per line. */
CHS_EXPERIMENT(chs_experiment_seiler_dirac_pendulum)
CHS_EXPERIMENT(chs_experiment_seiler_fj_pendulum)
CHS_EXPERIMENT(chs_experiment_leimkuhler_reich_stability)
CHS_EXPERIMENT(chs_experiment_seiler_impetus)
CHS_EXPERIMENT(chs_experiment_leimkuhler_reich_ssf)
CHS_EXPERIMENT(chs_experiment_seiler_momentum_projection)
