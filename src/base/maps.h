/* The maps a run writes (measurement.maps; maps/NAME.csv and the arrays of
 * maps/maps.vti), declared once: core/measure.c computes them in this
 * order, io/evac_output.c writes them, docs/output.md describes them. */
#ifndef THRONG_BASE_MAPS_H
#define THRONG_BASE_MAPS_H

#define THR_MAPS(X)                                                                                          \
  X(DENSITY, "density", "agents per m² averaged over the samples")                                          \
  X(SPEED, "speed", "mean speed of the agents counted in the cell [m/s]")                                   \
  X(DENSITY_MAX, "density_max", "highest density in one sample [1/m²]")                                     \
  X(TIME_ABOVE, "time_above", "seconds during which the density was at or above measurement.maps.threshold") \
  X(LAST_OCCUPIED, "last_occupied", "time of the last sample in which the cell held an agent [s]")

enum {
#define THR_X(ID, name, doc) THR_MAP_##ID,
  THR_MAPS(THR_X)
#undef THR_X
      THR_N_MAPS
};

#endif
