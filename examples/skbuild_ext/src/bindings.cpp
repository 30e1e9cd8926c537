#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "stencil.h"

PYBIND11_MODULE(_stencil, m) {
  m.doc() = "1-D heat equation on the GPU (CUDA source, built for AMD GPUs by CASS)";
  m.def("runtime", &stencil::runtime);
  m.def("device_count", &stencil::device_count);
  m.def("heat", &stencil::heat, pybind11::arg("u"), pybind11::arg("alpha") = 0.25f,
        pybind11::arg("steps") = 1);
}
