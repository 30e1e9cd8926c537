// A main() for the fuzz target (core_fuzz.cpp) where clang's libFuzzer runtime is
// missing, e.g. on a machine with only g++: the same LLVMFuzzerInitialize and
// LLVMFuzzerTestOneInput, called by a seeded random mutator instead of libFuzzer.
//
// It has no coverage feedback: each input is a window of a seed file (up to
// --max-len bytes) with one to eight random edits (a dictionary token inserted, a
// byte changed, a range deleted, duplicated or spliced in from another seed). What
// it checks is exactly what the libFuzzer build checks; what it cannot do is steer
// towards new code paths, so its executions are cheaper and less searching.
//
//   cass_core_fuzz_driver [--seed=N --runs=N --max-seconds=S --max-len=N --dict=FILE
//                          --artifact-prefix=P] DIR_OR_FILE...
//
// With --runs it runs a campaign over the seeds in the files and directories named;
// without, it replays each file once (as libFuzzer does with file arguments). A
// broken invariant aborts: the input is written to P + "crash-<seed>-<n>" first
// (from the signal handler, or the sanitizers' death callback), and the driver
// exits non-zero, like libFuzzer.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
// Present when built with a sanitizer: called before it exits on a report.
extern "C" void __sanitizer_set_death_callback(void (*callback)()) __attribute__((weak));

namespace {

// The input being run, for the handlers: written once when a run dies.
const std::string* current = nullptr;
char artifact[4096];
unsigned long long executions = 0;
volatile sig_atomic_t dumped = 0;

void say(const char* s) { (void)!write(2, s, std::strlen(s)); }

void dump() {
    if (dumped != 0 || current == nullptr) return;
    dumped = 1;
    const int fd = open(artifact, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
        std::size_t at = 0;
        while (at < current->size()) {
            const ssize_t n = write(fd, current->data() + at, current->size() - at);
            if (n <= 0) break;
            at += static_cast<std::size_t>(n);
        }
        close(fd);
    }
    char line[64];
    std::snprintf(line, sizeof line, "%llu", executions);  // not async-safe, but only once
    say("cass_fuzz_driver: finding after ");
    say(line);
    say(" executions; input written to ");
    say(artifact);
    say("\n");
}

void on_signal(int sig) {
    dump();
    signal(sig, SIG_DFL);
    raise(sig);
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void collect(const std::string& path, std::vector<std::string>* files) {
    struct stat st{};
    if (stat(path.c_str(), &st) != 0) return;
    if (!S_ISDIR(st.st_mode)) {
        files->push_back(path);
        return;
    }
    DIR* d = opendir(path.c_str());
    if (d == nullptr) return;
    std::vector<std::string> names;
    while (const dirent* e = readdir(d)) {
        if (e->d_name[0] != '.') names.emplace_back(e->d_name);
    }
    closedir(d);
    std::sort(names.begin(), names.end());  // the same seeds in the same order everywhere
    for (const std::string& n : names) collect(path + "/" + n, files);
}

// libFuzzer's dictionary format: one "..." entry a line, \\, \" and \xNN escapes.
std::vector<std::string> read_dict(const std::string& path) {
    std::vector<std::string> out;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        const std::size_t q = line.find('"');
        const std::size_t e = line.rfind('"');
        if (q == std::string::npos || e <= q) continue;
        std::string tok;
        for (std::size_t k = q + 1; k < e; ++k) {
            if (line[k] == '\\' && k + 1 < e) {
                const char c = line[++k];
                if (c == 'x' && k + 2 < e) {
                    tok += static_cast<char>(std::stoi(line.substr(k + 1, 2), nullptr, 16));
                    k += 2;
                } else {
                    tok += c;
                }
            } else {
                tok += line[k];
            }
        }
        if (!tok.empty()) out.push_back(tok);
    }
    return out;
}

struct Mutator {
    std::mt19937_64 rng;
    const std::vector<std::string>& seeds;
    const std::vector<std::string>& dict;
    std::size_t max_len;

    std::size_t below(std::size_t n) { return n == 0 ? 0 : rng() % n; }

    const std::string& any_seed() { return seeds[below(seeds.size())]; }

    std::string window(const std::string& s, std::size_t len) {
        if (s.size() <= len) return s;
        return s.substr(below(s.size() - len + 1), len);
    }

