#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "ops.h"

PYBIND11_MODULE(_ops, m) {
  m.doc() = "GPU vector operations (CUDA sources, built for AMD GPUs by CASS)";
  m.def("device_count", &ops::device_count, "GPUs the runtime sees (0 without one)");
  m.def("runtime", &ops::runtime, "HIP or CUDA: what the kernels were built against");
  m.def("axpby", &ops::axpby, "a * x + b * y", pybind11::arg("a"), pybind11::arg("x"),
        pybind11::arg("b"), pybind11::arg("y"));
  m.def("dot", &ops::dot, "sum of x[i] * y[i]", pybind11::arg("x"), pybind11::arg("y"));
}
