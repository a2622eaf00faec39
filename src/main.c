/* The `throng` command line: run, check, report, info, schema (docs/user-guide.md).
 * Exit status: 0 success, 1 runtime failure, 2 bad input or usage, 3 the
 * state became non-finite, 75 checkpointed on SIGTERM/SIGUSR1/SIGHUP, 128 + N stopped by signal N (src/run.h). */
#define _XOPEN_SOURCE 700 /* execvp, readlink, realpath */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/geometry.h"
#include "build_info.h"
#include "core/measure.h"
#include "core/populate.h"
#include "core/routes.h"
#include "core/sim.h"
#include "io/checkpoint.h"
#include "io/config.h"
#include "io/input_file.h"
#include "io/output.h"
#include "io/models.h"
#include "io/schema.h"
#include "io/trajectory.h"
#include "io/yamltree.h"
#include "kernels/pass_list.h"
#include "insitu/insitu.h"
#include "run.h"

enum { EXIT_RUNTIME = 1, EXIT_BAD_INPUT = 2, MAX_SETS = 256 };

static int g_rank;

static void usage(FILE *f) {
  fprintf(f,
          "usage: throng run SCENARIO.yaml [options]   run a scenario\n"
          "       throng check SCENARIO.yaml [run options]\n"
          "                                            validate a scenario (with the --set overrides)\n"
          "                                            and print a summary; takes every run option, so\n"
          "                                            a job can check the command line it will run\n"
          "       throng report OUTDIR [--out DIR]     figures and an HTML page of a run's outputs, in\n"
          "                                            OUTDIR/report/ (or DIR); needs python3-matplotlib\n"
          "       throng info                          build features, backends, MPI library\n"
          "       throng schema                        every scenario key as markdown tables\n"
          "                                            (type, default, meaning; docs/configuration.md)\n"
          "       throng --help | --version\n"
          "\n"
          "run options:\n"
          "  --steps N           run until step N (default: the scenario's time.steps)\n"
          "  --out DIR           output directory (default: output.dir, or out/<name>)\n"
          "  --no-output         write no output directory (metrics, trajectories, run.json)\n"
          "  --overwrite         replace the outputs of an earlier run in the output directory\n"
          "  --set KEY=VALUE     override a scenario key, e.g. --set solver.iterations=8 (repeatable)\n"
          "  --final-state FILE  write every agent as id,x,y,vx,vy (sorted by id, hexadecimal floats)\n"
          "  --backend NAME      cpu or cuda (default: cuda when built with it and a GPU is present)\n"
          "  --restart FILE      continue from a checkpoint (OUTDIR/checkpoints/latest.h5) on any rank\n"
          "                      count; the outputs go to a new output directory\n"
          "  --catalyst SCRIPT   run a ParaView Catalyst script every catalyst.every steps (repeatable;\n"
          "                      configs/catalyst/ has some; docs/insitu.md)\n"
          "  --timing            synchronise the backend around phases for exact per-phase times\n"
          "  --quiet             no progress line and no summary\n"
          "\n"
          "report: runs python3 on the report script (THRONG_REPORT_SCRIPT, else\n"
          "  <prefix>/share/throng/report.py, else the source tree's scripts/report.py);\n"
          "  its options: throng report --help; exit status 0 page written, 1 failure (e.g. no\n"
          "  matplotlib), 2 not an output directory\n"
          "\n"
          "Under MPI (mpirun -n P throng run ...) one simulation is split over P ranks.\n"
          "Exit status: 0 done, 1 runtime failure, 2 bad input, 3 the state became non-finite,\n"
          "75 stopped by SIGTERM, SIGUSR1 or SIGHUP after writing a checkpoint (restart from it),\n"
          "128+N stopped by signal N (SIGINT; SIGTERM, SIGUSR1, SIGHUP without an output directory); outputs\n"
          "end with the last completed step.\n"
          "Docs: docs/user-guide.md, scenario keys: docs/configuration.md\n");
}

/* Print on rank 0 only; user text in msg (paths, names) reaches the
 * terminal with unprintable bytes escaped. */
static void say(FILE *f, const char *fmt, const char *msg) {
  if (g_rank != 0) return;
  char safe[4096];
  snprintf(safe, sizeof safe, "%s", msg);
  thr_text_escape(safe, sizeof safe);
  fprintf(f, fmt, safe);
}

static int finish(int code) {
  MPI_Finalize();
  return code;
}

typedef struct cli {
  const char *command;
  const char *scenario;
  const char *sets[MAX_SETS];
  int n_sets;
  long steps; /* -1: scenario default */
  const char *out;
  int no_output;
  const char *final_state;
  const char *backend;
  const char *restart;
  const char *catalyst[THR_MAX_CATALYST_SCRIPTS];
  int n_catalyst;
  int quiet, timing, overwrite;
} cli;

