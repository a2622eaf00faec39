# Slurm tests (label slurm; tests/slurm/check_slurm.py documents each case):
# the job scripts of jobs/ submitted to a private single-node Slurm that each
# test starts and stops (tests/slurm/local_slurm.sh). They need root and the
# Debian packages slurmctld, slurmd, slurm-client and munge (scripts/setup.sh
# installs them); otherwise they skip (77). One at a time (RESOURCE_LOCK): a
# cluster on 2 cores is enough for one test.
foreach(case cpu_job chain ensemble bad_override binding_none binding_affinity)
  add_test(NAME slurm.${case}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_slurm.py ${THRONG_EXE} ${case}
                   --source ${CMAKE_SOURCE_DIR})
  set_tests_properties(slurm.${case} PROPERTIES LABELS slurm ENVIRONMENT "${THRONG_MPI_ENV}" SKIP_RETURN_CODE 77
                                                TIMEOUT 900 RESOURCE_LOCK slurm PROCESSORS 2)
endforeach()

# the manifest of an ensemble, without Slurm
add_test(NAME unit.ensemble_manifest COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_manifest.py
                                             ${CMAKE_SOURCE_DIR})
set_tests_properties(unit.ensemble_manifest PROPERTIES LABELS unit)

# the ensemble's statistics, without Slurm: exact Student's t quantiles (issue 36)
add_test(NAME unit.ensemble_stats COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_ensemble_stats.py)
set_tests_properties(unit.ensemble_stats PROPERTIES LABELS unit)
