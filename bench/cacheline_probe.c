/* Physical reference: two processes bounce one cache line. Prints the one-way latency in ns
 * ("PROBE", which the runners take before and after each pair of engine runs to notice
 * placement changes) and the round trip in microseconds ("BENCH", the floor under any
 * cross-process operation that must hear back). */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  const long rounds = argc > 1 ? atol(argv[1]) : 200000;
  _Atomic long* line = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (line == MAP_FAILED) return 1;
  atomic_store(line, 0);
  pid_t kid = fork();
  if (kid == 0) {
    for (long i = 0; i < rounds; i++) {
      while (atomic_load_explicit(line, memory_order_acquire) != 2 * i + 1) {
      }
      atomic_store_explicit(line, 2 * i + 2, memory_order_release);
    }
    _exit(0);
  }
  /* Warm up, then time. */
  const long warm = rounds / 10;
  double t0 = 0;
  for (long i = 0; i < rounds; i++) {
    if (i == warm) t0 = now();
    atomic_store_explicit(line, 2 * i + 1, memory_order_release);
    while (atomic_load_explicit(line, memory_order_acquire) != 2 * i + 2) {
    }
  }
  const double t = now() - t0;
  waitpid(kid, NULL, 0);
  const double one_way = t / (double)(rounds - warm) / 2;
  printf("PROBE cacheline_one_way_ns %.1f\n", one_way * 1e9);
  printf("BENCH cacheline_round_trip 8 %.4f\n", 2 * one_way * 1e6);
  return 0;
}
