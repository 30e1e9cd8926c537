// cass-nvcc-client: the per-call half of the stand-in's bin/nvcc.
//
// A build runs nvcc once per file, and one Python process per call costs more than the
// driver's budget before any CASS code runs. This program costs a millisecond: it hands
// its argv, cwd, umask, environment and stdin/stdout/stderr (SCM_RIGHTS) to a long-lived
// translation server (cass_build/nvcc/server.py), which forks a warm child per call, and
// exits with the child's exit code. It starts the server when it finds none, and runs the
// driver in-process (exec python) whenever the server cannot be reached or started, so a
// build never depends on it.
//
//   cass-nvcc-client PYTHON TOOLKIT_BIN [nvcc arguments...]
//
// The protocol (both ends live in this package, so it has no version negotiation beyond
// the socket's name): the client sends a 4-byte little-endian length with the three fds,
// then that many bytes: "CASSNVCC1", cwd, umask, argc, the arguments, then "KEY=VALUE"
// entries, each NUL-terminated. The server answers "stale\n" (its code changed: start a
// new one) or the child's "pid N\n" and, when done, "rc N\n".
//
// Linux only (ROCm is): /proc/self/fd names the socket directory when its path is long.

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

extern char** environ;

namespace {

// The driver's own entry point, as bin/nvcc runs it without the server.
const char kInProcess[] = "import sys; from cass_build.nvcc import main; sys.exit(main())";
const char kServe[] = "import sys; from cass_build.nvcc.server import serve; sys.exit(serve())";

struct Call {
    std::string python;
    std::string bin;
    std::vector<char*> args;  // the nvcc arguments
};

[[noreturn]] void run_in_process(const Call& call) {
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(call.python.c_str()));
    argv.push_back(const_cast<char*>("-P"));
    argv.push_back(const_cast<char*>("-c"));
    argv.push_back(const_cast<char*>(kInProcess));
    for (char* a : call.args) argv.push_back(a);
    argv.push_back(nullptr);
    execv(call.python.c_str(), argv.data());
    std::fprintf(stderr, "cass nvcc: error: cannot run %s: %s\n", call.python.c_str(),
                 std::strerror(errno));
    std::fprintf(stderr, "cass nvcc: hint: reinstall CASS, or run the driver as `cass nvcc`\n");
    std::_Exit(2);
}

std::string env_or(const char* name, const std::string& fallback) {
    const char* v = std::getenv(name);
    return (v != nullptr && *v != '\0') ? std::string(v) : fallback;
}

bool absolute(const std::string& p) { return !p.empty() && p[0] == '/'; }

// The cache directory as cass_build._files.cache_dir finds it on Linux.
std::string cache_dir() {
    std::string explicit_dir = env_or("CASS_CACHE_DIR", "");
    if (!explicit_dir.empty()) return explicit_dir;
    std::string xdg = env_or("XDG_CACHE_HOME", "");
    if (absolute(xdg)) return xdg + "/cass";
    std::string home = env_or("HOME", "");
    if (absolute(home)) return home + "/.cache/cass";
    return "/tmp/cass-" + std::to_string(getuid());
}

// Sockets live in a directory only this user can enter: the runtime directory's when
// there is one (it is already private and cleared at logout), else the cache's.
std::string socket_dir() {
    std::string runtime = env_or("XDG_RUNTIME_DIR", "");
    if (absolute(runtime)) return runtime + "/cass-nvcc";
    return cache_dir() + "/nvcc-server";
}

bool make_dirs(const std::string& path) {
    for (size_t i = 1; i <= path.size(); ++i) {
        if (i != path.size() && path[i] != '/') continue;
        std::string part = path.substr(0, i);
        if (mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) return false;
    }
    return true;
}

