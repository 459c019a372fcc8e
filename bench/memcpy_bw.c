/* Physical reference for the bandwidth figures: memcpy on this machine, hot (the same buffers
 * again and again, so they stay in cache) and cold (marching through a region far larger than
 * the caches). Prints "BENCH memcpy_hot|memcpy_cold <bytes> <MB/s>" for 1 B .. max (4 MiB). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Median over 5 runs of about 10 ms of copies of n bytes, the source and destination moving
 * by `stride` through `region` bytes after each copy (stride 0: hot). */
static double rate(char* dst, const char* src, long n, long stride, long region) {
  double runs[5];
  long count = 1;
  for (;;) {
    const double t0 = now();
    for (long i = 0, off = 0; i < count; i++, off = (off + stride) % region) {
      memcpy(dst + off, src + off, (size_t)n);
      __asm__ volatile("" ::"r"(dst) : "memory");
    }
    const double t = now() - t0;
    if (t > 2.5e-3) {
      count = (long)((double)count * 1e-2 / t) + 1;
      break;
    }
    count *= 4;
  }
  for (int r = 0; r < 5; r++) {
    const double t0 = now();
    for (long i = 0, off = 0; i < count; i++, off = (off + stride) % region) {
      memcpy(dst + off, src + off, (size_t)n);
      __asm__ volatile("" ::"r"(dst) : "memory");
    }
    runs[r] = (double)n * (double)count / (now() - t0) / 1e6;
  }
  qsort(runs, 5, sizeof(double), cmp);
  return runs[2];
}

int main(int argc, char** argv) {
  const long max = argc > 1 ? atol(argv[1]) : 4L << 20;
  const long region = 256L << 20;
  char* src = malloc((size_t)(region + max));
  char* dst = malloc((size_t)(region + max));
  if (!src || !dst) return 1;
  memset(src, 1, (size_t)(region + max));
  memset(dst, 2, (size_t)(region + max));
  for (long n = 1; n <= max; n *= 2) {
    printf("BENCH memcpy_hot %ld %.2f\n", n, rate(dst, src, n, 0, region));
    /* Cold: a fresh 4 KiB-aligned stretch each time, so every copy misses. */
    const long stride = (n + 4095) / 4096 * 4096;
    printf("BENCH memcpy_cold %ld %.2f\n", n, rate(dst, src, n, stride, region));
    fflush(stdout);
  }
  free(src);
  free(dst);
  return 0;
}