/* A whole number >= 0 of any length (leading zeros, a leading '+'):
 * 0, or -1 when it is not one, -2 when it does not fit a long. */
static int parse_count(const char *s, long *out) {
  const char *d = *s == '+' ? s + 1 : s;
  if (!*d || strspn(d, "0123456789") != strlen(d)) return -1;
  while (d[0] == '0' && d[1]) d++;
  errno = 0;
  long v = strtol(d, NULL, 10);
  if (errno == ERANGE) return -2;
  *out = v;
  return 0;
}

/* Returns 0, or 2 after printing a usage error. */
static int parse_cli(int argc, char **argv, cli *c) {
  char msg[512];
  memset(c, 0, sizeof *c);
  c->steps = -1;
  c->command = argv[1];
  /* check takes run's options too (validated, then unused but --set), so
   * that a job script checks exactly the command line it will run */
  int run_options = !strcmp(c->command, "run") || !strcmp(c->command, "check");
  for (int k = 2; k < argc; ++k) {
    const char *a = argv[k];
    const char *val = k + 1 < argc ? argv[k + 1] : NULL;
    int takes_value = !strcmp(a, "--set") || (run_options && (!strcmp(a, "--steps") || !strcmp(a, "--out") ||
                                                         !strcmp(a, "--final-state") || !strcmp(a, "--backend") ||
                                                         !strcmp(a, "--restart") || !strcmp(a, "--catalyst")));
    if (takes_value && !val) {
      snprintf(msg, sizeof msg, "%s needs a value", a);
      say(stderr, "throng: %s\n", msg);
      return EXIT_BAD_INPUT;
    }
    if (!strcmp(a, "--set")) {
      if (c->n_sets == MAX_SETS) {
        say(stderr, "throng: %s\n", "too many --set options");
        return EXIT_BAD_INPUT;
      }
      c->sets[c->n_sets++] = argv[++k];
    } else if (run_options && !strcmp(a, "--steps")) {
      int bad = parse_count(argv[++k], &c->steps);
      if (bad) {
        snprintf(msg, sizeof msg, "--steps %.64s%s: expected a whole number >= 0%s", argv[k],
                 strlen(argv[k]) > 64 ? "..." : "", bad == -2 ? " of at most 9223372036854775807" : "");
        say(stderr, "throng: %s\n", msg);
        return EXIT_BAD_INPUT;
      }
    } else if (run_options && !strcmp(a, "--out")) {
      c->out = argv[++k];
    } else if (run_options && !strcmp(a, "--final-state")) {
      c->final_state = argv[++k];
    } else if (run_options && !strcmp(a, "--backend")) {
      c->backend = argv[++k];
      if (strcmp(c->backend, "cpu") && strcmp(c->backend, "cuda")) {
        snprintf(msg, sizeof msg, "--backend %.64s: unknown backend (known: cpu, cuda)", c->backend);
        say(stderr, "throng: %s\n", msg);
        return EXIT_BAD_INPUT;
      }
    } else if (run_options && !strcmp(a, "--restart")) {
      c->restart = argv[++k];
    } else if (run_options && !strcmp(a, "--catalyst")) {
      if (c->n_catalyst == THR_MAX_CATALYST_SCRIPTS) {
        snprintf(msg, sizeof msg, "--catalyst: at most %d scripts", THR_MAX_CATALYST_SCRIPTS);
        say(stderr, "throng: %s\n", msg);
        return EXIT_BAD_INPUT;
      }
      c->catalyst[c->n_catalyst++] = argv[++k];
    } else if (run_options && !strcmp(a, "--quiet")) {
      c->quiet = 1;
    } else if (run_options && !strcmp(a, "--timing")) {
      c->timing = 1;
    } else if (run_options && !strcmp(a, "--no-output")) {
      c->no_output = 1;
    } else if (run_options && !strcmp(a, "--overwrite")) {
      c->overwrite = 1;
    } else if (a[0] == '-' && a[1]) {
      snprintf(msg, sizeof msg, "unknown option '%s' for '%s' (see throng --help)", a, c->command);
      say(stderr, "throng: %s\n", msg);
      return EXIT_BAD_INPUT;
    } else if (!c->scenario) {
      c->scenario = a;
    } else {
      snprintf(msg, sizeof msg, "unexpected argument '%s' (one scenario file per run)", a);
      say(stderr, "throng: %s\n", msg);
      return EXIT_BAD_INPUT;
    }
  }
  if (!c->scenario) {
    snprintf(msg, sizeof msg, "'%s' needs a scenario file (see throng --help)", c->command);
    say(stderr, "throng: %s\n", msg);
    return EXIT_BAD_INPUT;
  }
  if (c->out && c->no_output) {
    say(stderr, "throng: %s\n", "--out and --no-output exclude each other");
    return EXIT_BAD_INPUT;
  }
  return 0;
}

