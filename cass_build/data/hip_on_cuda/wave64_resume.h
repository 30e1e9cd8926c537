// Wave64 mode: restore the 64-lane macros (see wave64.h) after a CUDA header.
//
// No include guard: the generated HIP headers include it after the CUDA headers they
// stand for, so that CUDA's own headers, included after wave64.h, see CUDA's names and not
// the 64-lane macros. The list is wave64.h's; tests/test_wave64.py checks that they agree.
#if defined(CASS_WAVE64)
#pragma pop_macro("warpSize")
#pragma pop_macro("__shfl")
#pragma pop_macro("__shfl_up")
#pragma pop_macro("__shfl_down")
#pragma pop_macro("__shfl_xor")
#pragma pop_macro("__shfl_sync")
#pragma pop_macro("__shfl_up_sync")
#pragma pop_macro("__shfl_down_sync")
#pragma pop_macro("__shfl_xor_sync")
#pragma pop_macro("__ballot")
#pragma pop_macro("__all")
#pragma pop_macro("__any")
#pragma pop_macro("__activemask")
#pragma pop_macro("__ballot_sync")
#pragma pop_macro("__all_sync")
#pragma pop_macro("__any_sync")
#pragma pop_macro("__match_any_sync")
#pragma pop_macro("__match_all_sync")
#pragma pop_macro("__reduce_add_sync")
#pragma pop_macro("__reduce_min_sync")
#pragma pop_macro("__reduce_max_sync")
#pragma pop_macro("__reduce_and_sync")
#pragma pop_macro("__reduce_or_sync")
#pragma pop_macro("__reduce_xor_sync")
#pragma pop_macro("__syncwarp")
#pragma pop_macro("__threadfence_block")
#pragma pop_macro("__syncthreads")
#endif
