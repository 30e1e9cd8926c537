// Work spread over threads for the batch bindings (translate_files, translate_tree).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

#include "cass/rewriter.hpp"

namespace cass_py {

// fn(index, workspace) for every index below n, on up to `threads` threads (the caller's
// among them), each with its own Workspace.
template <typename Fn>
void parallel(std::size_t n, int threads, Fn fn) {
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
        cass::Workspace workspace;
        for (std::size_t i = next++; i < n; i = next++) fn(i, workspace);
    };
    const std::size_t total =
        std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)), n);
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < total; ++t) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
}

}  // namespace cass_py