static int cmd_info(void) {
  if (g_rank != 0) return 0;
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0, major = 0, minor = 0;
  MPI_Get_library_version(lib, &len);
  MPI_Get_version(&major, &minor);
  char *nl = strchr(lib, '\n');
  if (nl) *nl = '\0';
  printf("throng %s (%s build, %s)\n", THRONG_VERSION, THRONG_BUILD_TYPE, THRONG_C_COMPILER);
  printf("backends:\n  cpu    yes (OpenMP: %s)\n", THRONG_FEATURE_OPENMP);
#ifdef THRONG_HAVE_CUDA
  printf("  cuda   built; %d GPU(s) visible\n", thr_cuda_device_count());
#else
  printf("  cuda   not built (configure with -DTHRONG_CUDA=ON)\n");
#endif
  printf("default backend: %s\n", thr_default_backend());
  printf("MPI: %s (MPI standard %d.%d)\n", lib, major, minor);
  char path[1100], module[1200] = "";
  if (thr_insitu_available()) snprintf(module, sizeof module, " (module %s)", thr_insitu_module_path(path, sizeof path));
  printf("optional components:\n  HDF5      %s\n  Catalyst  %s%s\n  GEOS      %s (obstacles cut out of the "
         "outputs' walkable area)\n", THRONG_FEATURE_HDF5, THRONG_FEATURE_CATALYST, module, THRONG_FEATURE_GEOS);
  printf("strict floating point (THRONG_STRICT_FP): %s\n", THRONG_FEATURE_STRICT_FP);
  return 0;
}

/* The key reference; docs/configuration.md carries the same tables. */
static int cmd_schema(int argc) {
  if (argc > 2) {
    say(stderr, "throng: %s\n", "'schema' takes no arguments (see throng --help)");
    return EXIT_BAD_INPUT;
  }
  if (g_rank == 0) thr_schema_print_markdown(stdout);
  return 0;
}

static const char *layout_name(int l, char *buf, size_t len) {
  return thr_key_choice(thr_schema_find("agents[].layout"), l, buf, len);
}

static int count_only(uint32_t id, thr_vec2 x, void *user) {
  (void)id;
  (void)x;
  ++*(long *)user;
  return 0;
}

/* The cost of the fields that see the crowd (routing.congestion): the
 * engine's memory, one recomputation timed on this host, and that time
 * spread over the steps between recomputations. */
static void print_routing_cost(const thr_routing *r, const thr_world *w, const thr_params *prm) {
  if (!r->n_dynamic) return;
  size_t bytes = 0;
  double sec = 0.0;
  long rounds = 0;
  if (thr_routing_probe(r, w, &bytes, &sec, &rounds)) {
    printf("  crowd      out of memory for timing a recomputation of the fields that see the crowd\n");
    return;
  }
  printf("  crowd      %d field(s) recomputed every %ld steps (%g s): %.3g MB more on every rank; one recomputation "
         "took %.3g s here (%ld solver rounds, nobody in the way), %.3g ms a step on the CPU\n",
         r->n_dynamic, r->every, (double)r->every * (double)prm->dt, (double)bytes / 1e6, sec, rounds,
         1e3 * sec / (double)r->every);
}

/* What each agent costs in fields: the groups this run stores and those
 * it does not (decision 0014). */
static void print_groups(thr_field_mask which, const char *first) {
  const char *sep = first;
  for (int g = 0; g < THR_GROUP_COUNT; ++g) {
    thr_field_mask m = thr_fields_of_group(g);
    if (m & which) printf("%s%s %zu", sep, thr_field_group_name(g), thr_fields_bytes(m)), sep = ", ";
  }
}
static void print_field_bytes(const thr_params *prm) {
  thr_field_mask absent = thr_fields_absent(prm);
  printf("  fields     %zu bytes per agent stored (", thr_fields_bytes(~absent));
  print_groups(~absent, "");
  printf(")");
  print_groups(absent, "; not stored in this run: ");
  printf("\n");
}

/* A measurement line whose end stands in the open counts only those who do
 * not walk round it: a hint (the scenario stays valid). */
#define LINE_OPEN_END 0.6 /* [m]: farther than a body from every wall */
static void print_line_hints(const thr_scenario *sc) {
  for (int k = 0; k < sc->n_lines; ++k) {
    double gap[2];
    thr_measure_line_gaps(sc, k, gap);
    for (int e = 0; e < 2; ++e) {
      if (!(gap[e] > LINE_OPEN_END)) continue;
      thr_vec2 p = e ? sc->lines[k].b : sc->lines[k].a;
      printf("  hint       measurement.lines[%d] ('%s', line %d): its end [%g, %g] is %.2g m from the nearest wall: "
             "agents can walk round it and not be counted; draw the line from wall to wall across the passage\n",
             k, sc->lines[k].name, sc->lines[k].line, (double)p.x, (double)p.y, gap[e]);
    }
  }
}

