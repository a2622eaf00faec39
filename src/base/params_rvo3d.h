/* The 3D ORCA model's parameters (RVO2-3D's algorithm, reimplemented;
 * model.kind rvo3d; seed paper 003's comparator, docs/3d.md): its keys
 * rvo3d.*. A member of thr_params's model union (params.h): only an rvo3d
 * run holds them. */
#ifndef THRONG_PARAMS_RVO3D_H
#define THRONG_PARAMS_RVO3D_H

/* Neighbours a 3D ORCA agent takes into its linear program, at most. */
enum { THR_RVO3D_MAX_NEIGHBORS = 16 };

typedef struct thr_rvo3d_params {
  float range;   /* rvo3d.neighbor_dist: neighbours closer than this (3D centre distance) count [m] */
  int neighbors; /* the nearest this many, at most THR_RVO3D_MAX_NEIGHBORS */
  float horizon; /* time horizon tau of the half-spaces [s] */
  float share;   /* each agent's share of the avoidance (1/2: reciprocal) */
} thr_rvo3d_params;

#endif
