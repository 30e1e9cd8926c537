// scaler.scale(values, factor) -> list: the values times factor, computed on the GPU.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <vector>

#include "scaler.h"

static PyObject* scale(PyObject*, PyObject* args) {
  PyObject* seq = nullptr;
  float factor = 1.0f;
  if (!PyArg_ParseTuple(args, "Of", &seq, &factor)) return nullptr;
  PyObject* fast = PySequence_Fast(seq, "values must be a sequence");
  if (fast == nullptr) return nullptr;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  std::vector<float> values(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    values[i] = static_cast<float>(PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fast, i)));
  }
  Py_DECREF(fast);
  if (PyErr_Occurred()) return nullptr;
  char message[256] = {0};
  if (scaler_run(values.data(), static_cast<int>(n), factor, message, sizeof message) != 0) {
    PyErr_SetString(PyExc_RuntimeError, message);
    return nullptr;
  }
  PyObject* out = PyList_New(n);
  for (Py_ssize_t i = 0; i < n; ++i) PyList_SET_ITEM(out, i, PyFloat_FromDouble(values[i]));
  return out;
}

static PyMethodDef methods[] = {
    {"scale", scale, METH_VARARGS, "Scale a sequence of floats on the GPU."},
    {nullptr, nullptr, 0, nullptr},
};

static PyModuleDef module = {PyModuleDef_HEAD_INIT, "scaler", nullptr, -1, methods};

PyMODINIT_FUNC PyInit_scaler() { return PyModule_Create(&module); }