static void print_summary(const thr_scenario *sc, const thr_world *w, const thr_params *p, long total) {
  char path[sizeof sc->path * 4];
  snprintf(path, sizeof path, "%s", sc->path);
  thr_text_escape(path, sizeof path);
  printf("scenario %s (%s)\n", sc->name, path);
  if (sc->description[0]) {
    char text[sizeof sc->description * 4];
    snprintf(text, sizeof text, "%s", sc->description);
    thr_text_escape(text, sizeof text);
    printf("  %s\n", text);
  }
  printf("  world      [%g, %g] x [%g, %g] m, grid %d x %d cells of %g m\n", (double)sc->world_min.x,
         (double)sc->world_max.x, (double)sc->world_min.y, (double)sc->world_max.y, w->gnx, w->gny,
         (double)w->cell);
  if (p->dim3) {
    char plane[32];
    if (thr_model_plans_itself(p)) /* its own plan: no separation plane */
      printf("  3D         floor %g m, ceiling %g m (docs/3d.md)\n", (double)p->z_min, (double)p->z_max);
    else
      printf("  3D         floor %g m, ceiling %g m, separation plane %s (docs/3d.md)\n", (double)p->z_min,
             (double)p->z_max, thr_key_choice(thr_schema_find("avoidance.plane"), p->av_plane, plane, sizeof plane));
  }
  printf("  time       dt %.6g s, %ld steps (%.2f s)\n", (double)p->dt, sc->steps, (double)sc->steps * p->dt);
  printf("  agents     %ld in %d block(s)%s\n", total, sc->n_blocks - sc->n_sources,
         sc->n_sources ? ", and the sources' blocks" : "");
  for (int b = 0; b < sc->n_blocks; ++b) {
    const thr_block *k = &sc->blocks[b];
    char layout[32], route[96], speed[96];
    if (k->route_kind == THR_ROUTE_NEAREST_EXIT)
      snprintf(route, sizeof route, "exit nearest");
    else if (k->route_kind == THR_ROUTE_EXIT)
      snprintf(route, sizeof route, "exit %s", sc->exit_names[k->route]);
    else if (k->route_kind == THR_ROUTE_JOURNEY)
      snprintf(route, sizeof route, "journey %s", sc->journeys[k->route].name);
    else
      snprintf(route, sizeof route, "goal %s",
               k->goal_kind == THR_BGOAL_SET         ? "named"
               : k->goal_kind == THR_BGOAL_POINT     ? "point"
               : k->goal_kind == THR_BGOAL_OFFSET    ? "offset"
               : k->goal_kind == THR_BGOAL_ANTIPODAL ? "antipodal"
                                                     : "none");
    if (k->speed_dist.kind == THR_DIST_NORMAL)
      snprintf(speed, sizeof speed, "%g sd %g in %g-%g", (double)k->speed_dist.a, (double)k->speed_dist.b,
               (double)k->speed_dist.lo, (double)k->speed_dist.hi);
    else
      snprintf(speed, sizeof speed, "%g+-%g", (double)k->speed_mean, (double)k->speed_spread);
    printf("    [%d] %-16s %-7s group %d  radius %g-%g  mass %g-%g  speed %s  %s%s%s\n", b, k->name,
           k->source ? "source" : layout_name(k->layout, layout, sizeof layout), k->group, (double)k->radius_min,
           (double)k->radius_max, (double)k->mass_min, (double)k->mass_max, speed, route,
           k->premove.kind ? "  premovement " : "",
           k->premove.kind == THR_DIST_CONST ? "fixed" : k->premove.kind ? "drawn" : "");
    if (p->dim3 && k->goal_altitude == k->goal_altitude)
      printf("        altitude %g-%g m, goal altitude %g m\n", (double)k->altitude_min, (double)k->altitude_max,
             (double)k->goal_altitude);
    else if (p->dim3)
      printf("        altitude %g-%g m, goal at the agent's altitude\n", (double)k->altitude_min,
             (double)k->altitude_max);
  }
  printf("  goals      %d", sc->n_goals);
  for (int g = 0; g < sc->n_goals; ++g) printf("%s%s", g ? ", " : " (", sc->goal_names[g]);
  printf("%s\n", sc->n_goals ? ")" : "");
  printf("  obstacles  %d (%d vertices)%s\n", sc->n_obstacles, sc->n_verts,
         sc->walkable.n_polys ? ", the walkable area's walls among them" : "");
  if (sc->walkable.n_polys)
    printf("  walkable   %d polygon(s), %d hole(s), %.6g m^2\n", sc->walkable.n_polys,
           sc->walkable.n_rings - sc->walkable.n_polys, thr_polyset_area(&sc->walkable));
  if (sc->n_exits) {
    printf("  exits      %d", sc->n_exits);
    for (int e = 0; e < sc->n_exits; ++e) printf("%s%s", e ? ", " : " (", sc->exit_names[e]);
    printf("), routing cells of %g m, clearance %g m (0 = largest radius)\n", (double)sc->route_cell,
           (double)sc->route_clearance);
  }
  if (sc->n_stages) {
    static const char *const kinds[] = {"waypoint", "exit", "queue", "waiting"};
    printf("  stages     %d", sc->n_stages);
    for (int s = 0; s < sc->n_stages; ++s) {
      const thr_stage_def *st = &sc->stages[s];
      printf("%s%s %s", s ? ", " : " (", st->name, kinds[st->kind]);
      if (st->n_slots) printf(" of %d slot(s)", st->n_slots);
      if (st->kind == THR_STAGE_EXIT) printf(" %s", sc->exit_names[st->exit]);
    }
    printf(")\n");
  }
  if (sc->n_journeys) {
    printf("  journeys   %d", sc->n_journeys);
    for (int j = 0; j < sc->n_journeys; ++j)
      printf("%s%s from %s", j ? ", " : " (", sc->journeys[j].name, sc->stages[sc->journeys[j].first_stage].name);
    printf(")\n");
  }
  for (int s = 0; s < sc->n_sources; ++s) {
    const thr_source_def *src = &sc->sources[s];
    printf("  source     %s: %g agents/s from %g s", src->name, (double)src->rate, (double)src->start);
    if (src->stop >= 0) printf(" to %g s", (double)src->stop);
    if (src->count) printf(", at most %ld", src->count);
    printf(" (block [%d])\n", src->block);
  }
  if (sc->areas.n_polys || sc->n_lines || sc->map_every)
    printf("  measure    %d area(s), %d line(s), maps %s every %d steps (cells of %g m)\n", sc->areas.n_polys,
           sc->n_lines, sc->map_every ? "sampled" : "off:", sc->map_every, (double)sc->map_cell);
  print_line_hints(sc);
  thr_model_of(p->model_kind)->summary(stdout, sc, p);
  printf("  output     %s, trajectory every %d steps, metrics every %d steps\n",
         sc->out_dir[0] ? sc->out_dir : "out/<name>", sc->trajectory_every, sc->metrics_every);
}

