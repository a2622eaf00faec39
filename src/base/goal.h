/* Goal shapes as plain data: what the scenario defines and the world holds.
 * The functions that steer agents to them are in kernels/goals.h. */
#ifndef THRONG_GOAL_H
#define THRONG_GOAL_H

enum { THR_GOAL_POINT = 0, THR_GOAL_RECT = 1, THR_GOAL_DISK = 2 };

/* agent goal_set values below zero */
enum { THR_GOALSET_PERSONAL = -1, THR_GOALSET_NONE = -2 };

typedef struct thr_goal {
  int kind;
  float ax, ay; /* point; rect min corner; disk centre */
  float bx, by; /* rect max corner */
  float r;      /* disk radius */
} thr_goal;

#endif