// An fd on the socket directory if it is ours and private (0700), else -1.
int private_dir(const std::string& path) {
    if (!make_dirs(path)) return -1;
    int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st{};
    if (fstat(fd, &st) != 0 || st.st_uid != getuid() || (st.st_mode & 077) != 0 ||
        faccessat(fd, ".", W_OK | X_OK, 0) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

// FNV-1a: the socket's name only has to tell installs and interpreters apart.
std::string key_hex(const std::vector<std::string>& parts) {
    uint64_t h = 1469598103934665603ULL;
    for (const std::string& part : parts) {
        for (unsigned char c : part) h = (h ^ c) * 1099511628211ULL;
        h = (h ^ 0xff) * 1099511628211ULL;
    }
    char out[17];
    std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
    return out;
}

std::string real_path(const std::string& path) {
    char* resolved = realpath(path.c_str(), nullptr);
    if (resolved == nullptr) return path;
    std::string out(resolved);
    std::free(resolved);
    return out;
}

std::string link_text(const char* path) {
    char buf[256];
    ssize_t n = readlink(path, buf, sizeof buf);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

// What decides a server's code and the state its children inherit, so that calls that
// differ in it get servers of their own: the interpreter (named as given: venvs share
// one binary through symlinks), the install, the mount namespace (a container sharing
// the directory sees other files), and the variables Python reads once at start-up
// (PYTHONPATH and the other PYTHON* ones; the locale, which decides stdio's encoding).
std::vector<std::string> server_key(const Call& call) {
    std::vector<std::string> key{call.python, real_path(call.bin), link_text("/proc/self/ns/mnt")};
    std::vector<std::string> startup;
    for (char** e = environ; *e != nullptr; ++e) {
        std::string entry(*e);
        if (entry.rfind("PYTHON", 0) == 0 || entry.rfind("LC_ALL=", 0) == 0 ||
            entry.rfind("LC_CTYPE=", 0) == 0 || entry.rfind("LANG=", 0) == 0)
            startup.push_back(entry);
    }
    std::sort(startup.begin(), startup.end());
    key.insert(key.end(), startup.begin(), startup.end());
    return key;
}

// The address of NAME in the directory open as DIR_FD: through /proc when the full
// path would not fit sun_path (deep cache directories in build trees).
bool address(int dir_fd, const std::string& dir, const std::string& name, sockaddr_un* addr) {
    std::memset(addr, 0, sizeof *addr);
    addr->sun_family = AF_UNIX;
    std::string path = dir + "/" + name;
    if (path.size() >= sizeof addr->sun_path)
        path = "/proc/self/fd/" + std::to_string(dir_fd) + "/" + name;
    if (path.size() >= sizeof addr->sun_path) return false;
    std::memcpy(addr->sun_path, path.c_str(), path.size());
    return true;
}

int connect_to(const sockaddr_un& addr) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

void sleep_ms(long ms) {
    timespec ts{ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

// Starts a detached server (its own session, no fds of the build's but a pipe on which
// it says "ready" once it listens, or "busy" when another one holds the lock). Returns
// false when it died without a word: the caller runs in-process.
bool start_server(const Call& call, const std::string& dir, const std::string& name) {
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) return false;
    pid_t pid = fork();
    if (pid < 0) {
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        return false;
    }
    if (pid == 0) {
        setsid();
        if (fork() != 0) _exit(0);
        // The server outlives the build: it must hold none of its pipes (make's jobserver,
        // a caller waiting for EOF on our stdout), so everything but the ready pipe goes.
        int null_fd = open("/dev/null", O_RDWR);
        std::string log = dir + "/" + name + ".log";
        int log_fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        dup2(null_fd, 0);
        dup2(null_fd, 1);
        dup2(log_fd >= 0 ? log_fd : null_fd, 2);
        // The ready pipe becomes fd 3, without close-on-exec.
        if (pipe_fds[1] == 3) {
            fcntl(3, F_SETFD, 0);
        } else {
            dup2(pipe_fds[1], 3);
        }
        if (close_range(4, ~0U, 0) != 0) {
            for (int fd = 4; fd < 65536; ++fd) close(fd);
        }
        if (chdir("/") != 0) _exit(127);
        std::string ready_arg = "3";
        const char* argv[] = {call.python.c_str(), "-P",   "-c", kServe, dir.c_str(), name.c_str(),
                              ready_arg.c_str(),   nullptr};
        execv(call.python.c_str(), const_cast<char**>(argv));
        _exit(127);
    }
    close(pipe_fds[1]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    char buf[16] = {};
    ssize_t n;
    while ((n = read(pipe_fds[0], buf, sizeof buf - 1)) < 0 && errno == EINTR) {
    }
    close(pipe_fds[0]);
    return n > 0;
}

bool send_all(int fd, const char* data, size_t size) {
    while (size > 0) {
        ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        size -= static_cast<size_t>(n);
    }
    return true;
}

void put(std::string* out, const std::string& field) {
    out->append(field);
    out->push_back('\0');
}

bool send_request(int sock, const Call& call) {
    std::vector<char> cwd(4096);
    while (getcwd(cwd.data(), cwd.size()) == nullptr) {
        if (errno != ERANGE) return false;
        cwd.resize(cwd.size() * 2);
    }
    mode_t mask = umask(0);
    umask(mask);
    std::string payload;
    put(&payload, "CASSNVCC1");
    put(&payload, cwd.data());
    put(&payload, std::to_string(mask));
    put(&payload, std::to_string(call.args.size()));
    for (char* a : call.args) put(&payload, a);
    for (char** e = environ; *e != nullptr; ++e) put(&payload, *e);

    // A closed standard fd cannot travel: the child gets /dev/null there instead.
    int fds[3];
    for (int i = 0; i < 3; ++i) {
        fds[i] = i;
        if (fcntl(i, F_GETFD) < 0) fds[i] = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (fds[i] < 0) return false;
    }
    uint32_t size = static_cast<uint32_t>(payload.size());
    unsigned char header[4] = {
        static_cast<unsigned char>(size), static_cast<unsigned char>(size >> 8),
        static_cast<unsigned char>(size >> 16), static_cast<unsigned char>(size >> 24)};
    iovec iov{header, sizeof header};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof fds)] = {};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof fds);
    std::memcpy(CMSG_DATA(cmsg), fds, sizeof fds);
    ssize_t sent;
    while ((sent = sendmsg(sock, &msg, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
    }
    if (sent != static_cast<ssize_t>(sizeof header)) return false;
    return send_all(sock, payload.data(), payload.size());
}

volatile sig_atomic_t g_child = 0;   // the server's child running this call
volatile sig_atomic_t g_signal = 0;  // the last signal forwarded to it

// Ctrl-C in make reaches this process's group, not the server's child: pass it on to
// the child's process group (hipcc and clang included), as the terminal would have.
void forward(int sig) {
    g_signal = sig;
    if (g_child > 0) kill(-static_cast<pid_t>(g_child), sig);
}

enum Outcome { kStale = -1, kNotStarted = -2 };

// Reads the server's answer: kStale, kNotStarted (nothing ran: safe to run in-process),
// or the call's exit code.
int await_result(int sock) {
    std::string got;
    char buf[256];
    bool started = false;
    for (;;) {
        size_t eol;
        while ((eol = got.find('\n')) != std::string::npos) {
            std::string line = got.substr(0, eol);
            got.erase(0, eol + 1);
            if (line == "stale") return kStale;
            if (line.rfind("pid ", 0) == 0) {
                g_child = std::atoi(line.c_str() + 4);
                started = g_child > 0;
                if (started && g_signal != 0) kill(-static_cast<pid_t>(g_child), g_signal);
            } else if (line.rfind("rc ", 0) == 0) {
                return std::atoi(line.c_str() + 3) & 0xff;
            }
        }
        ssize_t n = recv(sock, buf, sizeof buf, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n > 0) {
            got.append(buf, static_cast<size_t>(n));
            continue;
        }
        if (!started) return kNotStarted;
        if (g_signal != 0) {  // the child died of the signal we passed on: so do we
            signal(g_signal, SIG_DFL);
            raise(g_signal);
        }
        std::fprintf(stderr,
                     "cass nvcc: error: the translation server's worker (pid %d) ended "
                     "without a result\n"
                     "cass nvcc: hint: set CASS_NVCC_SERVER=0 to run the driver in-process\n",
                     static_cast<int>(g_child));
        return 1;
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr,
                     "cass-nvcc-client: error: usage: cass-nvcc-client PYTHON TOOLKIT_BIN "
                     "[nvcc arguments]\n"
                     "cass-nvcc-client: hint: the stand-in's bin/nvcc runs this program\n");
        return 2;
    }
    Call call{argv[1], argv[2], {argv + 3, argv + argc}};
    if (env_or("CASS_NVCC_SERVER", "1") == "0") run_in_process(call);

    std::string dir = socket_dir();
    int dir_fd = private_dir(dir);
    if (dir_fd < 0) run_in_process(call);
    std::string name = "nvcc-" + key_hex(server_key(call)) + ".sock";
    sockaddr_un addr{};
    if (!address(dir_fd, dir, name, &addr)) run_in_process(call);

    struct sigaction sa{};
    sa.sa_handler = forward;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaction(sig, &sa, nullptr);
    signal(SIGPIPE, SIG_IGN);

    for (int attempt = 0; attempt < 2; ++attempt) {
        int sock = connect_to(addr);
        if (sock < 0) {
            if (!start_server(call, dir, name)) break;
            // Another client's server may still be importing: give it a few seconds.
            for (int i = 0; i < 500 && sock < 0; ++i) {
                sock = connect_to(addr);
                if (sock < 0) sleep_ms(i < 50 ? 2 : 20);
            }
            if (sock < 0) break;
        }
        if (g_signal != 0) return 128 + g_signal;
        // A stale server answers without reading the request, so a failed send may
        // still leave its answer to read.
        bool sent = send_request(sock, call);
        if (!sent) shutdown(sock, SHUT_WR);  // a child waiting for the rest sees the end
        int rc = await_result(sock);
        if (!sent && rc >= 0) rc = kNotStarted;
        close(sock);
        if (rc == kStale) continue;  // it has shut down; the next attempt starts a fresh one
        if (rc == kNotStarted) break;
        return rc;
    }
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) signal(sig, SIG_DFL);
    run_in_process(call);
}
