// The Catalyst module (insitu_module.h): ParaView Catalyst's legacy
// vtkCPProcessor API (ParaView 5.11) behind a table of C functions, loaded by
// insitu_loader.c. The only C++ in throng: VTK needs it. The channels' arrays are
// wrapped, not copied (vtkAOSDataArrayTemplate::SetArray with save = 1:
// VTK never frees them); the vertex cells of the agents are prefixes of one
// 0, 1, 2, ... array kept across calls, so a call costs no O(n) work here.
#include <vtkPython.h> // Python.h first, as Python asks; the exit guard reads its note

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

// ---- scripts that try to end the process --------------------------------
// A SystemExit reaching ParaView ends the process: its helper prints errors
// with PyErr_Print, which calls exit() for a SystemExit. A script's
// sys.exit(0) made throng exit 0 with run.json "running", and on one rank of
// several left the others waiting for ever in a collective extract. The
// guard, installed in the interpreter before any script loads, turns every
// way out (sys.exit, exit, quit, os._exit, raise SystemExit) into an
// exception that is no SystemExit, and notes which script tried (its level
// 3; any other error: 2). ParaView's entry points into a script
// (paraview.catalyst.v2_internals, looked up by name at every call) are
// wrapped so that the ranks agree there whether a script failed on any of
// them: all then fail before the collective extracts that follow. The
// module reads the note after each call (take_note).
const char *const exit_guard_py = R"py(
def _throng_install_exit_guard():
    import builtins, os, posix, sys, traceback, types
    from paraview.catalyst import v2_internals as api
    from vtkmodules.vtkCommonCore import vtkIntArray
    from vtkmodules.vtkParallelCore import vtkCommunicator, vtkMultiProcessController
    if '_throng_catalyst_guard' in sys.modules:
        return
    guard = types.ModuleType('_throng_catalyst_guard')
    guard.note = None  # this rank's first failure since the module looked: (level, message)
    guard.phase = ''   # the entry point running, as the message words it

    class CatalystScriptExit(BaseException):
        """A Catalyst script tried to end the process; the run fails instead."""
    CatalystScriptExit.__module__, CatalystScriptExit.__qualname__ = 'throng', 'CatalystScriptExit'
    guard.CatalystScriptExit = CatalystScriptExit

    def note(level, what, detail=''):
        try:
            script = api._get_script_filename() or 'unknown'
        except Exception:
            script = 'unknown'
        text = 'Catalyst script %s %s%s%s' % (script, what, guard.phase, detail)
        if guard.note is None:
            guard.note = (level, text)
        return text

    def ended(what):
        return CatalystScriptExit(note(3, what) + ': a Catalyst script may not end the run')

    def leaving(name):
        def leave(status=None):
            raise ended('called %s(%s)' % (name, '' if status is None else repr(status)))
        return leave

    pid, real_os_exit = os.getpid(), os._exit
    def os_exit(status):
        if os.getpid() != pid:  # a child a script forked ends as usual
            real_os_exit(status)
        raise ended('called os._exit(%r)' % (status,))
    sys.exit = leaving('sys.exit')
    builtins.exit, builtins.quit = leaving('exit'), leaving('quit')
    os._exit = posix._exit = os_exit

    def anyone(failed):  # collective
        c = vtkMultiProcessController.GetGlobalController()
        if c is None or c.GetNumberOfProcesses() < 2:
            return failed
        mine, every = vtkIntArray(), vtkIntArray()
        mine.InsertNextValue(1 if failed else 0)
        every.SetNumberOfValues(1)
        c.AllReduce(mine, every, vtkCommunicator.MAX_OP)
        return every.GetValue(0) != 0

    def guarded(name, phase, together):
        real = getattr(api, name, None)
        if real is None:  # another ParaView's entry points
            return
        def call(*args, **kwargs):
            guard.phase, error, result = phase, None, None
            try:
                result = real(*args, **kwargs)
            except SystemExit as e:  # raised directly, or an exit bound before the guard
                error = ended('raised SystemExit(%s)' % ('' if e.code is None else repr(e.code)))
                error = error.with_traceback(e.__traceback__)
            except BaseException as e:
                if not isinstance(e, CatalystScriptExit):
                    note(2, 'raised', ': ' + traceback.format_exception_only(type(e), e)[-1].strip())
                error = e
            guard.phase = ''
            if together and anyone(error is not None) and error is None:
                error = RuntimeError('a Catalyst script failed on another rank')
            if error is not None:
                raise error
            return result
        setattr(api, name, call)

    guarded('import_and_validate', ' while it was imported', True)
    guarded('do_catalyst_initialize', ' in catalyst_initialize', True)
    guarded('do_request_data_description', ' in RequestDataDescription', True)
    guarded('do_catalyst_execute', ' in catalyst_execute', True)
    guarded('do_catalyst_finalize', ' in catalyst_finalize', False)
    sys.modules['_throng_catalyst_guard'] = guard
