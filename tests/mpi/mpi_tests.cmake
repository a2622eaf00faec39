# MPI tests (label `mpi`): the domain decomposition on several ranks.
# Included from tests/CMakeLists.txt (THRONG_EXE, THRONG_TEST_ENV, Python3).
# tests/mpi/check_mpi.py documents every check. The runs oversubscribe: on a
# 2-core machine 8 ranks share 2 cores, one OpenMP thread each.
if(NOT MPIEXEC_EXECUTABLE)
  message(STATUS "MPI tests: no mpiexec found; label mpi is empty")
  return()
endif()

set(THRONG_MPI_CHECK ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_mpi.py ${THRONG_MPI_ARGS} ${THRONG_EXE})
set(THRONG_MPI_DATA ${CMAKE_SOURCE_DIR}/tests/data/mpi)

function(throng_mpi_test name procs)
  add_test(NAME mpi.${name} COMMAND ${THRONG_MPI_CHECK} ${ARGN})
  set_tests_properties(mpi.${name} PROPERTIES LABELS mpi ENVIRONMENT "${THRONG_MPI_ENV}" PROCESSORS ${procs}
                                              TIMEOUT 600)
endfunction()

# Decomposition invariance: 2, 3 and 4 ranks write the 1-rank final state,
# byte for byte (long-range constraint, no walls; walls, no long range).
throng_mpi_test(equal.dense-passing-low-lr 4 equal ${CMAKE_SOURCE_DIR}/configs/paper/dense-passing-low-lr.yaml
                --ranks 1,2,3,4 --steps 300)
throng_mpi_test(equal.bottleneck-3600 4 equal ${CMAKE_SOURCE_DIR}/configs/paper/bottleneck-3600.yaml
                --ranks 1,2,3,4 --steps 300)

# The pedestrian preset (time-gap law, avoidance, routing, a goal point):
# 1-4 ranks byte-identical, re-partitioning as the room empties.
throng_mpi_test(equal.pedestrian 4 equal ${THRONG_MPI_DATA}/pedestrian.yaml --ranks 1,2,3,4 --steps 400)
# Congestion-aware routing with exit choice by time (tests/data/mpi/exit-choice.yaml):
# counts summed over ranks as integers, the same fields on every rank; 1-4
# ranks byte-identical while re-partitioning.
throng_mpi_test(equal.exit-choice 4 equal ${THRONG_MPI_DATA}/exit-choice.yaml --ranks 1,2,3,4 --steps 360)

# Migration stress: two dense lanes walk across the world in opposite
# directions (once they are up to speed, agents change rank on almost every
# step: 650-900 migrations in 300 steps) while the partition is re-balanced
# every 5 steps; nothing is lost or duplicated and the result equals the
# 1-rank run. The exchange is packed by the backend: through MPI on the CPU
# backend (or a CUDA build without NCCL), in device memory over NCCL.
throng_mpi_test(migration.lanes 4 equal ${THRONG_MPI_DATA}/lanes.yaml --ranks 1,3,4
                --min-migration-steps 200 --min-repartitions 3
                --expect-stderr "migration and ghosts (packed by the backend|in device memory)")
# The same through the host path of migration and ghosts (the backend's
# select/extract/append operations; THRONG_DEVICE_EXCHANGE=0, decision 0018).
throng_mpi_test(migration.lanes-host-path 4 equal ${THRONG_MPI_DATA}/lanes.yaml --ranks 1,3,4
                --min-migration-steps 200 --min-repartitions 3 --env THRONG_DEVICE_EXCHANGE=0
                --expect-stderr "migration and ghosts through the host")

# Load balancing: bottleneck-3600 on 4 ranks, checked every 10 steps with a
# low threshold so it re-partitions often; every re-partition ends at
# max/mean owned <= 1.10, and the run still equals the 1-rank run.
throng_mpi_test(balance.bottleneck-3600 4 equal ${CMAKE_SOURCE_DIR}/configs/paper/bottleneck-3600.yaml
                --ranks 1,4 --steps 300 --set decomposition.balance_every=10
                --set decomposition.balance_threshold=1.02 --max-imbalance 1.10 --min-repartitions 3)

# Subdomains narrower than the ghost width: 8 ranks on a corridor 4 cells
# high; ghosts come straight from ranks several slabs away.
throng_mpi_test(narrow.corridor-8 8 equal ${THRONG_MPI_DATA}/narrow.yaml --ranks 1,8 --expect-narrow
                --min-migration-steps 100)