/* Load the command's scenario; on bad input print why (rank 0) and fail. */
/* --catalyst scripts after the scenario's catalyst.scripts: 0, or -1 with
 * why in err. */
static int add_catalyst_scripts(const cli *c, thr_scenario *sc, char *err, size_t errlen) {
  for (int k = 0; k < c->n_catalyst; ++k) {
    const char *script = c->catalyst[k];
    char why[160];
    if (thr_input_check(script, THR_INPUT_MAX_SCRIPT, why, sizeof why)) {
      snprintf(err, errlen, "--catalyst %.900s: cannot read the script: %s", script, why);
      return -1;
    }
    if (sc->n_catalyst_scripts == THR_MAX_CATALYST_SCRIPTS) {
      snprintf(err, errlen, "--catalyst %.900s: too many scripts with catalyst.scripts (at most %d)", script,
               THR_MAX_CATALYST_SCRIPTS);
      return -1;
    }
    /* Catalyst runs in the output directory: the script's absolute path */
    char *abs = realpath(script, NULL);
    if (!abs || strlen(abs) >= sizeof sc->catalyst_scripts[0]) {
      snprintf(err, errlen, "--catalyst %.900s: the path is too long or cannot be resolved", script);
      free(abs);
      return -1;
    }
    snprintf(sc->catalyst_scripts[sc->n_catalyst_scripts++], sizeof sc->catalyst_scripts[0], "%s", abs);
    free(abs);
  }
  return 0;
}

static int load_scenario(const cli *c, thr_scenario *sc) {
  char err[2048] = "";
  if (!thr_config_load(c->scenario, c->sets, c->n_sets, sc, err, sizeof err) &&
      !add_catalyst_scripts(c, sc, err, sizeof err))
    return 0;
  say(stderr, "throng: %s\n", err);
  thr_scenario_free(sc);
  return -1;
}

static int output_options(const thr_scenario *sc, thr_run_opts *o, char *err, size_t errlen);

