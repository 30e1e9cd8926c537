// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 6.2
// NCCL is RCCL: the API keeps its names; the header moves.
// CHECK: #include <rccl/rccl.h>
#include <nccl.h>

void allreduce(float* buf, size_t count, int rank, int nranks, ncclUniqueId id, cudaStream_t s) {
  // CHECK: ncclComm_t comm;
  ncclComm_t comm;
  // CHECK: ncclCommInitRank(&comm, nranks, id, rank);
  ncclCommInitRank(&comm, nranks, id, rank);
  // CHECK: ncclAllReduce(buf, buf, count, ncclFloat, ncclSum, comm, s);
  ncclAllReduce(buf, buf, count, ncclFloat, ncclSum, comm, s);
  // CHECK: ncclBroadcast(buf, buf, count, ncclFloat, 0, comm, s);
  ncclBroadcast(buf, buf, count, ncclFloat, 0, comm, s);
  // CHECK: hipStreamSynchronize(s);
  cudaStreamSynchronize(s);
  // CHECK: ncclCommDestroy(comm);
  ncclCommDestroy(comm);
}