# Agents that jump past the next rank's slab in one step: their new owner is
# no neighbour, so they wait for the all-ranks exchange that the step's
# conservation check triggers; nothing is lost and the result equals 1 rank's.
throng_mpi_test(migration.far-jumps 4 equal ${THRONG_MPI_DATA}/far-jumps.yaml --ranks 1,4
                --expect-stderr "wait for an all-ranks exchange")

# More ranks than grid cells: exit status 2 naming the largest rank count.
throng_mpi_test(refuse.too-many-ranks 5 refuse ${THRONG_MPI_DATA}/tiny.yaml --ranks 5 --largest 4)

# The conservation check works: ranks that lose an arriving agent (a fault
# injected with THRONG_DECOMP_FAULT) stop the run with a message naming the
# step and the rank.
throng_mpi_test(conservation.fault 3 fault ${THRONG_MPI_DATA}/lanes.yaml --ranks 3 --fault-step 100)

# The halo transport (THRONG_HALO_TRANSPORT, decision 0007): a bad value and
# NCCL asked of a backend without device buffers stop the run at start-up,
# naming the variable, before anything is written.
throng_mpi_test(transport.bad-value 2 refuse ${CMAKE_SOURCE_DIR}/configs/paper/bottleneck-3600.yaml --ranks 2
                --env THRONG_HALO_TRANSPORT=nvlink
                --message "THRONG_HALO_TRANSPORT: 'nvlink' is not one of auto, nccl, mpi")
throng_mpi_test(transport.nccl-refused 2 refuse ${CMAKE_SOURCE_DIR}/configs/paper/bottleneck-3600.yaml --ranks 2
                --backend cpu --env THRONG_HALO_TRANSPORT=nccl --status any
                --message "THRONG_HALO_TRANSPORT=nccl, but NCCL cannot carry the halo: the cpu backend")
# The same on GPUs, one rank each (label gpu; skipped, status 77, with fewer
# GPUs than the test needs): NCCL carries the halo and the once-per-step
# exchange stays in device memory (the backend's exchange_* operations).
function(throng_gpu_mpi_test name gpus)
  add_test(NAME gpu.mpi.${name} COMMAND ${THRONG_MPI_CHECK} ${ARGN} --backend cuda --need-gpus ${gpus}
                                        --env THRONG_HALO_TRANSPORT=nccl)
  set_tests_properties(gpu.mpi.${name} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 ENVIRONMENT "${THRONG_MPI_ENV}"
                                                  PROCESSORS ${gpus} TIMEOUT 600)
endfunction()
set(THRONG_ON_DEVICE "halo transport nccl.*migration and ghosts in device memory")
# 2 GPUs: byte-identical to one rank, agents migrating on most steps.
throng_gpu_mpi_test(nccl-equal 2 equal ${THRONG_MPI_DATA}/lanes.yaml --ranks 1,2 --expect-stderr ${THRONG_ON_DEVICE}
                    --min-migration-steps 100)
# 4 GPUs: the migration stress with re-partitions every 5 steps (those go
# through the host), agents that jump past a neighbour (kept on the host,
# then the all-ranks exchange), and a lost agent caught by the conservation
# check although the host never sees the migrating records.
throng_gpu_mpi_test(device-lanes 4 equal ${THRONG_MPI_DATA}/lanes.yaml --ranks 1,3,4 --expect-stderr ${THRONG_ON_DEVICE}
                    --min-migration-steps 200 --min-repartitions 3)
throng_gpu_mpi_test(device-far-jumps 4 equal ${THRONG_MPI_DATA}/far-jumps.yaml --ranks 1,4
                    --expect-stderr "wait for an all-ranks exchange")
throng_gpu_mpi_test(device-fault 3 fault ${THRONG_MPI_DATA}/lanes.yaml --ranks 3 --fault-step 100)
# MPI through host buffers (this GPU machine's Open MPI is not CUDA-aware):
# the GPU still selects and packs, and the packed records cross once each
# way; ranks may share a GPU. Re-partitions every 5 steps.
add_test(NAME gpu.mpi.packed-host-mpi COMMAND ${THRONG_MPI_CHECK} equal ${THRONG_MPI_DATA}/lanes.yaml --ranks 1,3
                                              --backend cuda --need-gpus 1 --env THRONG_HALO_TRANSPORT=mpi
                                              --expect-stderr "migration and ghosts packed by the backend"
                                              --min-migration-steps 200 --min-repartitions 3)
set_tests_properties(gpu.mpi.packed-host-mpi PROPERTIES LABELS gpu SKIP_RETURN_CODE 77
                                                        ENVIRONMENT "${THRONG_MPI_ENV}" PROCESSORS 3 TIMEOUT 600)
