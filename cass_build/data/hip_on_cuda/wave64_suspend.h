// Wave64 mode: set aside the 64-lane macros (see wave64.h) before a CUDA header.
//
// No include guard: the generated HIP headers include it before the CUDA headers they
// stand for, so that CUDA's own headers, included after wave64.h, see CUDA's names and not
// the 64-lane macros. The list is wave64.h's; tests/test_wave64.py checks that they agree.
#if defined(CASS_WAVE64)
#pragma push_macro("warpSize")
#undef warpSize
#pragma push_macro("__shfl")
#undef __shfl
#pragma push_macro("__shfl_up")
#undef __shfl_up
#pragma push_macro("__shfl_down")
#undef __shfl_down
#pragma push_macro("__shfl_xor")
#undef __shfl_xor
#pragma push_macro("__shfl_sync")
#undef __shfl_sync
#pragma push_macro("__shfl_up_sync")
#undef __shfl_up_sync
#pragma push_macro("__shfl_down_sync")
#undef __shfl_down_sync
#pragma push_macro("__shfl_xor_sync")
#undef __shfl_xor_sync
#pragma push_macro("__ballot")
#undef __ballot
#pragma push_macro("__all")
#undef __all
#pragma push_macro("__any")
#undef __any
#pragma push_macro("__activemask")
#undef __activemask
#pragma push_macro("__ballot_sync")
#undef __ballot_sync
#pragma push_macro("__all_sync")
#undef __all_sync
#pragma push_macro("__any_sync")
#undef __any_sync
#pragma push_macro("__match_any_sync")
#undef __match_any_sync
#pragma push_macro("__match_all_sync")
#undef __match_all_sync
#pragma push_macro("__reduce_add_sync")
#undef __reduce_add_sync
#pragma push_macro("__reduce_min_sync")
#undef __reduce_min_sync
#pragma push_macro("__reduce_max_sync")
#undef __reduce_max_sync
#pragma push_macro("__reduce_and_sync")
#undef __reduce_and_sync
#pragma push_macro("__reduce_or_sync")
#undef __reduce_or_sync
#pragma push_macro("__reduce_xor_sync")
#undef __reduce_xor_sync
#pragma push_macro("__syncwarp")
#undef __syncwarp
#pragma push_macro("__threadfence_block")
#undef __threadfence_block
#pragma push_macro("__syncthreads")
#undef __syncthreads
#endif
