// The CPython module, written against the C API alone: no pybind11, so the
// package needs nothing at build time beyond setuptools and cass-build.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string>
#include <vector>

#include "softmax.h"

namespace {

// softmax(rows: list[list[float]]) -> list[list[float]]
PyObject* py_softmax(PyObject*, PyObject* arg) {
  PyObject* outer = PySequence_Fast(arg, "softmax() takes a list of rows");
  if (!outer) return nullptr;
  const Py_ssize_t n_rows = PySequence_Fast_GET_SIZE(outer);
  Py_ssize_t n_cols = -1;
  std::vector<float> flat;
  for (Py_ssize_t r = 0; r < n_rows; ++r) {
    PyObject* row = PySequence_Fast(PySequence_Fast_GET_ITEM(outer, r), "each row must be a list");
    if (!row) {
      Py_DECREF(outer);
      return nullptr;
    }
    const Py_ssize_t len = PySequence_Fast_GET_SIZE(row);
    if (n_cols >= 0 && len != n_cols) {
      Py_DECREF(row);
      Py_DECREF(outer);
      PyErr_SetString(PyExc_ValueError, "rows differ in length");
      return nullptr;
    }
    n_cols = len;
    for (Py_ssize_t c = 0; c < len; ++c) {
      double v = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(row, c));
      if (v == -1.0 && PyErr_Occurred()) {
        Py_DECREF(row);
        Py_DECREF(outer);
        return nullptr;
      }
      flat.push_back(static_cast<float>(v));
    }
    Py_DECREF(row);
  }
  Py_DECREF(outer);
  if (n_cols < 0) n_cols = 0;

  std::vector<float> result;
  std::string error;
  Py_BEGIN_ALLOW_THREADS
  error = softmax::rows(flat, static_cast<int>(n_rows), static_cast<int>(n_cols), result);
  Py_END_ALLOW_THREADS
  if (!error.empty()) {
    PyErr_SetString(PyExc_RuntimeError, error.c_str());
    return nullptr;
  }
  PyObject* out = PyList_New(n_rows);
  if (!out) return nullptr;
  for (Py_ssize_t r = 0; r < n_rows; ++r) {
    PyObject* row = PyList_New(n_cols);
    if (!row) {
      Py_DECREF(out);
      return nullptr;
    }
    for (Py_ssize_t c = 0; c < n_cols; ++c) {
      PyList_SET_ITEM(row, c, PyFloat_FromDouble(result[r * n_cols + c]));
    }
    PyList_SET_ITEM(out, r, row);
  }
  return out;
}

PyObject* py_runtime(PyObject*, PyObject*) { return PyUnicode_FromString(softmax::runtime()); }

PyMethodDef methods[] = {
    {"softmax", py_softmax, METH_O, "Row-wise softmax of a list of equal-length rows."},
    {"runtime", py_runtime, METH_NOARGS, "HIP or CUDA: what the kernel was built against."},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef module = {PyModuleDef_HEAD_INIT, "_softmax", "Softmax on the GPU.", -1, methods};

}  // namespace

PyMODINIT_FUNC PyInit__softmax() { return PyModule_Create(&module); }
