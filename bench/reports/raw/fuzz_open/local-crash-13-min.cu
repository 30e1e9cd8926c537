_ asm volatile("atom.acq_rel.gpu.global.or.b32%0,[1],2":"=r"("""""\
"))