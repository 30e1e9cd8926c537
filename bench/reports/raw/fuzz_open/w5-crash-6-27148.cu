_ asm volatile("atom.acq_rel.global.or.b32%0,[1],2":"=r"(""""warpSize"          \
      exit(1);       "))