// The Catalyst module (insitu_module.h): ParaView Catalyst's legacy
// vtkCPProcessor API (ParaView 5.11) behind a table of C functions, loaded by
// insitu_loader.c. The only C++ in throng: VTK needs it. The channels' arrays are
// wrapped, not copied (vtkAOSDataArrayTemplate::SetArray with save = 1:
// VTK never frees them); the vertex cells of the agents are prefixes of one
// 0, 1, 2, ... array kept across calls, so a call costs no O(n) work here.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <vtkCPDataDescription.h>
#include <vtkCPInputDataDescription.h>
#include <vtkCPProcessor.h>
#include <vtkCPPythonPipeline.h>
#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkFloatArray.h>
#include <vtkIdTypeArray.h>
#include <vtkIntArray.h>
#include <vtkMPI.h>
#include <vtkNew.h>
#include <vtkPVVersion.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPythonInterpreter.h>
#include <vtkRenderingOpenGLConfigure.h> // VTK_USE_X
#include <vtkSmartPointer.h>
#include <vtkTypeInt32Array.h>
#include <vtkTypeUInt32Array.h>

extern "C" {
#include "insitu_module.h"
}

// An X connection of the module's own, opened before VTK's and kept open
// until Catalyst closes (libX11 through dlopen: the module need not link
// it). Kept open, it stops the X server from resetting between clients: an
// Xvfb started without -noreset resets when its last client leaves and
// drops the connections that arrive meanwhile, which made VTK abort now and
// then when several ranks connected at once.
struct x_hold {
  void *display = nullptr;
  int (*close)(void *) = nullptr;
};

struct adaptor {
  MPI_Comm comm;
  vtkCPProcessor *processor;
  vtkSmartPointer<vtkPolyData> geometry;
  std::vector<vtkIdType> iota; // 0, 1, 2, ...: offsets and connectivity of the vertex cells
  x_hold x;
};

namespace {

template <class Array, class T>
vtkSmartPointer<Array> wrap(const char *name, const T *data, size_t n, int components) {
  auto a = vtkSmartPointer<Array>::New();
  a->SetName(name);
  a->SetNumberOfComponents(components);
  // save = 1: the array belongs to throng and outlives the call
  a->SetArray(const_cast<T *>(data), static_cast<vtkIdType>(n * components), 1);
  return a;
}

vtkSmartPointer<vtkPolyData> build_geometry(const thr_insitu_geometry *g, int rank) {
  auto pd = vtkSmartPointer<vtkPolyData>::New();
  vtkNew<vtkPoints> pts;
  vtkNew<vtkCellArray> lines;
  vtkNew<vtkIntArray> kind, index;
  kind->SetName("kind");
  index->SetName("index");
  pts->SetDataTypeToFloat();
  if (g && rank == 0) { // one piece holds the geometry; the others are empty
    for (int p = 0; p < g->n_points; ++p) pts->InsertNextPoint(g->points + 3 * p);
    for (int k = 0; k < g->n_shapes; ++k) {
      int a = g->first[k], b = g->first[k + 1];
      lines->InsertNextCell(b - a + (g->closed[k] ? 1 : 0));
      for (int p = a; p < b; ++p) lines->InsertCellPoint(p);
      if (g->closed[k]) lines->InsertCellPoint(a);
      kind->InsertNextValue(g->kind[k]);
      index->InsertNextValue(g->index[k]);
    }
  }
  pd->SetPoints(pts);
  pd->SetLines(lines);
  pd->GetCellData()->AddArray(kind);
  pd->GetCellData()->AddArray(index);
  return pd;
}

vtkSmartPointer<vtkPolyData> build_agents(adaptor *c, const thr_insitu_agents *a) {
  size_t n = a->n;
  if (c->iota.size() < n + 1) {
    size_t old = c->iota.size();
    c->iota.resize(n + n / 4 + 64);
    for (size_t i = old; i < c->iota.size(); ++i) c->iota[i] = static_cast<vtkIdType>(i);
  }
  auto pd = vtkSmartPointer<vtkPolyData>::New();
  vtkNew<vtkPoints> pts;
  pts->SetData(wrap<vtkFloatArray>("points", a->points, n, 3));
  pd->SetPoints(pts);
  // one vertex per agent: without cells, ParaView's representations show nothing
  vtkNew<vtkCellArray> verts;
  verts->SetData(wrap<vtkIdTypeArray>("offsets", c->iota.data(), n + 1, 1),
                 wrap<vtkIdTypeArray>("connectivity", c->iota.data(), n, 1));
  pd->SetVerts(verts);
  vtkPointData *d = pd->GetPointData();
  d->AddArray(wrap<vtkFloatArray>("velocity", a->velocity, n, 3));
  d->AddArray(wrap<vtkFloatArray>("speed", a->speed, n, 1));
  d->AddArray(wrap<vtkTypeUInt32Array>("id", a->id, n, 1));
  d->AddArray(wrap<vtkTypeInt32Array>("group", a->group, n, 1));
  d->AddArray(wrap<vtkFloatArray>("radius", a->radius, n, 1));
  d->AddArray(wrap<vtkTypeUInt32Array>("state", a->state, n, 1));
  d->SetActiveScalars("speed");
  d->SetActiveVectors("velocity");
  return pd;
}

// A path as a Python string literal (bytes escaped: any file name works).
std::string python_string(const char *path) {
  std::string out = "b'";
  for (const unsigned char *p = reinterpret_cast<const unsigned char *>(path); *p; ++p) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "\\x%02x", *p);
    out += hex;
  }
  return out + "'.decode('utf-8', 'surrogateescape')";
}

