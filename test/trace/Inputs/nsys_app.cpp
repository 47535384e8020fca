// The user's program of the Nsight Systems test (nsys-sqlite.test): built with -g at test time, its functions
// are the user frames of the backtraces that make_nsys_sqlite.py writes, and the tool turns them into these
// lines. It makes no CUDA call itself: the export says which CUDA calls waited, and where they were made.
static volatile int sink;

__attribute__((noinline)) void waitForLoss(int step) {
  sink = step; // NSYS-WAIT-LINE: where `loss.item<float>()` would be (cudaStreamSynchronize)
  sink = sink + 1;
}

__attribute__((noinline)) void copyOut(int step) {
  sink = step * 2; // NSYS-COPY-LINE: where a synchronous copy to pageable memory would be (cudaMemcpy)
}

int main() {
  for (int step = 0; step < 2; ++step) {
    waitForLoss(step);
    copyOut(step);
  }
  return 0;
}
