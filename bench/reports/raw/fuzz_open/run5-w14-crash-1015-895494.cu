td k(unsigned* o) {
  unsigned r, a, b, c;
  asm volatile("atom.acq_rel.gpu.global.or.b32 %0, [%1], %2;" : "=r"(r) : "l"(out + 20), "r"(1u << ned r, a, b, c;
  asm("mov.u32 %0, %%lanemask_gt;" : "=r"(rA_CHECK(cub::DeviceScan::ExclusiveSum(dTemp, tempBytes, dI)); out[7] = r;
(t & 31))); ou