static int cmd_check(const cli *c) {
  char err[2048] = "";
  thr_scenario sc;
  if (load_scenario(c, &sc)) return EXIT_BAD_INPUT;
  thr_params prm = sc.prm;
  thr_world w;
  memset(&w, 0, sizeof w);
  long total = 0;
  /* what `run` would refuse of this build (HDF5, Catalyst), then sizes and
   * memory before placing anything (one process) */
  thr_run_opts unused = {0};
  long n = 0;
  int rc = output_options(&sc, &unused, err, sizeof err);
  if (!rc) n = thr_scenario_count(&sc, err, sizeof err);
  if (!rc) rc = n < 0 || thr_scenario_fits(&sc, n, 1, 1, err, sizeof err) ? -1 : 0;
  if (!rc) rc = thr_world_init(&w, &sc, &prm, thr_scenario_max_radius(&sc), err, sizeof err);
  /* the distance fields, as a run computes them: unreachable exits and
   * stages, and their memory */
  double t_routes = MPI_Wtime();
  thr_routing routing;
  memset(&routing, 0, sizeof routing);
  if (!rc) rc = thr_routes_build(&w, &sc, &prm, &routing, err, sizeof err) ? -1 : 0;
  t_routes = MPI_Wtime() - t_routes;
  if (!rc) rc = thr_sources_check(&sc, &w, err, sizeof err);
  if (!rc) {
    thr_agents none;
    thr_agents_init(&none);
    rc = thr_populate(&sc, &w, &prm, count_only, &total, &none, err, sizeof err);
    thr_agents_free(&none);
  }
  if (rc) {
    say(stderr, "throng: %s\n", err);
  } else if (g_rank == 0) {
    print_summary(&sc, &w, &prm, total);
    if (w.n_fields)
      printf("  routes     %d distance field(s) of %d x %d cells: %.3g MB on every rank (computed in %.2f s)\n",
             w.n_fields, w.fnx, w.fny, (double)thr_routes_bytes(&w) / 1e6, t_routes);
    print_routing_cost(&routing, &w, &prm);
    print_field_bytes(&prm);
    printf("ok\n");
  }
  thr_routing_free(&routing);
  thr_world_free(&w);
  thr_scenario_free(&sc);
  return rc ? EXIT_BAD_INPUT : 0;
}

