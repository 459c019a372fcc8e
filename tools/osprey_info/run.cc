#include "run.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace osprey::info {
namespace {

using Clock = std::chrono::steady_clock;

// The job runs in its own process group (so that a hang is killed whole), which the terminal's
// Ctrl-C no longer reaches: osprey-info passes it on.
volatile std::sig_atomic_t interrupted = 0;
void on_interrupt(int) {
  interrupted = 1;
}

[[noreturn]] void exec_child(const std::vector<std::string>& argv,
                             const std::vector<std::pair<std::string, std::string>>& env, int out) {
  setpgid(0, 0);
  dup2(out, STDOUT_FILENO);
  dup2(out, STDERR_FILENO);
  for (const auto& [name, value] : env)
    setenv(name.c_str(), value.c_str(), 1);
  std::vector<char*> args;
  for (const std::string& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  std::fprintf(stderr, "osprey-info: cannot run %s: %s\n", args[0], std::strerror(errno));
  _exit(127);
}

}  // namespace

RunResult run_command(const std::vector<std::string>& argv,
                      const std::vector<std::pair<std::string, std::string>>& env,
                      int timeout_seconds) {
  RunResult r;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return r;
  struct sigaction sa = {}, old_int = {}, old_term = {};
  sa.sa_handler = on_interrupt;  // no SA_RESTART: poll returns at once
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) exec_child(argv, env, fds[1]);
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    return r;
  }
  r.started = true;
  setpgid(pid, pid);  // also here: whichever of the two runs first

  const auto deadline = Clock::now() + std::chrono::seconds(timeout_seconds);
  auto exited_at = Clock::time_point::max(), terminated_at = Clock::time_point::max();
  bool eof = false, exited = false;
  int status = 0;
  while (!(exited && eof)) {
    if (!eof) {
      pollfd p{fds[0], POLLIN, 0};
      if (poll(&p, 1, 100) > 0) {
        char buf[4096];
        const ssize_t n = read(fds[0], buf, sizeof buf);
        if (n > 0) r.output.append(buf, static_cast<std::size_t>(n));
        if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) eof = true;
      }
    } else {
      usleep(100 * 1000);
    }
    if (!exited && waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      exited_at = Clock::now();
    }
    const auto now = Clock::now();
    // A process left behind that still holds the output open is not waited for.
    if (exited && now - exited_at > std::chrono::seconds(2)) {
      kill(-pid, SIGKILL);
      break;
    }
    if (!exited && terminated_at == Clock::time_point::max() && (now > deadline || interrupted)) {
      r.interrupted = interrupted != 0;
      r.timed_out = !r.interrupted;
      kill(-pid, SIGTERM);
      terminated_at = now;
    }
    if (!exited && now - terminated_at > std::chrono::seconds(3)) kill(-pid, SIGKILL);
  }
  close(fds[0]);
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

}  // namespace osprey::info