// Whether the script renders (a view): with ParaView built for X (Debian's),
// rendering without an X server aborts the process, so open looks first.
bool script_renders(const char *path) {
  std::FILE *f = std::fopen(path, "rb");
  if (!f) return false;
  std::string text;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
  std::fclose(f);
  return text.find("CreateView") != std::string::npos || text.find("CreateRenderView") != std::string::npos;
}

bool x_display_open(x_hold *x) {
#ifdef VTK_USE_X
  void *x11 = dlopen("libX11.so.6", RTLD_NOW | RTLD_LOCAL);
  if (!x11) return false;
  auto xopen = reinterpret_cast<void *(*)(const char *)>(dlsym(x11, "XOpenDisplay"));
  x->close = reinterpret_cast<int (*)(void *)>(dlsym(x11, "XCloseDisplay"));
  for (int attempt = 0; xopen && x->close && !x->display && attempt < 10; ++attempt) {
    x->display = xopen(nullptr);
    if (!x->display && std::getenv("DISPLAY")) usleep(100000); // a reset in progress
  }
  return x->display != nullptr; // libX11 stays loaded: VTK uses it
#else
  (void)x;
  return true; // EGL or OSMesa: no X server needed
#endif
}

void x_display_close(x_hold *x) {
  if (x->display) x->close(x->display);
  x->display = nullptr;
}

// Every rank's verdict: 1 when all succeeded.
int all_ok(MPI_Comm comm, int ok) {
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
  return ok;
}

const char *catalyst_description() {
  static char text[96];
  std::snprintf(text, sizeof text, "ParaView %s Catalyst (legacy API)", PARAVIEW_VERSION_FULL);
  return text;
}

void catalyst_close(void *impl) {
  adaptor *c = static_cast<adaptor *>(impl);
  if (!c) return;
  if (c->processor) {
    c->processor->Finalize(); // each script's finalize, then Python's
    c->processor->Delete();
  }
  x_display_close(&c->x);
  delete c;
}

int catalyst_open(void **out, MPI_Comm comm, const char *const *scripts, int n_scripts, const char *workdir,
                  const thr_insitu_geometry *geometry, char *err, size_t errlen) {
  *out = nullptr;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  adaptor *c = new adaptor();
  c->comm = comm;
  c->processor = vtkCPProcessor::New();
  vtkMPICommunicatorOpaqueComm opaque(&c->comm);
  if (!all_ok(comm, c->processor->Initialize(opaque, workdir))) {
    std::snprintf(err, errlen, "ParaView Catalyst did not start (vtkCPProcessor::Initialize failed)");
    catalyst_close(c);
    return -1;
  }
  for (int k = 0; k < n_scripts; ++k) {
    // Catalyst imports a script at its first call; compiling it now finds
    // syntax errors before the run writes anything. Python prints the
    // traceback on stderr; the message names the script.
    std::string check = "compile(open(" + python_string(scripts[k]) + ", 'rb').read(), " +
                        python_string(scripts[k]) + ", 'exec')";
    int ok = rank != 0 || vtkPythonInterpreter::RunSimpleString(check.c_str()) == 0; // one traceback, not P
    ok = all_ok(comm, ok);
    if (ok && script_renders(scripts[k]) && !c->x.display && !all_ok(comm, x_display_open(&c->x))) {
      const char *display = std::getenv("DISPLAY");
      std::snprintf(err, errlen,
                    "Catalyst script %s renders images, which this ParaView does through an X server, but the X "
                    "display %s%s%s could not be opened: run under xvfb-run -a -s '-screen 0 1280x1024x24 -noreset' "
                    "(docs/insitu.md)",
                    scripts[k], display ? "'" : "", display ? display : "(DISPLAY is not set)", display ? "'" : "");
      catalyst_close(c);
      return -1;
    }
    vtkSmartPointer<vtkCPPythonPipeline> p;
    if (ok) p = vtkCPPythonPipeline::CreateAndInitializePipeline(scripts[k]);
    ok = ok && p != nullptr && c->processor->AddPipeline(p);
    if (!all_ok(comm, ok)) {
      std::snprintf(err, errlen,
                    "Catalyst script %s: it did not load (the Python error is printed above); try it with "
                    "pvbatch, or run without it",
                    scripts[k]);
      catalyst_close(c);
      return -1;
    }
  }
  c->geometry = build_geometry(geometry, rank);
  *out = c;
  return 0;
}

int catalyst_execute(void *impl, const thr_insitu_agents *a, char *err, size_t errlen) {
  adaptor *c = static_cast<adaptor *>(impl);
  vtkNew<vtkCPDataDescription> dd;
  dd->AddInput("agents");
  dd->AddInput("geometry");
  dd->SetTimeData(a->time, a->step);
  if (!c->processor->RequestDataDescription(dd)) return 0; // no script wants this step
  vtkCPInputDataDescription *agents = dd->GetInputDescriptionByName("agents");
  vtkCPInputDataDescription *geometry = dd->GetInputDescriptionByName("geometry");
  agents->SetGrid(build_agents(c, a));
  geometry->SetGrid(c->geometry);
  int ok = c->processor->CoProcess(dd);
  // drop the wrapped arrays now: they point into buffers the next step reuses
  agents->SetGrid(nullptr);
  if (!all_ok(c->comm, ok)) {
    std::snprintf(err, errlen, "a Catalyst script failed at step %ld (the Python error is printed above)", a->step);
    return -1;
  }
  return 0;
}

const thr_insitu_module module_table = {THR_INSITU_ABI,  sizeof(thr_insitu_agents), sizeof(thr_insitu_geometry),
                                        catalyst_description, catalyst_open,         catalyst_execute,
                                        catalyst_close};

} // namespace

extern "C" __attribute__((visibility("default"))) const thr_insitu_module *thr_insitu_module_v1(void) {
  return &module_table;
}