/* The output directory of a run: --out, output.dir, or out/<name>. */
static int output_dir(const cli *c, const thr_scenario *sc, char *dir, size_t size) {
  const char *d = c->out ? c->out : sc->out_dir; /* an empty --out is refused when claimed */
  int n = c->out || (d && *d) ? snprintf(dir, size, "%s", d) : snprintf(dir, size, "out/%s", sc->name);
  return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* Rank 0 claims the output directory (out_dir.h: checked, created, locked
 * for the run's lifetime) and checks --final-state before anything
 * expensive runs; every rank learns. */
static int check_paths(const cli *c, const char *dir, thr_out_dir *claim, char *err, size_t errlen) {
  int rc = 0;
  if (g_rank == 0) {
    rc = !c->no_output && thr_out_dir_claim(claim, dir, c->overwrite, err, errlen);
    if (!rc && c->final_state)
      rc = thr_output_check_final_state(c->final_state, c->no_output ? NULL : dir, c->scenario, err, errlen) != 0;
    if (rc) thr_out_dir_release(claim);
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return rc;
}

/* Is `path` inside directory `dir` (both as they resolve now)? */
static int is_inside(const char *path, const char *dir) {
  char *p = realpath(path, NULL), *d = realpath(dir, NULL);
  size_t n = d ? strlen(d) : 0;
  int in = p && d && !strncmp(p, d, n) && p[n] == '/';
  free(p);
  free(d);
  return in;
}

/* What the scenario's output keys ask of this build: 0, or -1 with why. */
static int output_options(const thr_scenario *sc, thr_run_opts *o, char *err, size_t errlen) {
  o->trajectory_hdf5 = sc->trajectory_format == THR_TRAJ_HDF5 ||
                       (sc->trajectory_format == THR_TRAJ_AUTO && thr_trajectory_available());
  o->compression = sc->compression;
  o->checkpoint_every = sc->checkpoint_every;
  o->checkpoint_keep = sc->checkpoint_keep;
  if (sc->trajectory_format == THR_TRAJ_HDF5 && !thr_trajectory_available()) {
    snprintf(err, errlen, "%.900s: output.trajectory_format is hdf5, but this throng was built without HDF5 "
             "(THRONG_HDF5); install libhdf5-openmpi-dev and rebuild, or use csv", sc->path);
    return -1;
  }
  if (sc->n_catalyst_scripts > 0 && !thr_insitu_available()) {
    snprintf(err, errlen, "%.900s: Catalyst script %.900s asked for, but this throng was built without ParaView "
             "Catalyst: install paraview-dev (scripts/setup.sh does) and rebuild (docs/insitu.md)",
             sc->path, sc->catalyst_scripts[0]);
    return -1;
  }
  if (sc->checkpoint_every > 0 && !thr_checkpoint_available()) {
    snprintf(err, errlen, "%.900s: output.checkpoint_every is %d, but this throng was built without HDF5 "
             "(THRONG_HDF5), which checkpoints need", sc->path, sc->checkpoint_every);
    return -1;
  }
  return 0;
}

static int cmd_run(const cli *c) {
  char err[2048] = "";
  thr_scenario sc;
  if (load_scenario(c, &sc)) return EXIT_BAD_INPUT;
  char dir[THR_PATH_MAX];
  thr_run_opts o = {0};
  thr_out_dir claim = {.fd = -1};
  int rc = 0;
  if (output_dir(c, &sc, dir, sizeof dir)) {
    snprintf(err, sizeof err, "the output directory's path is too long");
    rc = EXIT_BAD_INPUT;
  } else if (output_options(&sc, &o, err, sizeof err)) {
    rc = EXIT_BAD_INPUT;
  } else if (c->restart && !c->no_output && is_inside(c->restart, dir)) {
    snprintf(err, sizeof err,
             "--restart %.900s: the checkpoint lies in the output directory %.900s, which this run would replace; "
             "give the restarted run another --out",
             c->restart, dir);
    rc = EXIT_BAD_INPUT;
  } else if (check_paths(c, dir, &claim, err, sizeof err)) {
    rc = EXIT_BAD_INPUT;
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  thr_checkpoint *ck = NULL;
  if (!rc && c->restart) {
    char why[160]; /* a missing file is reported by thr_checkpoint_open */
    if (!access(c->restart, F_OK) && thr_input_check(c->restart, -1, why, sizeof why)) {
      snprintf(err, sizeof err, "--restart %.900s: cannot read the checkpoint: %s", c->restart, why);
      rc = EXIT_BAD_INPUT;
    }
  }
  if (!rc && c->restart) {
    int crc = thr_checkpoint_open(&ck, c->restart, &sc, MPI_COMM_WORLD, err, sizeof err);
    rc = crc == 0 ? 0 : crc == -1 ? EXIT_BAD_INPUT : EXIT_RUNTIME;
  }
  if (rc) {
    say(stderr, "throng: %s\n", err);
    thr_out_dir_release(&claim);
    thr_scenario_free(&sc);
    return rc;
  }
  thr_sim sim;
  thr_agent_source src = ck ? thr_checkpoint_agents(ck) : (thr_agent_source){0};
  int irc = thr_sim_init_from(&sim, &sc, c->backend, ck ? &src : NULL, MPI_COMM_WORLD, err, sizeof err);
  if (irc) rc = irc == -1 ? EXIT_BAD_INPUT : EXIT_RUNTIME;
  if (!rc && ck && thr_checkpoint_restore_sim(ck, &sim, err, sizeof err)) rc = EXIT_BAD_INPUT;
  long last = c->steps >= 0 ? c->steps : sc.steps;
  if (!rc && last < sim.step) {
    snprintf(err, sizeof err, "%.900s is at step %ld, past the last step of this run (%ld: %s); ask for more with --steps",
             c->restart, sim.step, last, c->steps >= 0 ? "--steps" : "time.steps");
    rc = EXIT_BAD_INPUT;
  }
  /* set-up done: only now the earlier run's outputs go (--overwrite) */
  if (!rc && g_rank == 0 && thr_out_dir_clear_earlier(&claim, err, sizeof err)) rc = EXIT_RUNTIME;
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rc) {
    say(stderr, "throng: %s\n", err);
    thr_out_dir_release(&claim);
    thr_sim_free(&sim);
    thr_checkpoint_close(ck);
    thr_scenario_free(&sc);
    return rc;
  }
  sim.timing = c->timing;
  o.steps = last - sim.step;
  o.out_dir = c->no_output ? NULL : dir;
  o.final_state = c->final_state;
  o.quiet = c->quiet;
  o.trajectory_every = sc.trajectory_every;
  o.metrics_every = sc.metrics_every;
  o.map_every = sc.map_every;
  o.n_catalyst = sc.n_catalyst_scripts;
  o.catalyst_every = sc.catalyst_every;
  o.restart = ck;
  o.restart_path = c->restart;
  if (g_rank == 0 && !c->quiet) {
    char line[1400];
    int n = snprintf(line, sizeof line, "%.128s: %ld agents, %ld steps, backend %s, %d rank(s)", sc.name,
                     sim.n_global, o.steps, sim.be->ops->name, sim.nranks);
    if (ck && n > 0 && (size_t)n < sizeof line)
      snprintf(line + n, sizeof line - (size_t)n, ", from step %ld of %.1000s", sim.step, c->restart);
    say(stderr, "throng: %s\n", line);
  }
  rc = thr_run(&sim, &sc, &o, err, sizeof err);
  if (rc) say(stderr, "throng: %s\n", err);
  thr_out_dir_release(&claim);
  thr_sim_free(&sim);
  thr_checkpoint_close(ck);
  thr_scenario_free(&sc);
  return rc;
}

/* ---- throng report: python3 runs scripts/report.py ---------------------- */

static int is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The report script: $THRONG_REPORT_SCRIPT, else the installed copy beside
 * the executable (<prefix>/bin/throng -> <prefix>/share/throng/report.py),
 * else the source tree's. 0 when found; else -1 with the places tried in
 * `tried`. */
static int report_script(const char *argv0, char *path, size_t size, char *tried, size_t tried_len) {
  const char *env = getenv("THRONG_REPORT_SCRIPT");
  if (env && *env) {
    snprintf(path, size, "%s", env);
    snprintf(tried, tried_len, "THRONG_REPORT_SCRIPT=%s, which is not a file", env);
    return is_file(path) ? 0 : -1;
  }
  tried[0] = '\0';
  char exe[THR_PATH_MAX] = "";
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0 && (size_t)n < sizeof exe - 1)
    exe[n] = '\0';
  else if (strchr(argv0, '/') && strlen(argv0) < sizeof exe)
    snprintf(exe, sizeof exe, "%s", argv0);
  else
    exe[0] = '\0';
  char *slash = strrchr(exe, '/');
  if (slash) {
    *slash = '\0';
    int len = snprintf(path, size, "%s/../share/throng/report.py", exe);
    if (len > 0 && (size_t)len < size && is_file(path)) return 0;
    snprintf(tried, tried_len, "%.*s", (int)(tried_len > 1 ? tried_len - 1 : 0), path);
  }
#ifdef THRONG_SOURCE_DIR
  int len = snprintf(path, size, "%s/scripts/report.py", THRONG_SOURCE_DIR);
  if (len > 0 && (size_t)len < size && is_file(path)) return 0;
  size_t used = strlen(tried);
  snprintf(tried + used, tried_len - used, "%s%s", used ? ", " : "", path);
#endif
  return -1;
}

/* Replaces this process with `python3 SCRIPT ARGS...`, so that the script's
 * exit status is the command's. Runs before MPI starts: nothing to finalise. */
static int cmd_report(int argc, char **argv) {
  if (argc < 3) {
    say(stderr, "throng: %s\n", "'report' needs a run's output directory (see throng --help)");
    return EXIT_BAD_INPUT;
  }
  char script[THR_PATH_MAX], tried[3 * THR_PATH_MAX];
  if (report_script(argv[0], script, sizeof script, tried, sizeof tried)) {
    say(stderr, "throng: the report script was not found (%s); point THRONG_REPORT_SCRIPT at scripts/report.py\n",
        tried);
    return EXIT_RUNTIME;
  }
  char **args = calloc((size_t)argc + 1, sizeof *args);
  if (!args) {
    say(stderr, "throng: %s\n", "out of memory");
    return EXIT_RUNTIME;
  }
  args[0] = "python3";
  args[1] = script;
  for (int k = 2; k < argc; ++k) args[k] = argv[k];
  args[argc] = NULL;
  fflush(stdout);
  fflush(stderr);
  execvp(args[0], args);
  char msg[256];
  snprintf(msg, sizeof msg, "cannot run python3 (%s); install python3 and python3-matplotlib", strerror(errno));
  say(stderr, "throng: %s\n", msg);
  free(args);
  return EXIT_RUNTIME;
}

int main(int argc, char **argv) {
  /* report needs no MPI: it becomes a Python process */
  if (argc >= 2 && !strcmp(argv[1], "report")) return cmd_report(argc, argv);
  /* a run catches SIGTERM, SIGUSR1 and SIGHUP from its first moment (MPI_Init can
   * take a while on a busy node), and again after MPI_Init in case the MPI
   * library installed handlers of its own */
  int run_options = argc >= 2 && !strcmp(argv[1], "run");
  if (run_options) thr_run_watch_signals();
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  if (run_options) thr_run_watch_signals();
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  if (argc < 2) {
    if (g_rank == 0) usage(stderr);
    return finish(EXIT_BAD_INPUT);
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    if (g_rank == 0) usage(stdout);
    return finish(0);
  }
  if (!strcmp(cmd, "--version")) {
    if (g_rank == 0) printf("throng %s\n", THRONG_VERSION);
    return finish(0);
  }
  if (!strcmp(cmd, "info")) return finish(cmd_info());
  if (!strcmp(cmd, "schema")) return finish(cmd_schema(argc));
  if (strcmp(cmd, "run") && strcmp(cmd, "check")) {
    if (g_rank == 0) fprintf(stderr, "throng: unknown command '%s' (see throng --help)\n", cmd);
    return finish(EXIT_BAD_INPUT);
  }
  cli c;
  int rc = parse_cli(argc, argv, &c);
  if (rc) return finish(rc);
  return finish(!strcmp(cmd, "run") ? cmd_run(&c) : cmd_check(&c));
}
