i
CUDA_CB#include CUDA_CB<cuda_runtime.h>