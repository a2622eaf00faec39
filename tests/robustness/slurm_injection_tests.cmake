# Job scripts and ensemble manifests as data (issue 38, classes 6 and 7).
# A manifest cell with a line break, a control character or an option for
# throng is refused by scripts/ensemble.py, jobs/ensemble.sbatch and
# jobs/submit-ensemble.sh, naming the file, line and column, before anything
# runs (tests/slurm/check_manifest_injection.py; no Slurm needed).
add_test(NAME robustness.ensemble_manifest_injection
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/slurm/check_manifest_injection.py ${CMAKE_SOURCE_DIR})
set_tests_properties(robustness.ensemble_manifest_injection PROPERTIES LABELS robustness TIMEOUT 120)

# jobs/chain.sbatch hands SCENARIO and OUT with commas, ",THRONG=/bin/echo,"
# and "%j" in them to the next link verbatim, on the private Slurm of the
# slurm tests (tests/slurm/check_slurm.py, case chain_paths; root and the
# Slurm packages, else skipped).
add_test(NAME robustness.slurm_chain_paths
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/slurm/check_slurm.py ${THRONG_EXE} chain_paths
                 --source ${CMAKE_SOURCE_DIR})
set_tests_properties(robustness.slurm_chain_paths PROPERTIES LABELS "robustness;slurm" ENVIRONMENT "${THRONG_MPI_ENV}"
                     SKIP_RETURN_CODE 77 TIMEOUT 600 RESOURCE_LOCK slurm PROCESSORS 2)