_throng_install_exit_guard()
del _throng_install_exit_guard
)py";

enum note_level { NOTE_NONE, NOTE_FAILED, NOTE_RAISED, NOTE_EXIT };

// The guard's note of this rank since the last look, forgotten now:
// NOTE_NONE, NOTE_RAISED or NOTE_EXIT, with its message in text.
int take_note(std::string *text) {
  vtkPythonScopeGilEnsurer gil(true);
  PyObject *guard = PyDict_GetItemString(PyImport_GetModuleDict(), "_throng_catalyst_guard"); // borrowed
  if (!guard) return NOTE_NONE;
  PyObject *note = PyObject_GetAttrString(guard, "note");
  int level = NOTE_NONE;
  if (note && PyTuple_Check(note) && PyTuple_Size(note) == 2) {
    level = static_cast<int>(PyLong_AsLong(PyTuple_GetItem(note, 0)));
    const char *s = PyUnicode_AsUTF8(PyTuple_GetItem(note, 1));
    *text = s ? s : "a Catalyst script";
  }
  Py_XDECREF(note);
  PyObject_SetAttrString(guard, "note", Py_None);
  PyErr_Clear();
  return level == NOTE_RAISED || level == NOTE_EXIT ? level : NOTE_NONE;
}

// Every rank's verdict on a call (ok: what ParaView said), agreed over
// comm: 0 when all went well, else -1 with the worst rank's message in err
// on every rank (a script that tried to end the process first; then one that
// raised, with the error; else ParaView's failure).
int agree_on_call(MPI_Comm comm, int ok, long step, char *err, size_t errlen) {
  std::string note;
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int level = take_note(&note);
  if (level == NOTE_NONE && !ok) level = NOTE_FAILED;
  char on_rank[32] = "";
  if (size > 1) std::snprintf(on_rank, sizeof on_rank, " on rank %d", rank);
  if (level == NOTE_EXIT)
    std::snprintf(err, errlen, "%s, at step %ld%s: a Catalyst script may not end the run, so it fails",
                  note.c_str(), step, on_rank);
  else if (level == NOTE_RAISED)
    std::snprintf(err, errlen, "a Catalyst script failed at step %ld%s: %s%s", step, on_rank, note.c_str(),
                  rank == 0 ? " (the Python error is printed above)" : ""); // ParaView silences the other ranks
  struct {
    int level, rank;
  } mine = {level, rank}, worst;
  MPI_Allreduce(&mine, &worst, 1, MPI_2INT, MPI_MAXLOC, comm); // ties: the lowest rank
  if (worst.level >= NOTE_RAISED) MPI_Bcast(err, static_cast<int>(errlen), MPI_CHAR, worst.rank, comm);
  if (worst.level == NOTE_FAILED)
    std::snprintf(err, errlen, "a Catalyst script failed at step %ld (the Python error is printed above)", step);
  return worst.level == NOTE_NONE ? 0 : -1;
}