    void edit(std::string& s) {
        const std::size_t at = below(s.size() + 1);
        switch (below(7)) {
            case 0:
            case 1:
                if (!dict.empty()) s.insert(at, dict[below(dict.size())]);
                break;
            case 2:
                if (!s.empty()) s[below(s.size())] = static_cast<char>(rng());
                break;
            case 3:
                s.erase(at, 1 + below(16));
                break;
            case 4:
                if (at < s.size()) s.insert(below(s.size() + 1), s.substr(at, 1 + below(32)));
                break;
            case 5:
                s.insert(at, window(any_seed(), 1 + below(64)));
                break;
            default: {
                static const char kChars[] = "(){}[]<>,;#\"'\\/*\n \t0123456789abxyz_";
                s.insert(at, 1, kChars[below(sizeof kChars - 1)]);
                break;
            }
        }
    }

    std::string next() {
        std::string s = window(any_seed(), 1 + below(max_len));
        const std::size_t edits = 1 + below(8);
        for (std::size_t k = 0; k < edits; ++k) edit(s);
        if (s.size() > max_len) s.resize(max_len);
        if (!s.empty() && below(4) == 0) s[0] = static_cast<char>(rng());  // the options byte
        return s;
    }
};

bool flag(const char* arg, const char* name, std::string* value) {
    const std::size_t n = std::strlen(name);
    if (std::strncmp(arg, name, n) != 0 || arg[n] != '=') return false;
    *value = arg + n + 1;
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    unsigned long long seed = 1;
    unsigned long long runs = 0;
    double max_seconds = 0;
    std::size_t max_len = 512;
    std::string dict_path;
    std::string prefix = "./";
    std::vector<std::string> paths;
    for (int k = 1; k < argc; ++k) {
        std::string v;
        if (flag(argv[k], "--seed", &v)) {
            seed = std::stoull(v);
        } else if (flag(argv[k], "--runs", &v)) {
            runs = std::stoull(v);
        } else if (flag(argv[k], "--max-seconds", &v)) {
            max_seconds = std::stod(v);
        } else if (flag(argv[k], "--max-len", &v)) {
            max_len = std::stoul(v);
        } else if (flag(argv[k], "--dict", &v)) {
            dict_path = v;
        } else if (flag(argv[k], "--artifact-prefix", &v)) {
            prefix = v;
        } else if (argv[k][0] == '-') {
            std::fprintf(stderr, "cass_fuzz_driver: unknown option %s\n", argv[k]);
            return 2;
        } else {
            paths.emplace_back(argv[k]);
        }
    }
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // the log survives an abort
    LLVMFuzzerInitialize(&argc, &argv);
    for (const int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) signal(sig, on_signal);
    if (__sanitizer_set_death_callback != nullptr) __sanitizer_set_death_callback(dump);
    std::vector<std::string> files;
    for (const std::string& p : paths) collect(p, &files);

    std::string input;
    current = &input;
    if (runs == 0) {  // replay
        for (const std::string& f : files) {
            input = read_file(f);
            std::snprintf(artifact, sizeof artifact, "%scrash-replay", prefix.c_str());
            LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(input.data()),
                                   input.size());
            ++executions;
            std::printf("Executed %s\n", f.c_str());
        }
        return 0;
    }
    std::vector<std::string> seeds;
    for (const std::string& f : files) {
        std::string s = read_file(f);
        if (!s.empty()) seeds.push_back(std::move(s));
    }
    if (seeds.empty()) seeds.emplace_back("__global__ void k() {}\n");
    const std::vector<std::string> dict =
        dict_path.empty() ? std::vector<std::string>{} : read_dict(dict_path);
    Mutator m{std::mt19937_64(seed), seeds, dict, max_len};
    const auto start = std::chrono::steady_clock::now();
    const auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    std::printf("cass_fuzz_driver: seed %llu, %zu seeds, %zu dictionary entries, max_len %zu\n",
                seed, seeds.size(), dict.size(), max_len);
    // Seeds first, whole (cut to max_len), then mutations.
    for (; executions < runs; ++executions) {
        if (executions < seeds.size()) {
            input = seeds[executions].substr(0, max_len);
        } else {
            input = m.next();
        }
        std::snprintf(artifact, sizeof artifact, "%scrash-%llu-%llu", prefix.c_str(), seed,
                      executions);
        LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
        if ((executions & 1023U) == 1023U) {
            if (max_seconds > 0 && elapsed() >= max_seconds) {
                ++executions;
                break;
            }
            if ((executions & 0x3FFFFU) == 0x3FFFFU) {
                std::printf("#%llu exec/s: %.0f\n", executions + 1,
                            static_cast<double>(executions + 1) / elapsed());
                std::fflush(stdout);
            }
        }
    }
    const double s = elapsed();
    std::printf("Done %llu runs in %.0f second(s) (%.0f exec/s)\n", executions, s,
                static_cast<double>(executions) / (s > 0 ? s : 1));
    return 0;
}