// The last resort: a process exit while ParaView runs a script that the
// guard did not see (a SystemExit raised in a ProgrammableFilter's Python,
// libc's exit through ctypes) ends every rank with status 1 at once
// (MPI_Abort), not with the script's status or a hang. Python's atexit runs
// it for a SystemExit (before any C handler, such as HDF5's, which closes
// trajectory.h5 collectively and would wait for the other ranks); a C
// handler, registered at the first call (after HDF5's, so it runs before),
// for exit() itself. run.json stays "running".
struct {
  MPI_Comm comm = MPI_COMM_NULL;
  long step = 0;
} running_script;

void exit_during_call() {
  if (running_script.comm == MPI_COMM_NULL) return;
  char when[48] = "at the end of the run";
  if (running_script.step >= 0) std::snprintf(when, sizeof when, "at step %ld", running_script.step);
  std::fprintf(stderr, "throng: a Catalyst script ended the process during the Catalyst call %s; the run failed\n",
               when);
  std::fflush(stderr);
  int size = 1;
  MPI_Comm_size(running_script.comm, &size);
  if (size > 1) MPI_Abort(running_script.comm, 1);
  _exit(1);
}

PyObject *exit_during_call_py(PyObject *, PyObject *) {
  if (running_script.step >= 0) exit_during_call(); // not Python's own end, in Catalyst's finalisation
  Py_RETURN_NONE;
}

PyMethodDef exit_during_call_def = {"throng_exit_during_call", exit_during_call_py, METH_NOARGS, nullptr};

// Marks a call into ParaView that runs scripts.
struct script_call {
  script_call(MPI_Comm comm, long step) { // step -1: Catalyst's finalisation
    static int registered = std::atexit(exit_during_call);
    (void)registered;
    running_script.comm = comm;
    running_script.step = step;
  }
  ~script_call() { running_script.comm = MPI_COMM_NULL; }
  script_call(const script_call &) = delete;
  script_call &operator=(const script_call &) = delete;
};

// The guard and the last resort in this rank's interpreter. 1 on success.
int guard_exits() {
  if (vtkPythonInterpreter::RunSimpleString(exit_guard_py) != 0) return 0;
  vtkPythonScopeGilEnsurer gil(true);
  PyObject *atexit = PyImport_ImportModule("atexit");
  PyObject *fn = PyCFunction_New(&exit_during_call_def, nullptr);
  PyObject *done = atexit && fn ? PyObject_CallMethod(atexit, "register", "O", fn) : nullptr;
  int ok = done != nullptr;
  if (!ok) PyErr_Print();
  Py_XDECREF(done);
  Py_XDECREF(fn);
  Py_XDECREF(atexit);
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
    script_call call(c->comm, -1);
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
  if (!all_ok(comm, guard_exits())) {
    std::snprintf(err, errlen, "ParaView Catalyst did not start: its Python could not be prepared for the scripts "
                               "(the Python error is printed above)");
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
  script_call call(c->comm, a->step);
  int wanted = c->processor->RequestDataDescription(dd);
  // a script's RequestDataDescription may have failed on one rank
  if (agree_on_call(c->comm, 1, a->step, err, errlen)) return -1;
  if (!wanted) return 0; // no script wants this step
  vtkCPInputDataDescription *agents = dd->GetInputDescriptionByName("agents");
  vtkCPInputDataDescription *geometry = dd->GetInputDescriptionByName("geometry");
  agents->SetGrid(build_agents(c, a));
  geometry->SetGrid(c->geometry);
  int ok = c->processor->CoProcess(dd); // imports the scripts at the first call
  // drop the wrapped arrays now: they point into buffers the next step reuses
  agents->SetGrid(nullptr);
  return agree_on_call(c->comm, ok, a->step, err, errlen);
}

const thr_insitu_module module_table = {THR_INSITU_ABI,  sizeof(thr_insitu_agents), sizeof(thr_insitu_geometry),
                                        catalyst_description, catalyst_open,         catalyst_execute,
                                        catalyst_close};

} // namespace

extern "C" __attribute__((visibility("default"))) const thr_insitu_module *thr_insitu_module_v1(void) {
  return &module_table;
}
